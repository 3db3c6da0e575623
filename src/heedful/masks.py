"""Attention masks, all in one convention: boolean, batch-first, ``True`` = may attend.

A mask is built here and passed explicitly; no module builds its own.
"""

from __future__ import annotations

import torch
from torch import Tensor


def pad(sources: list[list[int]], pad_id: int, device: torch.device | str = "cpu") -> Tensor:
    """Right-padded [B, S] ids, S the longest source's length."""
    src = torch.full((len(sources), max(map(len, sources))), pad_id, dtype=torch.long)
    for i, ids in enumerate(sources):
        src[i, : len(ids)] = torch.tensor(ids, dtype=torch.long)
    return src.to(device)


def padding_mask(ids: Tensor, pad_id: int) -> Tensor:
    """[B, S] token ids -> [B, S] mask, True where the token is real (not padding)."""
    return ids != pad_id


def allowed_positions(
    n_queries: int,
    n_keys: int,
    *,
    causal: bool = False,
    window: int | None = None,
    offset: int = 0,
    device: torch.device | None = None,
) -> Tensor | None:
    """[T, S] mask of which key positions each query position may see, or None for all.

    Query t sits at absolute position ``offset + t`` (``offset`` > 0 when keys come from a cache).
    ``causal``: keys j <= i only. ``window=r``: keys with |i - j| <= r only (paper §4).
    """
    if not causal and window is None:
        return None
    i = torch.arange(n_queries, device=device)[:, None] + offset  # [T, 1]
    j = torch.arange(n_keys, device=device)[None, :]  # [1, S]
    allowed = torch.ones(n_queries, n_keys, dtype=torch.bool, device=device)
    if causal:
        allowed &= j <= i
    if window is not None:
        allowed &= (i - j).abs() <= window
    return allowed


def combine(
    key_mask: Tensor | None, positions: Tensor | None, *, self_offset: int | None = None
) -> Tensor | None:
    """[B, S] key mask and [T, S] position mask -> one mask broadcastable to [B, H, T, S].

    ``self_offset``: query t is key ``self_offset + t`` and may always see itself. Windows need
    this: a padding query whose whole window is padding would otherwise see nothing and turn
    into NaN, which the next layer would spread (0 x NaN is NaN).
    """
    if key_mask is None:
        return None if positions is None else positions[None, None]  # [1, 1, T, S]
    mask = key_mask[:, None, None, :]  # [B, 1, 1, S]
    if positions is None:
        return mask
    mask = mask & positions
    if self_offset is not None:
        n_queries, n_keys = positions.shape
        t = torch.arange(n_queries, device=positions.device)
        itself = torch.zeros(n_queries, n_keys, dtype=torch.bool, device=positions.device)
        itself[t, t + self_offset] = True
        mask = mask | itself
    return mask
