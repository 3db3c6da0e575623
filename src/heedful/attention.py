"""Scaled dot-product attention and multi-head attention (paper §3.2).

    Attention(Q, K, V) = softmax(Q Kᵀ / sqrt(d_k)) V

Three ways to compute the same numbers, chosen per call:

- the fast path, ``F.scaled_dot_product_attention`` (a flash kernel on CPU: memory linear in
  length), taken whenever the caller does not ask for the weights;
- the weights path, the formula written out, taken when the caller asks for the weights (they
  are returned, never stored on the module);
- restricted self-attention (paper §4, a window of r neighbours) computed in blocks, so
  that memory grows as O(n·r) instead of O(n²).

The plain formula is also used for the fast path where it measured faster: training on short
sequences, where the CPU flash kernel's backward pass is slow (see bench/attention.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from heedful.masks import allowed_positions, combine

# Training (autograd on) with at most this many query x key pairs per head uses the plain formula:
# on 2 CPU cores its backward pass beat the flash kernel's below this size (bench/attention.py).
PLAIN_BACKWARD_MAX_PAIRS = 96 * 96
# Inference with at most this many queries per head (decoding steps) uses two batched products.
FEW_QUERIES = 8


@dataclass
class KeyValue:
    """Projected keys and values of one attention layer: the decoding cache's unit.

    While decoding, k and v are views of longer buffers (``room``), so that appending one
    position writes it in place instead of copying every earlier one.
    """

    k: Tensor  # [B, H, S, d_k]
    v: Tensor  # [B, H, S, d_k]
    room: _Room | None = field(default=None, repr=False)

    def select(self, index: Tensor) -> KeyValue:
        """Keep (and reorder) batch rows: [B] -> [len(index)]."""
        if self.room is None:
            return KeyValue(self.k.index_select(0, index), self.v.index_select(0, index))
        # into new buffers with the same room: only the positions in use are copied
        _, h, capacity, d = self.room.k.shape
        n, shape = self.length, (len(index), h, capacity, d)
        room = _Room(self.k.new_empty(shape), self.v.new_empty(shape), filled=n)
        torch.index_select(self.k, 0, index, out=room.k[:, :, :n])
        torch.index_select(self.v, 0, index, out=room.v[:, :, :n])
        return room.view(n)

    def contiguous(self) -> KeyValue:
        return KeyValue(self.k.contiguous(), self.v.contiguous())

    def append(self, other: KeyValue) -> KeyValue:
        """Add positions at the end: [.., S, ..] + [.., S', ..] -> [.., S + S', ..].

        Written in place when this is the newest view of its buffer and it has room (a second
        append to the same KeyValue copies instead: earlier views never change). Under autograd
        it is a plain concatenation.
        """
        n, total = self.length, self.length + other.length
        if other.k.requires_grad or self.k.requires_grad:
            return KeyValue(torch.cat([self.k, other.k], 2), torch.cat([self.v, other.v], 2))
        room = self.room
        if room is None or room.filled != n or total > room.capacity:
            room = _Room.like(self.k, max(2 * total, 16), n)
            room.k[:, :, :n], room.v[:, :, :n] = self.k, self.v
        room.k[:, :, n:total], room.v[:, :, n:total] = other.k, other.v
        room.filled = total
        return room.view(total)

    @property
    def length(self) -> int:
        return self.k.shape[2]


@dataclass
class _Room:
    """Key and value buffers [B, H, capacity, d_k]; the first ``filled`` positions are in use."""

    k: Tensor
    v: Tensor
    filled: int

    @classmethod
    def like(cls, x: Tensor, capacity: int, filled: int) -> _Room:
        b, h, _, d = x.shape
        return cls(x.new_empty(b, h, capacity, d), x.new_empty(b, h, capacity, d), filled)

    @property
    def capacity(self) -> int:
        return self.k.shape[2]

    def view(self, length: int) -> KeyValue:
        return KeyValue(self.k[:, :, :length], self.v[:, :, :length], self)


@dataclass
class BeamKeyValue:
    """Beam search's self-attention cache, never copied when beams are reordered.

    Each step writes the keys and values of a sentence's K beams side by side, and they stay
    there; ``origin`` [n·K, t] says, for every row (beam) and position, whose slot that row's
    history passed through. A reorder only gathers ``origin`` (a few integers per row), where a
    per-row cache copies every earlier position of every layer. The K beams of a sentence then
    attend together over its t·K slots, each with a mask that keeps its own history's t slots.
    """

    k: Tensor  # [n, H, t·K, d_k]: position-major, beam-minor (a view of room)
    v: Tensor
    history: _BeamHistory
    room: _Room

    @classmethod
    def from_first_step(cls, kv: KeyValue, beams: int) -> BeamKeyValue:
        """From the cache of one row per sentence (the first step) to K beams per sentence."""
        n, t = kv.k.shape[0], kv.length
        room = _beam_room(kv.k, max(2 * t, 16), beams, filled=t)
        room.k[:, :, :t] = kv.k.unsqueeze(-2)  # every beam's slot holds the same history
        room.v[:, :, :t] = kv.v.unsqueeze(-2)
        own = torch.arange(beams, device=kv.k.device).repeat(n).unsqueeze(1)
        return cls._view(room, t, _BeamHistory(own.expand(n * beams, t), beams))

    @staticmethod
    def _view(room: _Room, t: int, history: _BeamHistory) -> BeamKeyValue:
        return BeamKeyValue(room.k[:, :, :t].flatten(2, 3), room.v[:, :, :t].flatten(2, 3),
                            history, room)  # fmt: skip

    @property
    def length(self) -> int:
        return self.history.origin.shape[1]

    @property
    def rows(self) -> int:
        return self.history.origin.shape[0]

    def append(self, other: KeyValue) -> BeamKeyValue:
        """Add one position: ``other`` holds each row's key and value [n·K, H, 1, d_k]."""
        n, t, K = self.k.shape[0], self.length, self.history.beams
        if other.length != 1:
            raise ValueError(f"a beam cache grows one position at a time, not {other.length}")
        room = self.room
        if room.filled != t or t + 1 > room.capacity:  # an older view, or full: copy
            room = _beam_room(self.k, 2 * (t + 1), K, filled=t)
            room.k[:, :, :t], room.v[:, :, :t] = self.room.k[:, :, :t], self.room.v[:, :, :t]
        h, d = other.k.shape[1], other.k.shape[-1]
        room.k[:, :, t] = other.k.view(n, K, h, d).transpose(1, 2)
        room.v[:, :, t] = other.v.view(n, K, h, d).transpose(1, 2)
        room.filled = t + 1
        return self._view(room, t + 1, self.history.extended())

    def select(self, index: Tensor) -> BeamKeyValue:
        """Rows index[0], index[1], ... continue: K per sentence, each from a row of its own
        sentence (as beam search reorders). Only sentences that leave make a copy."""
        K, t = self.history.beams, self.length
        sentences = self.k.shape[0]
        kept = index.view(-1, K)[:, 0] // K
        room = self.room
        if kept.numel() != sentences or not torch.equal(kept, torch.arange(sentences)):
            room = _Room(room.k[:, :, :t].index_select(0, kept).contiguous(),
                         room.v[:, :, :t].index_select(0, kept).contiguous(), filled=t)  # fmt: skip
        return self._view(room, t, self.history.selected(index))

    def per_row(self) -> KeyValue:
        """The same cache as one row per beam [n·K, H, t, d_k] (a copy: for the weights path)."""
        n, h, _, d = self.k.shape
        K, t = self.history.beams, self.length
        origin = self.history.origin.reshape(n, K, 1, t, 1, 1).expand(n, K, h, t, 1, d)

        def rows(x: Tensor) -> Tensor:  # [n, H, t·K, d] -> [n·K, H, t, d]
            x = x.reshape(n, 1, h, t, K, d).expand(n, K, h, t, K, d)
            return x.gather(4, origin).view(n * K, h, t, d)

        return KeyValue(rows(self.k), rows(self.v))

    def attend(self, q: Tensor) -> Tensor:
        """One new query per row [n·K, H, 1, d_k] -> the output [n·K, H, 1, d_k]."""
        n, h, _, d = self.k.shape
        K = self.history.beams
        grouped = q.view(n, K, h, d).transpose(1, 2)  # [n, H, K, d_k]: a sentence's beams
        out = _few_query_attention(grouped, self.k, self.v, self.history.mask())
        return out.transpose(1, 2).reshape(n * K, h, 1, d)


