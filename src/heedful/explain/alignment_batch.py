"""Word links of many pairs at once: what ``alignment_choice.align_ids`` gives each translation,
in one set of batched tensor operations instead of some thirty small ones a pair.

Links with every translation (``heedful.translation_links``) find the links of a whole batch
of translations as decoding ends. Pair by pair (``word_head_scores``, ``blended``, then
``link`` without the placeholders) each operation is a few hundred multiply-adds and PyTorch's
fixed cost per call is most of the time. Here the pairs' attention [T, S] is padded into one
[pairs, T, S] batch; each pair's pieces merge into words by one product on each side, as
``heedful.explain.words.merge`` does; the readings are blended, weighed by the priors and
masked (padding, and the words a caller links itself) as one batch; then each pair's links are
read from its best row and column, and symmetrised, as ``link`` does.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import torch
from torch import Tensor

from heedful.explain.align import Link
from heedful.explain.alignment_methods import (
    AlignmentMethod,
    blended,
    piece_words,
    reading_rows,
    shares,
    source_words,
    spelt_alike,
    target_words,
    weighed,
)
from heedful.wordalign import symmetrize


def link_batch(
    weights: Sequence[Tensor],
    seconds: Sequence[Tensor | None],
    pieces: Sequence[tuple[list[str], list[str]]],
    apart: Sequence[tuple[Collection[int], Collection[int]]],
    method: AlignmentMethod,
    table=None,
) -> list[set[Link]]:
    """Each pair's links (source word, target word) by an attention method resolved for the
    model: ``weights``, its attention [T, S] (the mean of the method's heads); ``seconds``, a
    blended method's second reading [T, S]; ``pieces``, its source and target pieces;
    ``apart``, the source and target words no other word links to; ``table``, the model's
    ``LinkedWords`` for a method that weighs them."""
    if not weights:
        return []
    words = [(source_words(src), target_words(tgt)) for src, tgt in pieces]
    n_source = [len(s) for s, _ in words]
    n_target = [len(t) for _, t in words]
    shape = (len(weights), max(n_target), max(n_source))

    def merged(readings: Sequence[Tensor], method_name: str) -> Tensor:
        lengths = [w.shape[0] for w in readings]
        rows = [reading_rows(t, n, method_name) for (_, t), n in zip(words, lengths, strict=True)]
        return _merged(readings, rows, [s for s, _ in words], shape)

    scores = merged(weights, method.method)
    if method.blend:
        scores = blended(scores, merged(seconds, "predict"), method.blend)
    keep = _kept(n_source, n_target, apart)
    scores = scores.masked_fill(~keep, 0.0)
    prior = linked = None
    if method.spelling or method.linked:
        spelt = [
            (piece_words(src, s), piece_words(tgt, t))
            for (src, tgt), (s, t) in zip(pieces, words, strict=True)
        ]
        if method.spelling:
            prior = _sparse([spelt_alike(*pair) for pair in spelt], shape)
        if method.linked:
            linked = _sparse([table.linked(*pair) for pair in spelt], shape)
    scores = weighed(scores, method.normalize, prior, method.spelling, linked, method.linked)
    sure = None
    if method.confidence:  # shares among the kept words alone, as ``link`` of them reads them
        sure = (shares(scores.masked_fill(~keep, 0.0)) >= method.confidence).tolist()
    scores = scores.masked_fill(~keep, -1.0)  # every kept score is >= 0
    forward, reverse = scores.argmax(-1).tolist(), scores.argmax(-2).tolist()
    found = []
    for b, (not_sources, not_targets) in enumerate(apart):
        rows = [j for j in range(n_target[b]) if j not in not_targets]
        columns = [i for i in range(n_source[b]) if i not in not_sources]
        if not rows or not columns:
            found.append(set())
        elif method.links == "argmax":
            found.append({(forward[b][j], j) for j in rows})
        else:  # symmetrised among the kept words alone, as ``link`` of the kept scores is
            row_at = {j: k for k, j in enumerate(rows)}
            column_at = {i: k for k, i in enumerate(columns)}
            ahead = {(column_at[forward[b][j]], k) for k, j in enumerate(rows)}
            back = {(k, row_at[reverse[b][i]]) for k, i in enumerate(columns)}
            linked_here = symmetrize(ahead, back, len(columns), len(rows), method.links)
            found.append({(columns[i], rows[j]) for i, j in linked_here})
        if sure is not None:
            found[-1] = {(i, j) for i, j in found[-1] if sure[b][j][i]}
    return found


def _merged(weights: Sequence[Tensor], rows: list, columns: list, shape: tuple) -> Tensor:
    """[pairs, target words, source words]: the pairs' [T, S] weights, padded into a batch,
    their ``rows`` averaged and their ``columns`` summed into words (each pair's groups of
    piece positions), as ``heedful.explain.words.merge`` does: [Tw, T] @ [T, S] @ [S, Sw]."""
    n, n_target, n_source = shape
    T, S = max(w.shape[0] for w in weights), max(w.shape[1] for w in weights)
    batch = torch.zeros(n, T, S)
    for b, w in enumerate(weights):
        batch[b, : w.shape[0], : w.shape[1]] = w
    row_matrix = _matrix(_groups(rows, average=True), (n, n_target, T))
    pair, word, piece, value = _groups(columns, average=False)
    return row_matrix @ batch @ _matrix((pair, piece, word, value), (n, S, n_source))


def _groups(groups: list[list[list[int]]], *, average: bool) -> tuple[list, ...]:
    """Each pair's groups of piece positions as the (pair, word, piece, value) entries of a
    merging matrix, four lists: a word's pieces are averaged (1 / their number) or summed."""
    pair, word, piece, value = [], [], [], []
    for b, pair_groups in enumerate(groups):
        for w, group in enumerate(pair_groups):
            share = 1.0 / len(group) if average else 1.0
            for i in group:
                pair.append(b), word.append(w), piece.append(i), value.append(share)
    return pair, word, piece, value


def _matrix(at: tuple[list, ...], shape: tuple[int, int, int]) -> Tensor:
    """A [pairs, rows, columns] tensor of zeros but at ``at``'s (pair, row, column, value)."""
    out = torch.zeros(shape)
    if at[0]:
        out[torch.tensor(at[0]), torch.tensor(at[1]), torch.tensor(at[2])] = torch.tensor(at[3])
    return out


def _kept(n_source: list[int], n_target: list[int], apart) -> Tensor:
    """[pairs, target words, source words]: True where both words are the pair's and neither
    is one of its words ``apart``."""
    rows = torch.arange(max(n_target)) < torch.tensor(n_target)[:, None]
    columns = torch.arange(max(n_source)) < torch.tensor(n_source)[:, None]
    for b, (not_sources, not_targets) in enumerate(apart):
        for i in not_sources:
            columns[b, i] = False
        for j in not_targets:
            rows[b, j] = False
    return rows[:, :, None] & columns[:, None, :]


def _sparse(entries: list[Iterable[tuple[int, int, float]]], shape: tuple) -> Tensor:
    """Each pair's (target word, source word, value) entries in one [pairs, target words,
    source words] tensor of zeros."""
    pair, row, column, value = [], [], [], []
    for b, pair_entries in enumerate(entries):
        for j, i, v in pair_entries:
            pair.append(b), row.append(j), column.append(i), value.append(v)
    return _matrix((pair, row, column, value), shape)
