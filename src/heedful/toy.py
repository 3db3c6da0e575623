"""Toy tasks that need no data: copy and reverse random sequences. They show in seconds that a
model learns (tests, `make demo` before a bundled model exists)."""

from __future__ import annotations

import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor

from heedful import masks
from heedful.config import ModelConfig
from heedful.decoding import DecodingOptions, generate
from heedful.model import Transformer
from heedful.tokenizer import BOS_ID, EOS_ID, PAD_ID

FIRST_SYMBOL = 3  # ids 0-2 are pad, bos, eos


@dataclass(frozen=True)
class ToyTask:
    kind: str = "reverse"  # or "copy"
    n_symbols: int = 10
    min_length: int = 4
    max_length: int = 10

    @property
    def vocab_size(self) -> int:
        return FIRST_SYMBOL + self.n_symbols

    def target_of(self, seq: list[int]) -> list[int]:
        return seq[::-1] if self.kind == "reverse" else list(seq)

    def sample(self, n: int, generator: torch.Generator) -> list[list[int]]:
        lengths = torch.randint(self.min_length, self.max_length + 1, (n,), generator=generator)
        return [
            (
                torch.randint(0, self.n_symbols, (int(k),), generator=generator) + FIRST_SYMBOL
            ).tolist()
            for k in lengths
        ]

    def batch(self, seqs: list[list[int]]) -> tuple[Tensor, Tensor, Tensor]:
        """-> src [B, S] (seq + eos), decoder input [B, T] (bos + target), labels [B, T]."""
        src = pad([s + [EOS_ID] for s in seqs])
        tgt_in = pad([[BOS_ID] + self.target_of(s) for s in seqs])
        labels = pad([self.target_of(s) + [EOS_ID] for s in seqs])
        return src, tgt_in, labels


def pad(rows: list[list[int]]) -> Tensor:
    return masks.pad(rows, PAD_ID)


def greedy_decode(model: Transformer, src: Tensor, max_new_tokens: int) -> list[list[int]]:
    """Greedy search (``heedful.decoding.generate``) of each row of ``src`` (padded [B, S]),
    without the end-of-sentence: the toy checks' decoder."""
    sources = [[t for t in row if t != PAD_ID] for row in src.tolist()]
    options = DecodingOptions(beam_size=1, max_length=max_new_tokens)
    found = generate(model.eval(), sources, options, banned=[])
    return [[t for t in h[0].tokens if t != EOS_ID] for h in found]


def train_toy(
    task: ToyTask,
    *,
    steps: int = 700,
    batch_size: int = 64,
    lr: float = 1e-3,
    warmup: int = 100,
    seed: int = 0,
    time_limit: float | None = None,
    log=None,
) -> Transformer:
    """Train the ``tiny`` preset on the task (Adam, warmup then inverse-sqrt decay)."""
    torch.manual_seed(seed)
    generator = torch.Generator().manual_seed(seed)
    model = Transformer(ModelConfig.tiny(task.vocab_size, dropout=0.0))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr, betas=(0.9, 0.98), eps=1e-9)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min((s + 1) / warmup, (warmup / (s + 1)) ** 0.5)
    )
    start = time.monotonic()
    model.train()
    for step in range(steps):
        src, tgt_in, labels = task.batch(task.sample(batch_size, generator))
        logits = model(src, tgt_in)
        loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten(), ignore_index=PAD_ID)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        if log and step % 100 == 0:
            log(f"step {step:4d}  loss {loss.item():.3f}")
        if time_limit is not None and time.monotonic() - start > time_limit:
            break
    return model.eval()


def token_accuracy(model: Transformer, task: ToyTask, n: int = 200, seed: int = 1) -> float:
    """Fraction of target tokens greedy decoding gets right (a wrong length counts as errors)."""
    seqs = task.sample(n, torch.Generator().manual_seed(seed))
    src, _, _ = task.batch(seqs)
    hyps = greedy_decode(model, src, max_new_tokens=task.max_length + 2)
    right = total = 0
    for seq, hyp in zip(seqs, hyps, strict=True):
        ref = task.target_of(seq)
        right += sum(a == b for a, b in zip(ref, hyp, strict=False))
        total += max(len(ref), len(hyp))
    return right / total
