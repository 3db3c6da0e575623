"""A language model's data (``task: lm``): text in, token ids out, with every drop counted.

    files (a .tsv file: its ``column``) -> normalise, drop empty lines
    -> drop repeated lines, and training lines that are also dev lines (case and punctuation
       folded): Tatoeba repeats an English sentence once per translation, and its spa-eng and
       fra-eng splits were made apart, so one's dev sentence may be the other's train sentence
    -> ``train_lines`` / ``dev_lines``: a seeded random sample (the files are sorted by length,
       so the first N lines would be the shortest)
    -> BPE on the training lines -> encode, drop lines longer than ``max_tokens``

The result is a ``RunData`` whose corpora have no source side: the decoder reads ``[bos] + y`` and
learns to predict ``y + [eos]``, as ``heedful.explain.capture.attend_lm`` shows it. The unigram
perplexity of the dev tokens, a baseline any language model should beat, is said aloud and kept
in the model directory's config.json.
"""

from __future__ import annotations

import contextlib
import math
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from heedful.data import Corpus, DataError, read_text
from heedful.tokenizer import EOS_ID, NORMALIZATION, Tokenizer, normalize
from heedful.training.config import TextDataConfig
from heedful.training.distributed import Distributed
from heedful.training.evaluation import dev_loss
from heedful.training.prepare import RunData, data_settings, shared_tokenizer

SAMPLE_SEED = 0  # train_lines / dev_lines draw the same lines in every run


