"""What attention keeps while decoding: each layer's projected keys and values.

- ``KeyValue``: keys and values by row; while decoding they are views of longer buffers, so that
  a new position is written in place.
- ``BeamKeyValue``: beam search's self-attention cache, whose buffers stay put when beams are
  reordered (only each beam's history, a few integers, moves).
- ``LMCache``: a decoder-only language model's cache (``heedful.lm``); the Transformer's,
  ``DecoderCache``, lives beside the model (``heedful.model``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import Tensor


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

    def reserve(self, capacity: int) -> KeyValue:
        """The same keys and values in buffers with room for ``capacity`` positions, so that
        appending up to there writes in place and never grows (copies) the buffers."""
        n = self.length
        if self.k.requires_grad or capacity <= (n if self.room is None else self.room.capacity):
            return self
        room = _Room.like(self.k, capacity, n)
        room.k[:, :, :n], room.v[:, :, :n] = self.k, self.v
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
            room = _Room.like(self.k, _Room.capacity_for(total), n)
            room.k[:, :, :n], room.v[:, :, :n] = self.k, self.v
        room.k[:, :, n:total], room.v[:, :, n:total] = other.k, other.v
        room.filled = total
        return room.view(total)

    @property
    def length(self) -> int:
        return self.k.shape[2]


def regrouped(
    kv: KeyValue, first: int, added: int, capacity: int, index: Tensor | None = None
) -> KeyValue:
    """The rows ``index`` of ``kv`` (None: all) from position ``first`` on, then ``added`` new
    rows (zeros, to be masked), in new buffers with room for ``capacity`` positions (continuous
    batching: the positions before ``first`` no row reads any more)."""
    _, h, t, d = kv.k.shape
    n, length = kv.k.shape[0] if index is None else len(index), t - first
    shape = (n + added, h, max(capacity, length), d)
    room = _Room(kv.k.new_empty(shape), kv.v.new_empty(shape), filled=length)
    for old, buffer in ((kv.k, room.k), (kv.v, room.v)):
        if index is None:
            buffer[:n, :, :length] = old[:, :, first:]
        else:
            torch.index_select(old[:, :, first:], 0, index, out=buffer[:n, :, :length])
        buffer[n:, :, :length] = 0.0
    return room.view(length)


@dataclass
class _Room:
    """Key and value buffers [B, H, capacity, d_k]; the first ``filled`` positions are in use."""

    k: Tensor
    v: Tensor
    filled: int

    @classmethod
    def like(cls, x: Tensor, capacity: int, filled: int, beams: int | None = None) -> _Room:
        """Empty buffers for x's B, H and d_k: [B, H, capacity, d_k], or with ``beams`` (a beam
        cache's) [B, H, capacity, K, d_k]."""
        b, h, _, d = x.shape
        shape = (b, h, capacity, d) if beams is None else (b, h, capacity, beams, d)
        return cls(x.new_empty(shape), x.new_empty(shape), filled)

    @staticmethod
    def capacity_for(length: int) -> int:
        """Positions to make room for when a cache of ``length`` must grow: twice as many (at
        least 16), so that growing copies O(log n) times. (Decoding usually reserves its
        longest output at the first step instead: ``KeyValue.reserve``.)"""
        return max(2 * length, 16)

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
    def from_first_step(cls, layers: list[KeyValue], beams: int) -> list[BeamKeyValue]:
        """From every layer's cache of one row per sentence (the first step) to K beams per
        sentence, with as much room as each had (see ``KeyValue.reserve``). The layers share
        one history, so that each step's new history and its attention bias are made once."""
        first = layers[0]
        n, t = first.k.shape[0], first.length
        own = torch.arange(beams, device=first.k.device).repeat(n).unsqueeze(1)
        history = _BeamHistory(own.expand(n * beams, t), beams)
        caches = []
        for kv in layers:
            capacity = _Room.capacity_for(t) if kv.room is None else kv.room.capacity
            room = _Room.like(kv.k, capacity, t, beams)
            room.k[:, :, :t] = kv.k.unsqueeze(-2)  # every beam's slot holds the same history
            room.v[:, :, :t] = kv.v.unsqueeze(-2)
            caches.append(cls._view(room, t, history))
        return caches

    @staticmethod
    def _view(room: _Room, t: int, history: _BeamHistory) -> BeamKeyValue:
        return BeamKeyValue(room.k[:, :, :t].flatten(2, 3), room.v[:, :, :t].flatten(2, 3),
                            history, room)  # fmt: skip

    @property
    def length(self) -> int:
        return self.history.origin.shape[1]

    def append(self, other: KeyValue) -> BeamKeyValue:
        """Add one position: ``other`` holds each row's key and value [n·K, H, 1, d_k]."""
        n, t, K = self.k.shape[0], self.length, self.history.beams
        if other.length != 1:
            raise ValueError(f"a beam cache grows one position at a time, not {other.length}")
        room = self.room
        if room.filled != t or t + 1 > room.capacity:  # an older view, or full: copy
            room = _Room.like(self.k, _Room.capacity_for(t + 1), t, K)
            room.k[:, :, :t], room.v[:, :, :t] = self.room.k[:, :, :t], self.room.v[:, :, :t]
        h, d = other.k.shape[1], other.k.shape[-1]
        room.k[:, :, t] = other.k.view(n, K, h, d).transpose(1, 2)
        room.v[:, :, t] = other.v.view(n, K, h, d).transpose(1, 2)
        room.filled = t + 1
        return self._view(room, t + 1, self.history.extended())

    def select(self, index: Tensor) -> BeamKeyValue:
        """Rows index[0], index[1], ... continue: K per sentence, each from a row of its own
        sentence (as beam search reorders). Only sentences that leave make a copy: the others'
        positions in use, into buffers with the same room (so the next append writes in place)."""
        t, history = self.length, self.history.selected(index)
        old, kept = self.room, history.kept
        if kept is None:
            return self._view(old, t, history)
        _, h, capacity, K, d = old.k.shape
        shape = (len(kept), h, capacity, K, d)
        room = _Room(old.k.new_empty(shape), old.v.new_empty(shape), filled=t)
        torch.index_select(old.k[:, :, :t], 0, kept, out=room.k[:, :, :t])
        torch.index_select(old.v[:, :, :t], 0, kept, out=room.v[:, :, :t])
        return self._view(room, t, history)

    def per_row(self) -> KeyValue:
        """The same cache as one row per beam [n·K, H, t, d_k] (a copy: for the weights path)."""
        n, h, _, d = self.k.shape
        K, t = self.history.beams, self.length
        origin = self.history.origin.reshape(n, K, 1, t, 1, 1).expand(n, K, h, t, 1, d)

        def rows(x: Tensor) -> Tensor:  # [n, H, t·K, d] -> [n·K, H, t, d]
            x = x.reshape(n, 1, h, t, K, d).expand(n, K, h, t, K, d)
            return x.gather(4, origin).view(n * K, h, t, d)

        return KeyValue(rows(self.k), rows(self.v))


