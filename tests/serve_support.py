"""Shared by tests/test_serve*.py and bench/serve_load.py: a real model directory made in seconds.

A tokenizer trained on a few hundred Tatoeba lines and a ``tiny`` Transformer with random
weights: its translations are gibberish, but every step (tokenizer, beam search, attention) is
the real one. ``max_positions=32`` bounds how long a random model, which rarely ends a sentence,
goes on; an end-of-sentence bias makes some translations end sooner.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import torch

from heedful.checkpoint import save_model_dir
from heedful.config import ModelConfig
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer

TATOEBA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "tatoeba" / "spa-eng"
SOURCE = "El gato negro duerme en el jardín."


def tatoeba_pairs(step: int = 250) -> list[tuple[str, str]]:
    """Every ``step``-th (English, Spanish) pair of Tatoeba's training set (400 pairs)."""
    with open(TATOEBA / "train.tsv", encoding="utf-8") as f:
        lines = itertools.islice(f, 0, 100_000, step)
        return [tuple(line.rstrip("\n").split("\t")[:2]) for line in lines]


def make_model_dir(directory: str | Path, seed: int = 1) -> Path:
    """Save a tiny random es-en model to ``directory`` and return it."""
    texts = [text for pair in tatoeba_pairs() for text in pair] + [SOURCE]
    tokenizer = Tokenizer.train(texts, vocab_size=300)
    torch.manual_seed(seed)
    config = ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0, output_bias=True, max_positions=32)
    model = Transformer(config).eval()
    with torch.no_grad():
        model.generator.weight.mul_(3.0)  # sharper than the initialisation: fewer near-ties
        model.logits_bias[config.eos_id] = 2.0
    save_model_dir(directory, model, tokenizer, data={"src": "es", "tgt": "en"})
    return Path(directory)