@dataclass
class TextCounts:
    """How many lines a split had, and why some were dropped."""

    read: int = 0
    empty: int = 0
    repeated: int = 0
    in_dev: int = 0  # training lines that are also dev lines
    not_sampled: int = 0
    too_long: int = 0
    max_tokens: int = 0

    @property
    def kept(self) -> int:
        dropped = self.empty + self.repeated + self.in_dev + self.not_sampled + self.too_long
        return self.read - dropped

    def describe(self, name: str) -> str:
        """E.g. "train: read 274,597 lines; dropped 98,012 repeated lines; ...; kept 150,000"."""
        reasons = {"empty": "empty lines", "repeated": "repeated lines",
                   "in_dev": "lines that are also dev lines", "not_sampled": "lines not sampled",
                   "too_long": f"lines longer than {self.max_tokens} tokens"}  # fmt: skip
        parts = [f"{name}: read {self.read:,} lines"]
        parts += [f"dropped {getattr(self, k):,} {text}" for k, text in reasons.items()
                  if getattr(self, k)]  # fmt: skip
        parts.append(f"kept {self.kept:,}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, int]:
        return {**asdict(self), "kept": self.kept}


def fold(text: str) -> str:
    """What makes two lines the same sentence: case and punctuation folded."""
    return re.sub(r"[\W_]+", " ", text.casefold()).strip()


def read_lines_of(root: str | Path, names: Iterable[str], column: int | None) -> list[str]:
    """The raw lines of every file (of a .tsv file, its ``column``), one file after another."""
    lines = []
    for name in names:
        path = Path(root) / name
        if path.name.endswith((".tsv", ".tsv.gz")):
            if column is None:
                raise DataError(f"{path}: a TSV file needs data.column (from 0; Tatoeba: 0 is en)")
            lines += read_text(path, column)
        else:
            lines += read_text(path)
    return lines


def clean(
    lines: list[str],
    *,
    exclude: set[str] = frozenset(),
    sample: int | None = None,
) -> tuple[list[str], TextCounts]:
    """Normalise; drop empty and repeated lines, lines whose folded form is in ``exclude``, and
    all but a seeded random ``sample`` of the rest (kept in file order)."""
    counts = TextCounts(read=len(lines))
    seen: set[str] = set()
    kept = []
    for line in lines:
        text = normalize(line)
        key = fold(text)
        if not text:
            counts.empty += 1
        elif text in seen:
            counts.repeated += 1
        elif key in exclude:
            counts.in_dev += 1
        else:
            kept.append(text)
        seen.add(text)
    if sample is not None and sample < len(kept):
        chosen = sorted(random.Random(SAMPLE_SEED).sample(range(len(kept)), sample))
        counts.not_sampled = len(kept) - sample
        kept = [kept[i] for i in chosen]
    return kept, counts


def encode_texts(
    texts: list[str], tokenizer: Tokenizer, max_tokens: int, counts: TextCounts
) -> Corpus:
    """Encode normalised lines into a corpus without a source side; lines of more than
    ``max_tokens`` subwords (EOS not counted) are dropped and counted."""
    counts.max_tokens = max_tokens
    corpus = Corpus(src=None)
    for i, ids in enumerate(tokenizer.encode_batch(texts, add_eos=False)):
        if len(ids) > max_tokens:
            counts.too_long += 1
            continue
        corpus.tgt.append(ids)
        corpus.kept.append(i)
    return corpus


def unigram_perplexity(train: Corpus, dev: Corpus, vocab_size: int, eos_id: int = EOS_ID) -> float:
    """Per-token perplexity of dev's ``y + [eos]`` under unigram frequencies counted on train's
    ``y + [eos]``, add-one smoothed over the vocabulary: p(w) = (c(w) + 1) / (N + V)."""
    counts = Counter(token for y in train.tgt for token in y)
    counts[eos_id] += len(train.tgt)
    total = sum(counts.values()) + vocab_size
    tokens = [token for y in dev.tgt for token in (*y, eos_id)]
    nll = -sum(math.log((counts[token] + 1) / total) for token in tokens)
    return math.exp(nll / max(len(tokens), 1))


def prepare_text(
    config: TextDataConfig,
    out: Path,
    *,
    dist: Distributed,
    say: Callable[[str], None],
    tokenizer: Tokenizer | None = None,
) -> RunData:
    """Read, clean, tokenise and filter both splits. Without ``tokenizer``, rank 0 trains the BPE
    model on the training lines and writes it to ``out``; the other ranks read it there."""
    for name in ("train", "dev"):
        if not getattr(config, name):
            raise DataError(f"the config needs data.{name} (one or more files)")
    dev_text, dev_counts = clean(
        read_lines_of(config.root, config.dev, config.column), sample=config.dev_lines
    )
    train_text, train_counts = clean(
        read_lines_of(config.root, config.train, config.column),
        exclude={fold(t) for t in dev_text},
        sample=config.train_lines,
    )
    for lines, split in ((train_text, "train"), (dev_text, "dev")):
        if not lines:
            files = ", ".join(str(Path(config.root) / f) for f in getattr(config, split))
            raise DataError(f"{files}: no text to {split} on (data.{split})")
    if tokenizer is None:
        tokenizer = shared_tokenizer(
            lambda: Tokenizer.train(train_text, config.vocab_size), out, dist, say,
            f"training a BPE vocabulary of {config.vocab_size:,} on the train split",
            vocab_size=config.vocab_size,
        )  # fmt: skip
    train = encode_texts(train_text, tokenizer, config.max_tokens, train_counts)
    dev = encode_texts(dev_text, tokenizer, config.max_tokens, dev_counts)
    say(train_counts.describe("train"))
    say(dev_counts.describe("dev"))
    if not len(train) or not len(dev):
        raise DataError("no lines left to train or validate on after filtering")
    unigram = unigram_perplexity(train, dev, tokenizer.vocab_size)
    say(f"dev perplexity of a unigram model (train counts, add-one): {unigram:.1f} per token")
    meta = {
        **data_settings(config),
        "normalization": NORMALIZATION,
        "vocab_size": tokenizer.vocab_size,
        "counts": {"train": train_counts.to_dict(), "dev": dev_counts.to_dict()},
        "unigram_dev_ppl": unigram,
    }
    dev_lines = [dev_text[i] for i in dev.kept]  # the text is the target side: no sources
    return RunData(tokenizer, train, dev, dev_sources=[], dev_references=dev_lines, meta=meta)


@torch.no_grad()
def text_perplexity(
    model: nn.Module,
    tokenizer: Tokenizer,
    lines: list[str],
    *,
    batch_tokens: int = 4096,
    device: torch.device | str = "cpu",
) -> dict[str, Any]:
    """A language model's per-token perplexity on ``lines`` (each read as ``[bos] + y``, scored
    on ``y + [eos]``, the end-of-sentence token included). Empty lines, and lines longer than the
    model's positions, are skipped and counted."""
    texts = [normalize(line) for line in lines]
    counts = TextCounts(read=len(texts), empty=texts.count(""))
    corpus = encode_texts([t for t in texts if t], tokenizer, model.config.max_positions - 1,
                          counts)  # fmt: skip
    if not len(corpus):
        raise ValueError("no line to evaluate on: every line is empty or too long")
    scores = dev_loss(
        model, corpus, batch_tokens=batch_tokens, epsilon=0.0,
        autocast=contextlib.nullcontext(), device=torch.device(device),
    )  # fmt: skip
    return {"ppl": scores["ppl"], "nll": scores["nll"], "lines": len(corpus),
            "tokens": sum(len(y) + 1 for y in corpus.tgt), "counts": counts.to_dict()}  # fmt: skip
