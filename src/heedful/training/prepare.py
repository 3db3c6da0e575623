"""A run's data: read both splits, normalise, train (or load) the BPE model, encode, filter.

Every dropped pair is counted and said aloud; the settings and counts become the ``data`` section
of the model directory's config.json.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from heedful.checkpoint import TOKENIZER_FILE
from heedful.data import Corpus, DataError, encode_pairs, normalize_pairs, read_split
from heedful.data.augment import Augmentation, augment
from heedful.data.corpus import train_tokenizer
from heedful.explain.linked_words import LinkedWords
from heedful.lexicon import Lexicon
from heedful.tokenizer import NORMALIZATION, Tokenizer
from heedful.training.config import DataConfig
from heedful.training.distributed import Distributed, barrier


@dataclass
class RunData:
    tokenizer: Tokenizer
    train: Corpus
    dev: Corpus
    dev_sources: list[str]  # normalised text of the dev pairs in ``dev``, for BLEU
    dev_references: list[str]
    meta: dict[str, Any]  # config.json's "data" section
    lexicon: Lexicon | None = None  # the training sources' words (before augmentation)
    linked_words: LinkedWords | None = None  # the words the alignment links join (align runs)


def prepare_data(
    config: DataConfig,
    out: Path,
    *,
    dist: Distributed,
    say: Callable[[str], None],
    tokenizer: Tokenizer | None = None,
    augmentation: Augmentation | None = None,
    seed: int = 1,
    align: bool = False,
) -> RunData:
    """Read, normalise, tokenise and filter both splits. Without ``tokenizer``, rank 0 trains the
    BPE model on the training split and writes it to ``out``; the other ranks read it there.

    ``augmentation``: training pairs to add (``heedful.data.augment``, drawn with ``seed``);
    ``align``: eflomal's links of every training pair, as piece links (``corpus.align``)."""
    for name in ("train", "dev", "src", "tgt"):
        if not getattr(config, name):
            raise DataError(f"the config needs data.{name}")
    train_text, train_counts = normalize_pairs(
        read_split(config.root, config.train, config.src, config.tgt, config.columns).head(
            config.train_pairs
        )
    )
    dev_text, dev_counts = normalize_pairs(
        read_split(config.root, config.dev, config.src, config.tgt, config.columns).head(
            config.dev_pairs
        )
    )
    for text, split in ((train_text, "train"), (dev_text, "dev")):
        if not len(text):
            raise DataError(f"{text.origin}: no sentence pairs to {split} on (data.{split})")
    lexicon = Lexicon.count(train_text.sources)
    added = {}
    if augmentation is not None and augmentation.any():
        train_text, added = augment(
            train_text, augmentation, src=config.src, tgt=config.tgt, seed=seed
        )
        train_counts.read += sum(added.values())
        say("augmentation added " + ", ".join(f"{n:,} {k}" for k, n in added.items()) + " pairs")
    if tokenizer is None:
        tokenizer = shared_tokenizer(
            lambda: train_tokenizer(
                train_text, config.vocab_size, split_digits=config.split_digits
            ), out, dist, say,
            f"training a joint BPE vocabulary of {config.vocab_size:,} on the train split",
            vocab_size=config.vocab_size,
        )  # fmt: skip
    train = encode_pairs(train_text, tokenizer, config.max_tokens, train_counts)
    linked_words = None
    if align:
        from heedful.training.alignment import count_linked_words, pair_piece_links, word_links

        links = word_links(train_text, out, say) if dist.is_main else None
        barrier(dist)
        if links is None:
            links = word_links(train_text, out, say)  # rank 0 wrote them: read
        train.align = [
            pair_piece_links(train_text.sources[i], train_text.targets[i], links[i], tokenizer)
            for i in train.kept
        ]
        linked_words = count_linked_words(train_text, links)
    dev = encode_pairs(dev_text, tokenizer, config.max_tokens, dev_counts)
    say(train_counts.describe("train"))
    say(dev_counts.describe("dev"))
    if not len(train) or not len(dev):
        raise DataError("no pairs left to train or validate on after filtering")
    meta = {
        **data_settings(config),
        "normalization": NORMALIZATION,
        "vocab_size": tokenizer.vocab_size,
        "counts": {"train": train_counts.to_dict(), "dev": dev_counts.to_dict()},
        **({"augmented": added} if added else {}),
    }
    return RunData(
        tokenizer,
        train,
        dev,
        dev_sources=[dev_text.sources[i] for i in dev.kept],
        dev_references=[dev_text.targets[i] for i in dev.kept],
        meta=meta,
        lexicon=lexicon,
        linked_words=linked_words,
    )


def data_settings(config: DataConfig | Any) -> dict[str, Any]:
    """The data section's settings as a model directory records them: the splits' names, not
    where this machine keeps the corpora (``root``, an absolute path)."""
    return {k: v for k, v in asdict(config).items() if k != "root"}


def shared_tokenizer(
    train: Callable[[], Tokenizer],
    out: Path,
    dist: Distributed,
    say: Callable[[str], None],
    message: str,
    *,
    vocab_size: int | None = None,
) -> Tokenizer:
    """Rank 0 trains the BPE model and writes it to ``out``; every rank then reads that file, so
    all processes of a distributed run tokenise with the same model. ``vocab_size``: the size
    asked for; sentencepiece makes fewer pieces when the text holds fewer, and that is said."""
    if dist.is_main:
        say(message)
        tokenizer = train()
        if vocab_size is not None and tokenizer.vocab_size < vocab_size:
            warnings.warn(
                f"data.vocab_size is {vocab_size:,}, but the train split yields only "
                f"{tokenizer.vocab_size:,} pieces: the vocabulary has {tokenizer.vocab_size:,} "
                f"(set data.vocab_size={tokenizer.vocab_size} to silence this)",
                stacklevel=2,
            )
        tokenizer.save(out / TOKENIZER_FILE)
    barrier(dist)
    return Tokenizer.load(out / TOKENIZER_FILE)
