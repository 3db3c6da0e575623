"""Attention for a decoding step: the new queries of one step over the keys and values kept so
far (``heedful.kv_cache``), softmax(Q Kᵀ / sqrt(d_k)) V as ``heedful.attention`` writes it.

A step feeds one new token per row, and its attention is a few thousand multiply-adds, fewer
than PyTorch's fixed cost per operator call is worth. So a step without weights, silenced heads
or a window (``MultiHeadAttention.forward`` asks ``attend``) takes one of these:

- ``heedful.native``'s C kernel: the whole step in one call (float32 on the CPU, when built);
- a beam cache: a sentence's K beams attend together over its t·K slots, each to its own
  history's t, with one additive mask made once per step (``_beam_attention``);
- two batched products (``few_query_attention``), with the queries of rows that share one
  memory's keys (a sentence's beams, in cross-attention) side by side.

Everything else, and a step that asks for the weights, takes ``heedful.attention``'s general
path, which reads a decoding cache through ``grouped`` and ``ungrouped``.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from heedful import native
from heedful.kv_cache import BeamKeyValue, KeyValue
from heedful.masks import combine

# Inference with at most this many queries per head (decoding steps) uses two batched products.
FEW_QUERIES = 8


def attend(q: Tensor, kv: KeyValue | BeamKeyValue, key_mask: Tensor | None) -> Tensor | None:
    """A decoding step's attention with the heads merged, [B, 1, H·d_k] (ready for W^O), or None
    when this is no step taken here (the general path computes it instead).

    q: [B, H, 1, d_k], one new query per row. kv: the keys and values [B/g, H, S, d_k] of rows
    that come in groups of g sharing them, or a beam cache. key_mask: [B/g, S], True = real key.
    """
    b, _, t, _ = q.shape
    if t == 1 and native.handles(q):
        return native.decoding_attention(q, kv, key_mask).view(b, 1, -1)
    if isinstance(kv, BeamKeyValue):
        if key_mask is not None:  # sources that began at different steps: for the kernel only
            return None
        out = _beam_attention(q, kv)
    elif t == 1 and b // kv.k.shape[0] <= FEW_QUERIES and not q.requires_grad:
        q, kv = grouped(q, kv, key_mask)
        out = few_query_attention(q, kv.k, kv.v, combine(key_mask, None))
    else:
        return None
    n, h, group, d = out.shape  # [B/g, H, g, d_k] -> [B, 1, H·d_k]
    return out.transpose(1, 2).reshape(n * group, 1, h * d)


def attend_weighing(
    q: Tensor, kv: KeyValue | BeamKeyValue, key_mask: Tensor | None, heads: list[int]
) -> tuple[Tensor, Tensor] | None:
    """``attend`` and ``head_weights`` from one pass of ``heedful.native``'s kernel, which
    computes every head's weights anyway: a step's output [B, 1, H·d_k] and the weights of
    ``heads`` [B, len(heads), 1, S]; None where the kernel does not take the step (then
    ``head_weights`` computes them beside ``attend``)."""
    b, h, t, _ = q.shape
    if t != 1 or isinstance(kv, BeamKeyValue) or not native.handles(q):
        return None
    weights = q.new_empty(b, h, kv.length)
    out = native.decoding_attention(q, kv, key_mask, weights).view(b, 1, -1)
    return out, weights[:, _indexing(heads), None]


def few_query_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
    """A few queries per head (incremental decoding: one, or one per beam) as two batched
    products. At this size the CPU flash kernel's fixed cost dominates: this made beam search
    4-20% faster (bench/decode.py). q: [B, H, T, d_k]; k, v: [B, H, S, d_k]; mask broadcastable
    to [B, H, T, S]. Returns [B, H, T, d_k]."""
    b, h, t, d = q.shape
    n_keys = k.shape[-2]
    scores = torch.bmm(q.reshape(b * h, t, d), k.reshape(b * h, n_keys, d).transpose(1, 2))
    scores = scores.view(b, h, t, n_keys).mul_(1 / math.sqrt(d))  # [B, H, T, S]
    if mask is not None:
        scores.masked_fill_(~mask, float("-inf"))
    weights = scores.softmax(dim=-1).view(b * h, t, n_keys)
    return torch.bmm(weights, v.reshape(b * h, n_keys, d)).view(b, h, t, d)


def _beam_attention(q: Tensor, kv: BeamKeyValue) -> Tensor:
    """One new query per beam [n·K, H, 1, d_k] over a beam cache -> [n, H, K, d_k]. A sentence's
    K beams attend together over its t·K slots, each to its own history's t: the mask rides in
    as an additive bias (0 or -inf) of the scores' product, made once per step."""
    n, h, slots, d = kv.k.shape
    K = kv.history.beams
    grouped_q = q.view(n, K, h, d).transpose(1, 2).reshape(n * h, K, d)
    keys = kv.k.reshape(n * h, slots, d).transpose(1, 2)
    scores = torch.baddbmm(kv.history.bias(h, q.dtype), grouped_q, keys, alpha=1 / math.sqrt(d))
    out = torch.bmm(scores.softmax(dim=-1), kv.v.reshape(n * h, slots, d))  # [n·H, K, d_k]
    return out.view(n, h, K, d)


