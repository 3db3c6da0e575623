"""From raw pairs to token ids: normalise, drop (and count) what cannot be trained on, encode.

    raw pairs --normalize--> drop empty pairs --(train BPE)--> encode --> drop over-long pairs

The normalisation is ``heedful.tokenizer.normalize``, the one the Translator applies too, and
its name is recorded in the model directory. Every dropped pair is counted and said aloud.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from heedful.data.readers import ParallelText
from heedful.tokenizer import Tokenizer, normalize


@dataclass
class FilterCounts:
    """How many pairs a split had, and why some were dropped."""

    read: int
    empty: int = 0
    too_long: int = 0
    max_tokens: int = 0  # the limit ``too_long`` refers to

    @property
    def kept(self) -> int:
        return self.read - self.empty - self.too_long

    def describe(self, name: str) -> str:
        """E.g. "train: read 114,089 pairs; dropped 12 pairs longer than 256 tokens; kept ..."."""
        parts = [f"{name}: read {self.read:,} pairs"]
        if self.empty:
            parts.append(f"dropped {self.empty:,} pairs with an empty side")
        if self.too_long:
            parts.append(f"dropped {self.too_long:,} pairs longer than {self.max_tokens} tokens")
        parts.append(f"kept {self.kept:,}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, int]:
        return {**asdict(self), "kept": self.kept}


@dataclass
class Corpus:
    """Token ids of each pair, without EOS (the batcher adds it).

    A language model's text is a corpus without a source side (``src`` None): the decoder alone
    reads ``[start] + tgt`` and learns to predict ``tgt + [eos]``.
    """

    src: list[list[int]] | None = field(default_factory=list)
    tgt: list[list[int]] = field(default_factory=list)
    kept: list[int] = field(default_factory=list)  # which pairs (or lines) of the text they are
    # guided alignment: per pair, (source piece, target piece) links, both from 0; or None
    align: list[list[tuple[int, int]]] | None = None

    def __len__(self) -> int:
        return len(self.tgt)


def normalize_pairs(text: ParallelText) -> tuple[ParallelText, FilterCounts]:
    """Normalise both sides (NFKC, one kind of space) and drop pairs with an empty side."""
    counts = FilterCounts(read=len(text))
    sources, targets = [], []
    for s, t in zip(text.sources, text.targets, strict=True):
        s, t = normalize(s), normalize(t)
        if not s or not t:
            counts.empty += 1
            continue
        sources.append(s)
        targets.append(t)
    return ParallelText(sources, targets, text.origin), counts


def train_tokenizer(
    text: ParallelText, vocab_size: int, *, split_digits: bool = False
) -> Tokenizer:
    """One joint BPE vocabulary over both sides of the (normalised) training split."""
    return Tokenizer.train(text.sources + text.targets, vocab_size, split_digits=split_digits)


def encode_pairs(
    text: ParallelText, tokenizer: Tokenizer, max_tokens: int, counts: FilterCounts
) -> Corpus:
    """Encode normalised pairs; pairs with more than ``max_tokens`` subwords on either side (EOS
    not counted) are dropped and counted in ``counts``."""
    counts.max_tokens = max_tokens
    src_ids = tokenizer.encode_batch(text.sources, add_eos=False)
    tgt_ids = tokenizer.encode_batch(text.targets, add_eos=False)
    corpus = Corpus()
    for i, (s, t) in enumerate(zip(src_ids, tgt_ids, strict=True)):
        if len(s) > max_tokens or len(t) > max_tokens:
            counts.too_long += 1
            continue
        corpus.src.append(s)
        corpus.tgt.append(t)
        corpus.kept.append(i)
    return corpus
