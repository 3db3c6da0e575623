"""The aligning heads' weights kept while decoding, so that word links need no second pass.

A translation's word links (``heedful.translation_links``) read the cross-attention of a few
heads in one decoder layer (the method a model directory records,
``heedful.explain.alignment_methods``). Continuous decoding (``heedful.continuous``,
``heedful.continuous_beam``) computes those heads' weights at every step anyway; asking
``decode_step`` for them (``aligning=(layer, heads)``) costs one small product beside the fast
path, where a teacher-forced pass over the finished translations costs a tenth of decoding.

Beam search reorders its rows at every step, so a row's weights are not kept with the row:
``Trails`` records each step's [rows, S] and which row of the step before each row continues
(``heedful.search.StepRecord``, as traces are kept); a finished hypothesis gathers its own
[T, S] rows by walking back from the row that ended it to the step its sentence began (T: its
tokens, end-of-sentence included; row t is the step that read token t - 1, as the forced pass's
row t). Steps no live sentence began before are forgotten. One list of ints a step, not a trail
per row: the garbage collector's full passes over a process's objects cost more than the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor

from heedful.search import StepRecord


class Trails(StepRecord):
    """Each step's aligning weights [rows, S] (the mean over the heads) and each row's parent."""

    def __init__(self, layer: int, heads: Sequence[int]):
        super().__init__()
        self.layer_heads = (layer, list(heads))  # what decode_step is asked for

    def record(self, weights: Tensor) -> int:
        """A step's weights [rows, h, 1, S] (``StepOutput.attention.aligning``); its number."""
        return super().record(weights[:, :, 0].float().mean(1))

    def gather(self, step: int, row: int, start: int, length: int) -> Tensor:
        """The [T, length] weights of a hypothesis that ``row`` ended at ``step``, back to the
        step ``start`` its sentence began (``length``: its source's tokens; wider rows are
        another source's padding)."""
        return torch.stack([self.steps[u][r, :length] for u, r in self.path(step, row, start)])
