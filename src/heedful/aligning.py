"""The aligning heads' weights kept while decoding, so that word links need no second pass.

A translation's word links (``heedful.translation_links``) read the cross-attention of a few
heads in one decoder layer (the method a model directory records,
``heedful.explain.alignment_methods``). Continuous decoding (``heedful.continuous``,
``heedful.continuous_beam``) computes those heads' weights at every step anyway; asking
``decode_step`` for them (``aligning=(layer, heads)``) costs one small product beside the fast
path, where a teacher-forced pass over the finished translations costs a tenth of decoding.

Beam search reorders its rows at every step, so a row's weights are not kept with the row:
``Trails`` records each step's [rows, S] and, per row, the (step, row) it came from at every
step; a finished hypothesis gathers its own [T, S] from them (T: its tokens, end-of-sentence
included; row t is the step that read token t - 1, as the forced pass's row t). Steps no live
row comes from are forgotten.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

Trail = list[tuple[int, int]]  # (step, row) per token decoded so far


class Trails:
    """Each step's aligning weights, the mean over the heads, and where rows came from."""

    def __init__(self, layer: int, heads: Sequence[int]):
        self.aligning = (layer, list(heads))  # what decode_step is asked for
        self.steps: dict[int, Tensor] = {}  # step -> [rows, S]
        self.count = 0  # steps recorded

    def record(self, weights: Tensor) -> int:
        """A step's weights [rows, h, 1, S] (``StepOutput.attention.aligning``); its number."""
        self.steps[self.count] = weights[:, :, 0].float().mean(1)
        self.count += 1
        return self.count - 1

    def gather(self, trail: Trail, length: int) -> Tensor:
        """The [T, length] weights of the rows a hypothesis came through (``length``: its
        source's tokens; wider rows are another source's padding)."""
        return torch.stack([self.steps[step][row, :length] for step, row in trail])

    def forget_before(self, step: int) -> None:
        """Drop the steps before ``step``: no live row comes from them."""
        for old in [s for s in self.steps if s < step]:
            del self.steps[old]


def earliest(trails: Sequence[Trail], now: int) -> int:
    """The first step any of these trails comes from (``now`` if all are empty)."""
    return min((trail[0][0] for trail in trails if trail), default=now)
