"""Shared by tests/test_serve*.py and bench/serve_load.py: a real model directory made in seconds,
and `heedful serve` started in a process of its own.

A tokenizer trained on a few hundred Tatoeba lines and a ``tiny`` Transformer with random
weights: its translations are gibberish, but every step (tokenizer, beam search, attention) is
the real one. ``max_positions=32`` bounds how long a random model, which rarely ends a sentence,
goes on; an end-of-sentence bias makes some translations end sooner.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import subprocess
import sys
import time
import urllib.request
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


def make_model_dir(directory: str | Path, seed: int = 1, max_positions: int = 32) -> Path:
    """Save a tiny random es-en model to ``directory`` and return it."""
    texts = [text for pair in tatoeba_pairs() for text in pair] + [SOURCE]
    tokenizer = Tokenizer.train(texts, vocab_size=300)
    torch.manual_seed(seed)
    config = ModelConfig.tiny(
        tokenizer.vocab_size, dropout=0.0, output_bias=True, max_positions=max_positions
    )
    model = Transformer(config).eval()
    with torch.no_grad():
        model.generator.weight.mul_(3.0)  # sharper than the initialisation: fewer near-ties
        model.logits_bias[config.eos_id] = 2.0
    save_model_dir(directory, model, tokenizer, data={"src": "es", "tgt": "en"})
    return Path(directory)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def live_server(*arguments: str, log: Path, seconds: float = 120):
    """`heedful serve ARGUMENTS` in its own process on a free loopback port: yields its base URL
    (http://127.0.0.1:PORT) once /health answers, and stops it after."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with open(log, "w") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "heedful", "serve", *arguments, "--port", str(port)],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + seconds
            while True:
                try:
                    with urllib.request.urlopen(base + "/health", timeout=5):
                        break
                except OSError:
                    if process.poll() is not None or time.monotonic() > deadline:
                        message = "the server did not start: " + log.read_text()
                        raise AssertionError(message) from None
                    time.sleep(0.1)
            yield base
        finally:
            process.terminate()
            process.wait(timeout=30)


async def until(condition, seconds: float = 20.0) -> None:
    """Wait (polling every 10 ms) for ``condition()`` to hold; an AssertionError after
    ``seconds``."""
    for _ in range(int(seconds / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("condition not met in time")
