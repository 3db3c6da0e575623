"""Guided alignment (Garg et al., 2019): one cross-attention head learns eflomal's word links.

    training pairs --eflomal, both directions, grow-diag-final-and--> word links
        (once per run, kept in DIR/alignments.txt with a fingerprint of the pairs)
    -> links between subword pieces (``heedful.wordalign.piece_links``)
    -> per batch, (row, decoder position, source position, weight) entries: by default the
       position where the target piece is the decoder's input (``AlignConfig.position``)
    -> loss = -Σ weight · log attention[row, head, target position, source position]

A target piece linked to k source pieces puts weight 1/k on each. The head's attention is
recomputed from the inputs its layer received in the forward pass (a forward hook), for that
head alone, so the model's fast attention path stays as it is.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import Tensor, nn

from heedful.data.readers import ParallelText
from heedful.explain.linked_words import LinkedWords
from heedful.tokenizer import Tokenizer
from heedful.wordalign import (
    eflomal_links,
    piece_links,
    piece_spans,
    read_pharaoh,
    word_of_pieces,
    words_with_spans,
    write_pharaoh,
)

LINKS_FILE = "alignments.txt"


def word_links(text: ParallelText, out: Path, say: Callable[[str], None]) -> list[set]:
    """eflomal's symmetrised word links for every pair of ``text``, read from DIR/alignments.txt
    when it was computed for exactly these pairs (a resumed run), else computed and written."""
    expected = fingerprint(text)
    path = out / LINKS_FILE
    if path.is_file():
        lines = path.read_text(encoding="utf-8").split("\n")
        if lines[0] == expected and len(lines) == len(text) + 1:
            return [read_pharaoh(line) for line in lines[1:]]
        say(f"{path} was made for other pairs: aligning again")
    say(f"aligning {len(text):,} training pairs with eflomal (both directions)")
    sources = [words_with_spans(s)[0] for s in text.sources]
    targets = [words_with_spans(t)[0] for t in text.targets]
    links = eflomal_links(sources, targets)
    body = "\n".join(map(write_pharaoh, links))
    from heedful.files import atomic_write_bytes

    atomic_write_bytes(path, f"{expected}\n{body}".encode())
    return links


def count_linked_words(text: ParallelText, links: list[set]) -> LinkedWords:
    """The table of the words these links join (``heedful.explain.linked_words``), which a
    model directory keeps for alignment methods that weigh it."""
    return LinkedWords.count(
        (words_with_spans(s)[0] for s in text.sources),
        (words_with_spans(t)[0] for t in text.targets),
        links,
    )


def fingerprint(text: ParallelText) -> str:
    digest = hashlib.sha256()
    for s, t in zip(text.sources, text.targets, strict=True):
        digest.update(f"{s}\t{t}\n".encode())
    return f"# eflomal grow-diag-final-and; pairs sha256 {digest.hexdigest()}"


def pair_piece_links(
    source: str, target: str, links: set, tokenizer: Tokenizer
) -> list[tuple[int, int]]:
    """(source piece, target piece) links of one normalised pair from its word links."""
    _, s_surfaces = tokenizer.encode_with_spans(source)
    _, t_surfaces = tokenizer.encode_with_spans(target)
    s_words = word_of_pieces(piece_spans(s_surfaces), words_with_spans(source)[1])
    t_words = word_of_pieces(piece_spans(t_surfaces), words_with_spans(target)[1])
    return piece_links(links, s_words, t_words)


def batch_entries(links: list[list[tuple[int, int]]], *, shift: int = 1) -> tuple[Tensor, Tensor]:
    """A batch's links (one list per row) -> index [N, 3] of (row, decoder position, source
    position) and weights [N]: 1/k for a target piece linked to k source pieces. Target piece t
    is read at decoder position t + ``shift``: 1 where it is the decoder's input (after the
    start token), 0 at the step that predicts it."""
    index, weights = [], []
    for row, pairs in enumerate(links):
        per_target: dict[int, int] = {}
        for _, t in pairs:
            per_target[t] = per_target.get(t, 0) + 1
        for s, t in pairs:
            index.append((row, t + shift, s))
            weights.append(1.0 / per_target[t])
    if not index:
        return torch.zeros(0, 3, dtype=torch.long), torch.zeros(0)
    return torch.tensor(index, dtype=torch.long), torch.tensor(weights)


@dataclass
class HeadScores:
    """One head's attention scores [B, T, S] before any softmax (fp32, with gradients), and the
    source mask [B, S] (True = a real piece)."""

    scores: Tensor
    key_mask: Tensor | None

    def log_weights(self) -> Tensor:
        """The head's log-attention [B, T, S]: over the source pieces (padding at -inf)."""
        scores = self.scores
        if self.key_mask is not None:
            scores = scores.masked_fill(~self.key_mask[:, None, :], float("-inf"))
        return torch.log_softmax(scores, dim=-1)

    def target_log_weights(self, targets: Tensor) -> Tensor:
        """The same scores normalised the other way: for each source position, a
        log-distribution [B, T, S] over the decoder positions ``targets`` [B, T] marks (those
        that hold a target piece): the reverse direction, as eflomal aligns both ways and keeps
        the links they agree on."""
        return torch.log_softmax(self.scores.masked_fill(~targets[:, :, None], -1e9), dim=1)


