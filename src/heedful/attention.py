"""Scaled dot-product attention and multi-head attention (paper §3.2).

    Attention(Q, K, V) = softmax(Q Kᵀ / sqrt(d_k)) V

Three ways to compute the same numbers, chosen per call:

- the fast path, ``F.scaled_dot_product_attention`` (a flash kernel on CPU: memory linear in
  length), taken whenever the caller does not ask for the weights;
- the weights path, the formula written out, taken when the caller asks for the weights (they
  are returned, never stored on the module);
- restricted self-attention (paper §4, a window of r neighbours) computed in blocks, so
  that memory grows as O(n·r) instead of O(n²).

The fast path uses the plain formula where it measured faster: short sequences (in training, the
CPU flash kernel's backward pass is slow: see bench/attention.py; in inference, its fixed cost
dominates), and a few queries per head as two batched products. A decoding step (one new query
per row over a cache) has paths of its own, the native kernel among them:
``heedful.decoding_attention``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils import skip_init

from heedful import decoding_attention
from heedful.decoding_attention import FEW_QUERIES, few_query_attention
from heedful.kv_cache import BeamKeyValue, KeyValue
from heedful.masks import allowed_positions, combine

# Training (autograd on) with at most this many query x key pairs per head uses the plain formula:
# on 2 CPU cores its backward pass beat the flash kernel's below this size (bench/attention.py).
PLAIN_BACKWARD_MAX_PAIRS = 96 * 96
# Inference with at most this many query x key pairs per head (short sentences, as the encoder
# sees them) uses the plain formula: 1.1-1.9x faster than the flash kernel up to 48 x 48 on 2 CPU
# cores, mixed at 64 x 64 (32 sentences, 4 heads of 64).
PLAIN_INFERENCE_MAX_PAIRS = 48 * 48


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    key_mask: Tensor | None = None,
    *,
    causal: bool = False,
    window: int | None = None,
    need_weights: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """softmax(Q Kᵀ / sqrt(d_k)) V over the keys each query may see.

    q: [B, H, T, d_k]; k, v: [B, H, S, d_k]; key_mask: [B, S], True = real key.
    Queries are the last T positions of the S keys (T < S when earlier keys come from a cache).
    Returns the output [B, H, T, d_k] and, if ``need_weights``, the weights [B, H, T, S].
    """
    n_queries, n_keys = q.shape[-2], k.shape[-2]
    offset = n_keys - n_queries
    if need_weights:
        positions = allowed_positions(
            n_queries, n_keys, causal=causal, window=window, offset=offset, device=q.device
        )
        self_offset = offset if window is not None else None
        return _attention_with_weights(
            q, k, v, combine(key_mask, positions, self_offset=self_offset)
        )
    if window is not None and window + 1 < n_keys:
        return _windowed_attention(q, k, v, key_mask, causal=causal, window=window), None
    if causal and n_queries == 1:
        causal = False  # one new query at the end sees every key
    if n_queries <= FEW_QUERIES and not causal and not q.requires_grad:
        return few_query_attention(q, k, v, combine(key_mask, None)), None
    plain_max = PLAIN_BACKWARD_MAX_PAIRS if q.requires_grad else PLAIN_INFERENCE_MAX_PAIRS
    if n_queries * n_keys <= plain_max:
        positions = allowed_positions(
            n_queries, n_keys, causal=causal, offset=offset, device=q.device
        )
        out, _ = _attention_with_weights(q, k, v, combine(key_mask, positions))
        return out, None
    if causal and (offset or key_mask is not None):
        # SDPA's is_causal aligns the top-left corners and excludes a mask: spell it out.
        positions = allowed_positions(
            n_queries, n_keys, causal=True, offset=offset, device=q.device
        )
        mask, causal = combine(key_mask, positions), False
    else:
        mask = combine(key_mask, None)
    return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=causal), None


def _attention_with_weights(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # [B, H, T, S]
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)  # masked keys get exactly 0
    return weights @ v, weights


def _windowed_attention(q, k, v, key_mask, *, causal: bool, window: int) -> Tensor:
    """Restricted self-attention by blocks of queries: O(n·r) memory, one kernel call.

    A block of b queries [s, s + b) sees only the keys [s - r, s + b) ([s - r, s + b + r) when
    not causal). Those key spans are laid side by side (``unfold``) and every block becomes one
    batch entry of a single SDPA call: b x (b + r) scores per block instead of b x n.
    """
    n_queries, n_keys = q.shape[-2], k.shape[-2]
    shift = min(n_keys - n_queries, window)  # cached keys before the first query that it sees
    first = n_keys - n_queries - shift
    k, v = k[:, :, first:], v[:, :, first:]
    key_mask = None if key_mask is None else key_mask[:, first:]
    q = F.pad(q, (0, 0, shift, 0))  # rows for those keys too (dropped at the end)
    batch, heads, n, d = q.shape
    block = max(window, 64)
    n_blocks = -(-n // block)
    span = block + window if causal else block + 2 * window
    after = n_blocks * block - n + (0 if causal else window)

    def blocks(x: Tensor, size: int, before: int, end: int) -> Tensor:  # -> [B·blocks, H, size, d]
        x = F.pad(x, (0, 0, before, end)).unfold(2, size, block).permute(0, 2, 1, 4, 3)
        return x.reshape(batch * n_blocks, heads, size, d)

    queries = blocks(q, block, 0, n_blocks * block - n)
    keys, values = blocks(k, span, window, after), blocks(v, span, window, after)
    real = torch.ones(1, n, dtype=torch.bool, device=q.device) if key_mask is None else key_mask
    real = F.pad(real, (window, after), value=False).unfold(-1, span, block)  # [B, blocks, span]
    # query j of a block is key j + r of its span
    band = allowed_positions(
        block, span, causal=causal, window=window, offset=window, device=q.device
    )
    allowed = (band & real[..., None, :]).expand(batch, n_blocks, block, span).clone()
    allowed.diagonal(window, -2, -1).fill_(True)  # a padding query sees itself
    # an additive float mask: CPU SDPA ran these banded blocks faster with it than with a bool one
    mask = torch.zeros(allowed.shape, dtype=q.dtype, device=q.device).masked_fill_(
        ~allowed, float("-inf")
    )
    out = F.scaled_dot_product_attention(
        queries, keys, values, attn_mask=mask.reshape(batch * n_blocks, 1, block, span)
    )
    out = out.unflatten(0, (batch, n_blocks)).permute(0, 2, 1, 3, 4).flatten(2, 3)
    return out[:, :, shift:n]


class AttentionOutput(NamedTuple):
    """What ``MultiHeadAttention`` returns."""

    output: Tensor  # [B, T, d_model]
    kv: KeyValue | BeamKeyValue  # the keys and values attended over: the new decoding cache
    weights: Tensor | None  # [B, H, T, S], when asked for


class MultiHeadAttention(nn.Module):
    """MultiHead(Q, K, V) = Concat(head_1, ..., head_h) W^O, head_i = Attention(QW_i^Q, KW_i^K,
    VW_i^V) (paper §3.2.2). The h heads' W_i^Q are the row blocks of one d_model x d_model
    matrix ``q_proj``, and likewise for K, V; ``out_proj`` is W^O.
    """

    def __init__(self, d_model: int, n_heads: int, window: int | None = None):
        super().__init__()
        self.n_heads, self.d_head, self.window = n_heads, d_model // n_heads, window
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.qkv_proj: nn.Linear | None = None  # Q, K, V side by side (fuse_self_projections)

    def forward(
        self,
        x: Tensor,
        memory: Tensor | KeyValue | None = None,
        *,
        key_mask: Tensor | None = None,
        causal: bool = False,
        past: KeyValue | BeamKeyValue | None = None,
        head_mask: Tensor | None = None,
        need_weights: bool = False,
        weights_of: list[int] | None = None,
    ) -> AttentionOutput:
        """Self-attention over x (``memory`` None) or cross-attention from x to ``memory``.

        x: [B, T, d_model]. memory: [B, S, d_model], or its keys and values already projected
        (while decoding: [B/g, ...] when g rows, a sentence's beams, share them).
        past: earlier positions' keys and values (self-attention while decoding).
        head_mask: [H], 0 silences a head. key_mask: [B, S], True = real key.
        Returns the output, the keys and values used (the new cache), and the weights if asked.
        ``weights_of``: cross-attention's weights of these heads only [B, len, T, S], while the
        output takes its fast path (the aligning heads of word links, heedful.aligning).
        """
        if memory is None:
            q, kv = self._project_self(x)  # q: [B, H, T, d_k]
            if past is not None:
                kv = past.append(kv)
        else:
            q = self._split_heads(self.q_proj(x))
            kv = memory if isinstance(memory, KeyValue) else self.project(memory)
        plain = not need_weights and head_mask is None and self.window is None
        some = None  # the weights of the heads weights_of names
        if weights_of is not None and not need_weights:
            if memory is None:
                raise ValueError("weights_of reads cross-attention's heads only")
            if plain and (both := decoding_attention.attend_weighing(q, kv, key_mask, weights_of)):
                step, some = both  # a decoding step by the native kernel, weights and all
                return AttentionOutput(self.out_proj(step), kv, some)
            some = decoding_attention.head_weights(q, kv, key_mask, weights_of)
        if plain and (step := decoding_attention.attend(q, kv, key_mask)) is not None:
            return AttentionOutput(self.out_proj(step), kv, some)  # a decoding step
        grouped_q, seen = decoding_attention.grouped(q, kv, key_mask)  # a decoding cache by row
        out, weights = scaled_dot_product_attention(
            grouped_q, seen.k, seen.v, key_mask,
            causal=causal, window=self.window if memory is None else None,
            need_weights=need_weights,
        )  # fmt: skip
        out = decoding_attention.ungrouped(out, q.shape[0])
        weights = decoding_attention.ungrouped(weights, q.shape[0])
        if head_mask is not None:
            out = out * head_mask.to(out.dtype)[None, :, None, None]
        return AttentionOutput(self._merge_heads(out), kv, weights if some is None else some)

    def _merge_heads(self, out: Tensor) -> Tensor:
        """[B, H, T, d_k] -> Concat(head_1, ..., head_h) W^O: [B, T, d_model]."""
        b, _, t, _ = out.shape
        return self.out_proj(out.transpose(1, 2).reshape(b, t, -1))

    def project(self, memory: Tensor) -> KeyValue:
        """Keys and values of a memory [B, S, d_model] (computed once per source)."""
        return KeyValue(
            self._split_heads(self.k_proj(memory)), self._split_heads(self.v_proj(memory))
        )

    def _project_self(self, x: Tensor) -> tuple[Tensor, KeyValue]:
        """Queries, keys and values of self-attention over x."""
        if self.qkv_proj is not None:  # one product; its views by head, made in one reshape
            b, t, _ = x.shape
            qkv = self.qkv_proj(x).view(b, t, 3, self.n_heads, self.d_head)
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
            return q, KeyValue(k, v)
        q = self._split_heads(self.q_proj(x))
        # One matrix multiply for K and V together: faster than two on CPU.
        weight = torch.cat([self.k_proj.weight, self.v_proj.weight])
        bias = torch.cat([self.k_proj.bias, self.v_proj.bias])
        k, v = F.linear(x, weight, bias).chunk(2, dim=-1)
        return q, KeyValue(self._split_heads(k), self._split_heads(v))

    def fuse_self_projections(self) -> None:
        """For inference (heedful.inference): W^Q, W^K and W^V become one d_model x 3·d_model
        matrix ``qkv_proj``, so that self-attention projects x in one product rather than
        three. ``q_proj``, ``k_proj`` and ``v_proj`` are gone after it."""
        parts = [self.q_proj, self.k_proj, self.v_proj]
        weight = parts[0].weight  # skip_init: no initialisation, no draw from the random state
        fused = skip_init(nn.Linear, weight.shape[1], 3 * weight.shape[0],
                          device=weight.device, dtype=weight.dtype)  # fmt: skip
        with torch.no_grad():
            fused.weight.copy_(torch.cat([p.weight for p in parts]))
            fused.bias.copy_(torch.cat([p.bias for p in parts]))
        self.qkv_proj = fused
        del self.q_proj, self.k_proj, self.v_proj

    def _split_heads(self, x: Tensor) -> Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_head).transpose(1, 2)  # [B, H, T, d_k]
