"""A decoder cache whose rows are beams, ``group`` per sentence (beam search).

The beams of a sentence share one copy of its cross-attention keys and values, copied only when
sentences leave the batch or move. After the first step, their self-attention keys and values
live in a cache that beams never copy (``kv_cache.BeamKeyValue``): each beam's history says
which earlier rows it reads.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from torch import Tensor

from heedful.kv_cache import BeamKeyValue, KeyValue, kept_sources
from heedful.model import DecoderCache


def reorder_beams(cache: DecoderCache, index: Tensor, group: int) -> DecoderCache:
    """``cache`` with the rows ``index``, which come ``group`` per sentence, each group
    continuing rows of one sentence (the beams kept, in their new order)."""
    sources = cache.memory_mask.shape[0]
    self_kv = cache.self_kv
    if type(self_kv[0]) is KeyValue and self_kv[0].k.shape[0] == sources:
        # one row per sentence becomes ``group`` beams, in a cache that beams never copy
        self_kv = BeamKeyValue.from_first_step(self_kv, group)
        index = index * group  # sentence i's row is now its first beam's
    selected = [None if kv is None else kv.select(index) for kv in self_kv]
    if isinstance(selected[0], BeamKeyValue):
        kept = selected[0].history.kept  # worked out once, for every layer
    else:
        rows = sources if self_kv[0] is None else self_kv[0].k.shape[0]
        kept = kept_sources(index.view(-1, group)[:, 0] // (rows // sources), sources)
    if kept is None:  # every sentence stays where it was
        return replace(cache, self_kv=selected)
    starts = None if cache.starts is None else cache.starts.index_select(0, kept)
    return replace(
        cache,
        self_kv=selected,
        starts=starts,  # one start per sentence (continuous batching)
        cross_kv=[kv.select(kept) for kv in cache.cross_kv],
        memory_mask=cache.memory_mask.index_select(0, kept),
    )


@dataclass
class BeamCache:
    """A DecoderCache whose rows come ``group`` beams per sentence, for the searches
    (``cache.reorder(index)``, heedful.search)."""

    inner: DecoderCache
    group: int

    def reorder(self, index: Tensor) -> BeamCache:
        return BeamCache(reorder_beams(self.inner, index, self.group), self.group)