def beams_from(
    layers: list[BeamKeyValue], first: int, capacity: int, added: int = 0
) -> list[BeamKeyValue]:
    """Every layer's beam cache from position ``first`` on, then ``added`` new sentences' beams
    (zeros, to be masked), in new buffers with room for ``capacity`` positions, the layers
    sharing one history (continuous batching: the positions before ``first`` no beam reads
    any more)."""
    t = layers[0].length
    length, old = t - first, layers[0].history
    K, n = old.beams, layers[0].k.shape[0]
    origin = old.origin[:, first:]
    origin = torch.cat([origin, origin.new_zeros(added * K, length)])
    history = _BeamHistory(origin.contiguous(), K)
    out = []
    for kv in layers:
        _, h, _, d = kv.k.shape
        shape = (n + added, h, max(capacity, length), K, d)
        room = _Room(kv.k.new_empty(shape), kv.v.new_empty(shape), filled=length)
        room.k[:n, :, :length] = kv.room.k[:, :, first:t]
        room.v[:n, :, :length] = kv.room.v[:, :, first:t]
        room.k[n:, :, :length], room.v[n:, :, :length] = 0.0, 0.0
        out.append(BeamKeyValue._view(room, length, history))
    return out


class _BeamHistory:
    """The ``origin`` of a BeamKeyValue, shared by every layer's cache: each layer appends and
    reorders with the same rows, so each new history and its attention bias are made once per
    step."""

    def __init__(self, origin: Tensor, beams: int, kept: Tensor | None = None):
        self.origin, self.beams = origin, beams  # [n·K, t]
        self.kept = kept  # the sentences the last reorder kept, if some left; None: all stayed
        self._extended: _BeamHistory | None = None
        self._selected: tuple[Tensor, _BeamHistory] | None = None
        self._bias: Tensor | None = None

    def extended(self) -> _BeamHistory:
        """One more position, at which every row reads its own slot."""
        if self._extended is None:
            rows = self.origin.shape[0]
            own = torch.arange(self.beams, device=self.origin.device).repeat(rows // self.beams)
            self._extended = _BeamHistory(torch.cat([self.origin, own.unsqueeze(1)], 1), self.beams)
        return self._extended

    def selected(self, index: Tensor) -> _BeamHistory:
        """Rows index[0], index[1], ... continue, K per sentence, each from its own sentence."""
        if self._selected is None or self._selected[0] is not index:
            K, sentences = self.beams, self.origin.shape[0] // self.beams
            kept = kept_sources(index.view(-1, K)[:, 0] // K, sentences)
            history = _BeamHistory(self.origin.index_select(0, index), K, kept)
            self._selected = (index, history)
        return self._selected[1]

    def bias(self, heads: int, dtype: torch.dtype) -> Tensor:
        """What to add to the scores [n·H, K, t·K] of a sentence's K beams over its t·K slots:
        0 where a beam's query may read a slot (its own history's), -inf elsewhere."""
        if self._bias is None or self._bias.dtype != dtype:
            rows, t = self.origin.shape
            K = self.beams
            allowed = F.one_hot(self.origin, K).bool().view(rows // K, 1, K, t * K)
            bias = torch.zeros(rows // K, heads, K, t * K, dtype=dtype, device=allowed.device)
            self._bias = bias.masked_fill_(~allowed, float("-inf")).view(-1, K, t * K)
        return self._bias


def kept_sources(sources: Tensor, count: int) -> Tensor | None:
    """``sources``: the source (sentence) of each group of rows after a reorder, out of ``count``;
    None when every source stays where it was (nothing to copy), else ``sources`` itself."""
    unchanged = sources.numel() == count and torch.equal(
        sources, torch.arange(count, device=sources.device)
    )
    return None if unchanged else sources


@dataclass
class LMCache:
    """A decoder-only language model's cache: keys and values of every position so far, per
    layer (``heedful.lm.DecoderOnlyLM.start_decoding``)."""

    self_kv: list[KeyValue | None]
    length: int = 0

    def reorder(self, index: Tensor) -> LMCache:
        return LMCache(
            [None if kv is None else kv.select(index) for kv in self.self_kv], self.length
        )