class AlignmentHead:
    """Watches one decoder layer's cross-attention; after a forward pass, ``read()`` is that
    head's scores (``HeadScores``), with gradients."""

    def __init__(self, model: nn.Module, layer: int, head: int):
        self.model, self.layer = model, layer
        self.attention = model.decoder.layers[layer].cross_attn
        if not 0 <= head < self.attention.n_heads:
            raise ValueError(f"align.head must be in 0..{self.attention.n_heads - 1}, not {head}")
        self.head = head
        self.inputs: tuple[Tensor, Tensor, Tensor | None] | None = None
        self.handle = self.attention.register_forward_hook(self._keep, with_kwargs=True)

    def _keep(self, module, args, kwargs, output) -> None:
        x = args[0]
        memory = args[1] if len(args) > 1 else kwargs.get("memory")
        self.inputs = (x, memory, kwargs.get("key_mask"))

    def read(self) -> HeadScores:
        """The head's scores in the forward pass just run (read once)."""
        if self.inputs is None:
            raise RuntimeError("AlignmentHead: no forward pass seen yet")
        x, memory, key_mask = self.inputs
        self.inputs = None
        return self._scores(x, memory, key_mask)

    def read_full_context(self, tgt_in: Tensor) -> HeadScores:
        """Garg et al.'s (2019) full-context pass: the decoder's layers up to this head's read
        the target input ``tgt_in`` [B, T] without the causal mask, and this head's scores are
        taken there, with gradients. The encoder's output is the one the forward pass just gave
        this layer (so call this after it)."""
        if self.inputs is None:
            raise RuntimeError("AlignmentHead: no forward pass seen yet")
        _, memory, key_mask = self.inputs
        self.inputs = None
        decoder = self.model.decoder
        target = tgt_in != self.model.config.pad_id
        x = self.model.tgt_embed(tgt_in)
        for below in decoder.layers[: self.layer]:
            x = below(x, memory, key_mask, self_mask=target, causal=False).x
        query = decoder.layers[self.layer].cross_query(x, causal=False, self_mask=target)
        return self._scores(query, memory, key_mask)

    def _scores(self, x: Tensor, memory: Tensor, key_mask: Tensor | None) -> HeadScores:
        """This head's scores for queries from ``x`` [B, T, d_model] over ``memory``."""
        a, d = self.attention, self.attention.d_head
        rows = slice(self.head * d, (self.head + 1) * d)
        q = nn.functional.linear(x, a.q_proj.weight[rows], a.q_proj.bias[rows]).float()
        k = nn.functional.linear(memory, a.k_proj.weight[rows], a.k_proj.bias[rows]).float()
        return HeadScores(q @ k.transpose(1, 2) / math.sqrt(d), key_mask)  # [B, T, S]

    def remove(self) -> None:
        self.handle.remove()


def reverse_alignment_loss(target_log_weights: Tensor, index: Tensor) -> Tensor:
    """-Σ weight · log attention of each link in the reverse direction (``target_log_weights``):
    a source piece linked to k target pieces gives each of them weight 1/k."""
    if not len(index):
        return target_log_weights.sum() * 0.0
    picked = target_log_weights[index[:, 0], index[:, 1], index[:, 2]]
    sources = index[:, 0] * target_log_weights.shape[2] + index[:, 2]
    _, which, counts = torch.unique(sources, return_inverse=True, return_counts=True)
    return -(picked / counts[which].to(picked.dtype)).sum()


def alignment_loss(log_weights: Tensor, index: Tensor, weights: Tensor) -> Tensor:
    """-Σ weight · log attention over a batch's link entries (a sum, like the token loss)."""
    if not len(index):
        return log_weights.sum() * 0.0
    picked = log_weights[index[:, 0], index[:, 1], index[:, 2]]
    return -(picked * weights.to(picked.device)).sum()