def head_weights(q: Tensor, kv: KeyValue, key_mask: Tensor | None, heads: list[int]) -> Tensor:
    """Some heads' cross-attention weights [B, len(heads), T, S], softmax(Q Kᵀ / sqrt(d_k)) of
    those heads only, beside a step whose output took a path without weights (the aligning
    heads of word links, heedful.aligning). q: [B, H, T, d_k]; kv: [B/g, H, S, d_k] shared by
    groups of g rows; key_mask: [B/g, S], True = real key."""
    chosen = _indexing(heads)
    k = kv.k[:, chosen]  # [B/g, h, S, d_k]
    grouped_q, _ = grouped(q[:, chosen], KeyValue(k, k), key_mask)  # [B/g, h, g·T, d_k]
    scores = torch.matmul(grouped_q, k.transpose(-1, -2)).mul_(1 / math.sqrt(q.shape[-1]))
    if key_mask is not None:
        scores.masked_fill_(~key_mask[:, None, None, :], float("-inf"))
    return ungrouped(scores.softmax(dim=-1), q.shape[0])


def _indexing(heads: list[int]) -> slice | list[int]:
    """``heads`` as an index of the heads' dimension: a slice where they run in order (a view,
    not a copy of the cache or the weights), else the list."""
    if heads == list(range(heads[0], heads[-1] + 1)):
        return slice(heads[0], heads[-1] + 1)
    return heads


def grouped(
    q: Tensor, kv: KeyValue | BeamKeyValue, key_mask: Tensor | None
) -> tuple[Tensor, KeyValue]:
    """A decoding cache as the general path reads it: a beam cache as one row per beam (a copy),
    and the queries of the g rows that share one memory's keys (a sentence's beams) side by side:
    q [B, H, T, d_k] -> [B/g, H, g·T, d_k]. Anything else is returned as it is."""
    if isinstance(kv, BeamKeyValue):
        if key_mask is not None:  # sources that began at different steps (the C kernel's)
            raise NotImplementedError("a masked beam cache is read by heedful.native only")
        kv = kv.per_row()
    group = q.shape[0] // kv.k.shape[0]
    if group > 1:
        q = q.unflatten(0, (-1, group)).transpose(1, 2).flatten(2, 3)
    return q, kv


def ungrouped(x: Tensor | None, rows: int) -> Tensor | None:
    """``grouped``'s rows back: [B/g, H, g·T, *] -> [B, H, T, *] for B = ``rows``."""
    if x is None or x.shape[0] == rows:
        return x
    return x.unflatten(2, (rows // x.shape[0], -1)).transpose(1, 2).flatten(0, 1)
