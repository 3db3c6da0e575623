"""Alignment scores by erasure: which source word, hidden, costs each target word the most.

For a sentence pair with the target forced, the model scores log p(y_t | y_<t, x) once with the
whole source and once per source word w with w's pieces hidden (replaced by padding, which every
attention over the source masks out; the other words keep their positions). The score of
(target word, source word w) is the drop in log-probability, averaged over the target word's
pieces (Li et al., 2016, "Understanding Neural Networks through Representation Erasure"). A
positive score means the word helped predict the target word. It costs one forced-decoding pass
per source word, batched, and needs no attention weights, so it works with any encoder-decoder.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn

from heedful.explain.alignment_methods import source_words, target_words

BATCH = 16  # erased copies per forward pass


@torch.inference_mode()
def hidden_log_probs(
    model: nn.Module, src_ids: list[int], tgt_ids: list[int], hidden: list[list[int]]
) -> Tensor:
    """[1 + len(hidden), T] log p of each of ``tgt_ids`` (forced) given ``src_ids`` whole (the
    first row), then with each group of source positions of ``hidden`` hidden in turn."""
    config = model.config
    device = next(model.parameters()).device
    src = torch.tensor([src_ids], device=device).repeat(len(hidden) + 1, 1)  # [1 + G, S]
    for k, group in enumerate(hidden, 1):
        src[k, group] = config.pad_id
    tgt_in = torch.tensor([[config.start_id, *tgt_ids[:-1]]], device=device)  # [1, T]
    wanted = torch.tensor(tgt_ids, device=device)
    log_p = []
    for start in range(0, src.shape[0], BATCH):
        part = src[start : start + BATCH]
        logits = model(part, tgt_in.expand(part.shape[0], -1)).float()  # [b, T, V]
        log_p.append(
            logits.log_softmax(-1).gather(-1, wanted.expand(part.shape[0], -1)[..., None])[..., 0]
        )
    return torch.cat(log_p)  # [1 + G, T]


def erasure_scores(
    model: nn.Module,
    src_ids: list[int],
    tgt_ids: list[int],
    source_pieces: list[str],
    target_pieces: list[str],
) -> Tensor:
    """[target words, source words] drops in log p. ``src_ids`` end with end-of-sentence;
    ``tgt_ids`` are the tokens to predict (normally ending with end-of-sentence); the pieces are
    theirs (one per id), which define the words."""
    if len(source_pieces) != len(src_ids) or len(target_pieces) != len(tgt_ids):
        raise ValueError("erasure needs one piece per id, on both sides")
    columns = source_words(source_pieces)
    rows = target_words(target_pieces)
    log_p = hidden_log_probs(model, src_ids, tgt_ids, columns)  # [1 + Sw, T]
    drop = (log_p[:1] - log_p[1:]).T.cpu()  # [T, Sw]
    if not rows:
        return drop.new_zeros(0, len(columns))
    return torch.stack([drop[group].mean(0) for group in rows])  # [Tw, Sw]


def erase_pair(translator, source: str, target: str) -> Tensor:
    """``erasure_scores`` of a text pair, encoded as ``Translator.attend`` encodes it."""
    tokenizer = translator.tokenizer
    src_ids = tokenizer.encode(source)
    tgt_ids = getattr(tokenizer, "encode_target", tokenizer.encode)(target)
    source_pieces = getattr(tokenizer, "source_pieces", tokenizer.pieces)(src_ids)
    return erasure_scores(
        translator.model, src_ids, tgt_ids, source_pieces, tokenizer.pieces(tgt_ids)
    )
