"""Batches by token count, with length bucketing, the same for a seed on every machine.

The paper (§5.1) batches sentence pairs "by approximate sequence length", about 25,000 source and
25,000 target tokens per update. Each epoch here:

    shuffle the pairs (a generator seeded by seed and epoch)
    -> sort by length (stable: equal lengths stay shuffled)
    -> cut into batches of at most ``max_tokens`` padded tokens on either side
    -> shuffle the order of the batches.

Pairs of similar length share a batch, so little of it is padding. An update takes the next
``accumulation x world_size`` batches from one endless stream; ``BatchStream.position`` is what a
checkpoint stores to resume at the very next batch.

A language model's corpus has no source side: its batches have ``src`` None, and the model reads
``tgt_in`` alone (``model_logits``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch
from torch import Tensor, nn

from heedful.data.corpus import Corpus
from heedful.masks import pad

if TYPE_CHECKING:
    from heedful.config import ModelConfig
    from heedful.tokenizer import Tokenizer


def make_batches(
    src_lengths: list[int], tgt_lengths: list[int], max_tokens: int, *, seed: int, epoch: int
) -> list[list[int]]:
    """One epoch's batches, as lists of example indices.

    A batch of n examples costs n x (its longest source) tokens on the source side, and likewise
    on the target side; both stay <= max_tokens (an example longer than that is a batch alone).
    """
    generator = torch.Generator().manual_seed(seed * 1_000_003 + epoch)
    order = torch.randperm(len(src_lengths), generator=generator).tolist()
    order.sort(key=lambda i: (src_lengths[i], tgt_lengths[i]))
    batches, current, longest_src, longest_tgt = [], [], 0, 0
    for i in order:
        s, t = max(longest_src, src_lengths[i]), max(longest_tgt, tgt_lengths[i])
        if current and (len(current) + 1) * max(s, t) > max_tokens:
            batches.append(current)
            current, s, t = [], src_lengths[i], tgt_lengths[i]
        current.append(i)
        longest_src, longest_tgt = s, t
    if current:
        batches.append(current)
    shuffled = torch.randperm(len(batches), generator=generator).tolist()
    return [batches[j] for j in shuffled]


def padding_fraction(
    batches: list[list[int]], src_lengths: list[int], tgt_lengths: list[int]
) -> float:
    """The share of padding among all the tokens the batches feed the model (both sides)."""
    real = padded = 0
    for batch in batches:
        for lengths in (src_lengths, tgt_lengths):
            sizes = [lengths[i] for i in batch]
            real += sum(sizes)
            padded += len(sizes) * max(sizes)
    return 1.0 - real / padded if padded else 0.0


@dataclass
class Batch:
    """A right-padded batch: the source is ``x + [eos]``, the decoder reads ``[start] + y`` and
    learns to predict ``y + [eos]``. A language model's batch has no source (``src`` None)."""

    src: Tensor | None  # [B, S]
    tgt_in: Tensor  # [B, T]
    labels: Tensor  # [B, T], pad where there is no target
    # guided alignment: (row, target position, source position) [N, 3] and weights [N]
    align_index: Tensor | None = None
    align_weights: Tensor | None = None

    @property
    def target_tokens(self) -> int:
        return int((self.labels != 0).sum())

    def to(self, device: torch.device | str) -> Batch:
        return Batch(
            *(None if t is None else t.to(device, non_blocking=True)
              for t in (self.src, self.tgt_in, self.labels, self.align_index,
                        self.align_weights))
        )  # fmt: skip


def model_logits(model: nn.Module, batch: Batch) -> Tensor:
    """The logits [B, T, V] a model gives a batch: a translation model reads the source and
    ``tgt_in``, a decoder-only language model ``tgt_in`` alone."""
    return model(batch.tgt_in) if batch.src is None else model(batch.src, batch.tgt_in)


def collate(
    corpus: Corpus,
    indices: list[int],
    *,
    start_id: int,
    eos_id: int,
    pad_id: int = 0,
    align_shift: int = 1,
) -> Batch:
    """Token ids of the pairs (or, without a source side, the texts) ``indices`` -> a Batch."""
    targets = [corpus.tgt[i] for i in indices]
    tgt_in = [[start_id, *y] for y in targets]
    labels = [[*y, eos_id] for y in targets]
    src = None
    if corpus.src is not None:
        src = pad([corpus.src[i] + [eos_id] for i in indices], pad_id)
    batch = Batch(src, pad(tgt_in, pad_id), pad(labels, pad_id))
    if corpus.align is not None:
        from heedful.training.alignment import batch_entries

        batch.align_index, batch.align_weights = batch_entries(
            [corpus.align[i] for i in indices], shift=align_shift
        )
    return batch


def corpus_lengths(corpus: Corpus) -> tuple[list[int], list[int]]:
    """Each example's source length (``x + [eos]``; 0 without a source side) and target length
    (``[start] + y``, or ``y + [eos]``): what batching by token count counts."""
    tgt_lengths = [len(y) + 1 for y in corpus.tgt]
    if corpus.src is None:
        return [0] * len(tgt_lengths), tgt_lengths
    return [len(x) + 1 for x in corpus.src], tgt_lengths


class BatchStream:
    """The endless sequence of batches, epoch after epoch, from a saved position on."""

    def __init__(
        self, corpus: Corpus, max_tokens: int, *, seed: int, epoch: int = 0, index: int = 0
    ):
        self.src_lengths, self.tgt_lengths = corpus_lengths(corpus)
        self.max_tokens, self.seed = max_tokens, seed
        self.epoch, self.index = epoch, index
        self._batches = self._epoch_batches(epoch)

    def _epoch_batches(self, epoch: int) -> list[list[int]]:
        return make_batches(
            self.src_lengths, self.tgt_lengths, self.max_tokens, seed=self.seed, epoch=epoch
        )

    @property
    def batches_per_epoch(self) -> int:
        return len(self._batches)

    @property
    def position(self) -> dict[str, int]:
        """Where the next batch comes from: saved in checkpoints."""
        return {"epoch": self.epoch, "index": self.index}

    def padding_fraction(self) -> float:
        """The padding share of the current epoch's batches."""
        return padding_fraction(self._batches, self.src_lengths, self.tgt_lengths)

    def take(self, n: int) -> list[list[int]]:
        """The next n batches (crossing into the next epoch when this one runs out)."""
        out = []
        while len(out) < n:
            if self.index >= len(self._batches):
                self.epoch, self.index = self.epoch + 1, 0
                self._batches = self._epoch_batches(self.epoch)
            out.append(self._batches[self.index])
            self.index += 1
        return out


def batches_in_order(
    tokenizer: Tokenizer,
    config: ModelConfig,
    targets: Sequence[str],
    sources: Sequence[str] | None = None,
    batch_size: int = 32,
) -> list[Batch]:
    """Teacher-forcing batches of ``batch_size`` pairs of texts, in the order given, made as
    training makes them (``collate``); ``sources`` None for a language model. For measuring a
    trained model on data (``heedful.explain.heads``)."""
    encode = tokenizer.encode_batch
    corpus = Corpus(
        src=None if sources is None else encode(list(sources), add_eos=False),
        tgt=encode(list(targets), add_eos=False),
    )
    ids = dict(start_id=config.start_id, eos_id=config.eos_id, pad_id=config.pad_id)
    return [
        collate(corpus, list(range(lo, min(lo + batch_size, len(corpus)))), **ids)
        for lo in range(0, len(corpus), batch_size)
    ]
