"""Dropout (paper §5.4), with a faster mask on CPU: a training-speed trick of its own, kept out of
the layers that use it."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn


class Dropout(nn.Module):
    """Dropout (paper §5.4): in training, zero each element with probability p and scale the
    rest by 1 / (1 - p).

    On CPU the mask comes from 15 random bits per element, four elements to one 64-bit draw of
    torch's generator, so p is rounded to a multiple of 1/32,768 (0.1 -> 0.100006; the scale
    uses the rounded p). ``nn.Dropout``'s per-element Bernoulli draws took 10% of a small
    model's training update here (17 calls); this mask, forward and backward, is 3x faster, and
    the update 1.18x faster (2 CPU cores, bf16, Tatoeba batches). Elsewhere it is ``F.dropout``.
    """

    LEVELS = 1 << 15

    def __init__(self, p: float):  # 0 <= p < 1, as ModelConfig checks
        super().__init__()
        self.p = p
        # drop where the 15 bits are below this; p near 1 still keeps one level in 32,768
        self.threshold = min(round(p * self.LEVELS), self.LEVELS - 1)

    def forward(self, x: Tensor) -> Tensor:
        if not self.training or self.p == 0.0:
            return x
        if x.device.type != "cpu":
            return F.dropout(x, self.p, training=True)
        n = x.numel()
        draws = torch.empty((n + 3) // 4, dtype=torch.int64).random_()  # 63 random bits each
        bits = draws.view(torch.int16)[:n].view(x.shape).bitwise_and_(self.LEVELS - 1)
        keep = (bits >= self.threshold).to(x.dtype)
        return x * keep.mul_(self.LEVELS / (self.LEVELS - self.threshold))

    def extra_repr(self) -> str:
        return f"p={self.p}"