def _beam_room(x: Tensor, capacity: int, beams: int, filled: int) -> _Room:
    """Empty key and value buffers [n, H, capacity, K, d_k] for x's n, H and d_k."""
    n, h, _, d = x.shape
    shape = (n, h, capacity, beams, d)
    return _Room(x.new_empty(shape), x.new_empty(shape), filled)


class _BeamHistory:
    """The ``origin`` of a BeamKeyValue, shared by every layer's cache: each layer appends and
    reorders with the same rows, so each new history and its mask are made once per step."""

    def __init__(self, origin: Tensor, beams: int):
        self.origin, self.beams = origin, beams  # [n·K, t]
        self._extended: _BeamHistory | None = None
        self._selected: tuple[Tensor, _BeamHistory] | None = None
        self._mask: Tensor | None = None

    def extended(self) -> _BeamHistory:
        """One more position, at which every row reads its own slot."""
        if self._extended is None:
            rows = self.origin.shape[0]
            own = torch.arange(self.beams, device=self.origin.device).repeat(rows // self.beams)
            self._extended = _BeamHistory(torch.cat([self.origin, own.unsqueeze(1)], 1), self.beams)
        return self._extended

    def selected(self, index: Tensor) -> _BeamHistory:
        if self._selected is None or self._selected[0] is not index:
            self._selected = (index, _BeamHistory(self.origin.index_select(0, index), self.beams))
        return self._selected[1]

    def mask(self) -> Tensor:
        """[n, 1, K, t·K]: True where a beam's query may read a slot (its own history's)."""
        if self._mask is None:
            rows, t = self.origin.shape
            K = self.beams
            own = F.one_hot(self.origin, K).bool()  # [n·K, t, K]
            self._mask = own.view(rows // K, 1, K, t * K)
        return self._mask


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
        return _few_query_attention(q, k, v, combine(key_mask, None)), None
    if q.requires_grad and n_queries * n_keys <= PLAIN_BACKWARD_MAX_PAIRS:
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


def _few_query_attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None) -> Tensor:
    """A few queries per head (incremental decoding: one, or one per beam) as two batched
    products. At this size the CPU flash kernel's fixed cost dominates: this made beam search
    4-20% faster (bench/decode.py)."""
    b, h, t, d = q.shape
    n_keys = k.shape[-2]
    scores = torch.bmm(q.reshape(b * h, t, d), k.reshape(b * h, n_keys, d).transpose(1, 2))
    scores = scores.view(b, h, t, n_keys).mul_(1 / math.sqrt(d))  # [B, H, T, S]
    if mask is not None:
        scores.masked_fill_(~mask, float("-inf"))
    weights = scores.softmax(dim=-1).view(b * h, t, n_keys)
    return torch.bmm(weights, v.reshape(b * h, n_keys, d)).view(b, h, t, d)


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
    ) -> tuple[Tensor, KeyValue | BeamKeyValue, Tensor | None]:
        """Self-attention over x (``memory`` None) or cross-attention from x to ``memory``.

        x: [B, T, d_model]. memory: [B, S, d_model], or its keys and values already projected.
        past: earlier positions' keys and values (self-attention while decoding).
        head_mask: [H], 0 silences a head. key_mask: [B, S], True = real key.
        Returns the output [B, T, d_model], the keys and values used (the new cache), and the
        weights [B, H, T, S] if asked for.
        """
        if memory is None:
            q, kv = self._project_self(x)  # q: [B, H, T, d_k]
            if past is not None:
                kv = past.append(kv)
        else:
            q = self._split_heads(self.q_proj(x))
            kv = memory if isinstance(memory, KeyValue) else self.project(memory)
        b, _, t, _ = q.shape
        if isinstance(kv, BeamKeyValue):
            if not need_weights and self.window is None and head_mask is None:
                return self._merge_heads(kv.attend(q)), kv, None
            seen = kv.per_row()  # the plain path below, on a copy in per-row order
        else:
            seen = kv
        group = b // seen.k.shape[0]  # > 1: rows come in groups (beams) sharing one memory's keys
        if group > 1:
            q = q.unflatten(0, (-1, group)).transpose(1, 2).flatten(2, 3)  # [B/g, H, g·T, d_k]
        out, weights = scaled_dot_product_attention(
            q, seen.k, seen.v, key_mask,
            causal=causal, window=self.window if memory is None else None,
            need_weights=need_weights,
        )  # fmt: skip
        if group > 1:  # [B/g, H, g·T, *] -> [B, H, T, *]
            out = out.unflatten(2, (group, t)).transpose(1, 2).flatten(0, 1)
            if weights is not None:
                weights = weights.unflatten(2, (group, t)).transpose(1, 2).flatten(0, 1)
        if head_mask is not None:
            out = out * head_mask.to(out.dtype)[None, :, None, None]
        return self._merge_heads(out), kv, weights

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
        """Queries, keys and values of self-attention over x. (heedful.cpu's inference classes
        compute all three in one fused product.)"""
        q = self._split_heads(self.q_proj(x))
        if not isinstance(self.k_proj, nn.Linear):  # e.g. int8: no float weight to fuse
            return q, self.project(x)
        # One matrix multiply for K and V together: faster than two on CPU.
        weight = torch.cat([self.k_proj.weight, self.v_proj.weight])
        bias = torch.cat([self.k_proj.bias, self.v_proj.bias])
        k, v = F.linear(x, weight, bias).chunk(2, dim=-1)
        return q, KeyValue(self._split_heads(k), self._split_heads(v))

    def _split_qkv(self, qkv: Tensor) -> tuple[Tensor, KeyValue]:
        """[B, T, 3 d_model] from one fused projection -> queries and keys/values by head."""
        q, k, v = qkv.chunk(3, dim=-1)
        return self._split_heads(q), KeyValue(self._split_heads(k), self._split_heads(v))

    def _split_heads(self, x: Tensor) -> Tensor:
        b, t, _ = x.shape
        return x.view(b, t, self.n_heads, self.d_head).transpose(1, 2)  # [B, H, T, d_k]
