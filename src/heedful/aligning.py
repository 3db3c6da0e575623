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

Where decoding did not keep them (batch by batch, or a translation given), ``forced_cross``
computes the same weights in one teacher-forced pass.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import Tensor, nn

from heedful.masks import pad
from heedful.search import StepRecord


class Trails(StepRecord):
    """Each step's aligning weights [rows, S] (the mean over the heads) and each row's parent;
    with ``second`` (layer, heads), a blended method's second reading's too."""

    def __init__(self, layer: int, heads: Sequence[int],
                 second: tuple[int, Sequence[int]] | None = None):  # fmt: skip
        super().__init__()
        self.layer_heads = (layer, list(heads))
        self.second = None if second is None else (second[0], list(second[1]))
        # what decode_step is asked for
        self.asked = [self.layer_heads] + ([self.second] if self.second is not None else [])

    def record(self, weights: list[Tensor]) -> int:
        """A step's weights [rows, h, 1, S] of each reading asked for
        (``StepOutput.attention.aligning``), kept as their means [rows, S]; its number."""
        return super().record([w[:, :, 0].float().mean(1) for w in weights])

    def gather(self, step: int, row: int, start: int, length: int, reading: int = 0) -> Tensor:
        """The [T, length] weights of a hypothesis that ``row`` ended at ``step``, back to the
        step ``start`` its sentence began (``length``: its source's tokens; wider rows are
        another source's padding); ``reading`` 1: the second reading's."""
        path = self.path(step, row, start)
        return torch.stack([self.steps[u][reading][r, :length] for u, r in path])

    def gathered(self, h, origin: tuple[int, int], start: int, length: int, *,
                 second: bool = True) -> None:  # fmt: skip
        """Give hypothesis ``h``, which row ``origin[1]`` ended at step ``origin[0]``, its
        ``attention``, and with ``second`` its ``second_attention`` (the hypotheses a beam
        search returns need it, not every one it ranks)."""
        if h.attention is None:
            h.attention = self.gather(*origin, start, length)
        if second and self.second is not None:
            h.second_attention = self.gather(*origin, start, length, reading=1)


@torch.inference_mode()
def forced_cross(
    model: nn.Module,
    pairs: list[tuple[list[int], list[int]]],
    layer: int,
    *,
    memories: list[Tensor] | None = None,
    batch_size: int = 128,
    full_context: bool = False,
) -> list[Tensor]:
    """Each pair's cross-attention [H, T, S] in decoder layer ``layer`` with its target forced,
    float32 on the CPU. A pair is (source ids ending with end-of-sentence, the tokens the
    decoder is to produce). One teacher-forced pass per batch of pairs, sorted by length and
    right-padded (the causal decoder and the source mask keep padding out of every real row),
    through the decoder's layers up to ``layer`` only; ``memories``: each pair's encoder output
    [S, d_model] where decoding computed it already, else the sources are encoded here.
    ``full_context``: the decoder's layers read the whole target (the ``full`` method's pass)."""
    config = model.config
    device = next(model.parameters()).device
    order = sorted(range(len(pairs)), key=lambda k: -len(pairs[k][0]) - len(pairs[k][1]))
    out: list[Tensor] = [torch.empty(0)] * len(pairs)
    for start in range(0, len(order), batch_size):
        batch = order[start : start + batch_size]
        src = pad([pairs[k][0] for k in batch], config.pad_id, device)
        if memories is None:
            memory = model.encode(src)
            states, mask = memory.states, memory.mask
        else:  # [B, S, d_model], padded with zeros the mask hides
            states = torch.nn.utils.rnn.pad_sequence([memories[k] for k in batch], True)
            mask = src != config.pad_id
        tgt_in = pad([[config.start_id, *pairs[k][1][:-1]] for k in batch], config.pad_id, device)
        read = dict(causal=False, self_mask=tgt_in != config.pad_id) if full_context else {}
        x = model.tgt_embed(tgt_in)
        for below in model.decoder.layers[:layer]:
            x = below(x, states, mask, **read).x
        cross = _cross_weights(model.decoder.layers[layer], x, states, mask, read).float().cpu()
        for row, k in enumerate(batch):
            source, target = pairs[k]
            out[k] = cross[row, :, : len(target), : len(source)]
    return out


def _cross_weights(layer: nn.Module, x: Tensor, memory: Tensor, memory_mask: Tensor,
                   read: dict) -> Tensor:  # fmt: skip
    """A DecoderLayer's cross-attention weights [B, H, T, S] for its input ``x``: its forward
    up to them (``heedful.layers.DecoderLayer``), without the feed-forward network after;
    ``read``: how its self-attention reads the target (``DecoderLayer.cross_query``)."""
    _, _, weights = layer.cross_attn(
        layer.cross_query(x, **read), memory, key_mask=memory_mask, need_weights=True
    )
    return weights
