"""Shared by tests/test_attention_views*.py: a tokenizer trained in seconds on a few hundred
Tatoeba lines, tiny random models, and their attention captured by forced decoding."""

from __future__ import annotations

import contextlib
import functools
import itertools
from pathlib import Path

import torch

from heedful.attended import Attended
from heedful.config import ModelConfig
from heedful.lm import DecoderOnlyLM
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer

TATOEBA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "tatoeba" / "spa-eng"
SOURCE = "El gato negro duerme en el jardín."
TARGET = "The black cat sleeps in the garden."


@functools.cache
def tokenizer() -> Tokenizer:
    with open(TATOEBA / "train.tsv", encoding="utf-8") as f:
        pairs = [line.rstrip("\n").split("\t") for line in itertools.islice(f, 0, 100_000, 250)]
    texts = [text for pair in pairs for text in pair] + [SOURCE, TARGET]
    return Tokenizer.train(texts, vocab_size=300)


def tiny_transformer(seed: int = 0, **overrides) -> Transformer:
    torch.manual_seed(seed)
    config = ModelConfig.tiny(tokenizer().vocab_size, dropout=0.0, **overrides)
    return Transformer(config).eval()


def tiny_lm(seed: int = 0) -> DecoderOnlyLM:
    torch.manual_seed(seed)
    return DecoderOnlyLM(ModelConfig.tiny(tokenizer().vocab_size, dropout=0.0)).eval()


@torch.no_grad()
def forced_attended(model: Transformer, source: str = SOURCE, target: str = TARGET) -> Attended:
    """Every weight of the model force-decoding ``target``, as Translator.attend returns them."""
    tok = tokenizer()
    src, tgt = tok.encode(source), tok.encode(target)
    read = [model.config.start_id] + tgt[:-1]
    out = model(torch.tensor([src]), torch.tensor([read]), return_attention=True)
    weights = out.attention
    return Attended(
        source=source,
        translation=target,
        source_pieces=tok.pieces(src),
        target_pieces=tok.pieces(tgt),
        encoder_self=weights.encoder_self[:, 0],
        decoder_self=weights.decoder_self[:, 0],
        cross=weights.cross[:, 0],
    )


@contextlib.contextmanager
def single_thread():
    """Tiny models run far faster on one thread, above all on a machine shared with others."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)
