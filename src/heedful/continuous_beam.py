"""Beam search with continuous batching: a finished sentence's K beams go to a waiting one.

The slots, the cache's rebuilding and the token budget are ``heedful.continuous``'s; the search
is ``heedful.search.beam_search``'s, step for step (its candidates, finished hypotheses, length
penalty and stopping rule), kept per sentence: each sentence counts its own steps. A sentence
that takes a slot starts on K rows with one live beam (the others' scores -inf), where beam
search starts it on one row: the same candidates, so the same hypotheses
(tests/test_continuous.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from torch import nn

from heedful import continuous, coverage
from heedful.aligning import Trails
from heedful.beam_cache import reorder_beams
from heedful.model import Memory
from heedful.search import NEG_INF, Hypothesis, LengthPenalty
from heedful.search import _add_finished as add_finished
from heedful.search import _best_candidates as best_candidates


@torch.inference_mode()
def beam(
    model: nn.Module,
    sources: list[list[int]],
    max_lengths: Sequence[int],
    *,
    batch_size: int,
    beam_size: int,
    batch_tokens: int | None = None,
    length_penalty: LengthPenalty,
    n_best: int = 1,
    early_stopping: bool = False,
    banned: Sequence[int] = (),
    force_eos: bool = False,
    on_batch: Callable[[list[int], list[list[Hypothesis]], Memory], None] | None = None,
    aligning: Trails | None = None,
    coverage_penalty: float = 0.0,
    watched: Sequence[Sequence[Sequence[int]]] | None = None,
) -> list[list[Hypothesis]]:
    """``heedful.search.beam_search`` (its rules, step for step; no minimum length) of every
    source, ``batch_size`` sources of ``beam_size`` beams at a time, a finished source's beams
    given to a waiting one; each source's ``n_best`` hypotheses, in the caller's order. A new
    source's first step runs on K rows with one live beam (the others' scores -inf), where
    beam search runs one row: the same candidates. ``aligning``: each hypothesis returned
    carries its aligning heads' weights (``Hypothesis.attention``, heedful.aligning).
    ``coverage_penalty``: β of ``heedful.coverage``; each source's finished hypotheses are
    rescored with the aligning heads' weights (so it needs ``aligning``) before its n best are
    kept, those dropping fewer of its ``watched`` words first."""
    if coverage_penalty and aligning is None:
        raise ValueError("a coverage penalty reads the aligning heads' weights: pass aligning")
    config, K = model.config, beam_size
    device = next(model.parameters()).device
    results: list[list[Hypothesis]] = [[] for _ in sources]
    if not sources:
        return results
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
    waiting = continuous.Sources(
        model, sources, order, max_lengths, batch_size, batch_tokens, device
    )
    slots = [waiting.take() for _ in range(min(waiting.wanted([]), len(sources)))]
    cache = continuous.first_cache(slots, waiting.width, room=2 * max(max_lengths), device=device)
    inputs = torch.full((len(slots), 1), config.start_id, dtype=torch.long, device=device)
    scores = torch.zeros(len(slots), 1)  # [n, k]: one beam a source at the first step
    histories: list[list[int]] = [[] for _ in slots]  # each row's tokens so far
    first_beams = torch.full((K,), NEG_INF)
    first_beams[0] = 0.0
    while slots:
        asked = None if aligning is None else aligning.asked
        out = model.decode_step(inputs, cache, aligning=asked)
        step = 0 if aligning is None else aligning.record(out.attention.aligning)
        n, k = scores.shape
        at_max_list = [r.steps + 1 >= r.max_length for r in slots]
        at_max = torch.tensor(at_max_list).unsqueeze(1)  # [n, 1]
        last = at_max.expand(n, k).reshape(-1) if force_eos else None
        logits = out.logits[:, -1].float()  # [n·k, V]
        V = logits.shape[-1]
        top_scores, top_index = best_candidates(
            logits, scores, min(2 * K, k * V), banned, config.eos_id, True, last
        )  # [n, 2K], best first
        top_tokens = top_index % V
        top_rows = top_index // V + torch.arange(n).unsqueeze(1) * k
        stops = (top_tokens == config.eos_id) | at_max
        new_finished = stops[:, :K] & (top_scores[:, :K] > NEG_INF)
        if new_finished.any():
            rows, found, ends = (x[:, :K].tolist() for x in (top_rows, top_scores, top_tokens))
            for i, j in new_finished.nonzero().tolist():
                log_prob = found[i][j]
                lp = length_penalty(slots[i].steps + 1)
                tokens = histories[rows[i][j]] + [ends[i][j]]
                found_one = Hypothesis(tokens, log_prob / lp, log_prob, _origin=(step, rows[i][j]))
                add_finished(slots[i].done, found_one, K)
        keep = top_scores.masked_fill(stops, NEG_INF).topk(K, dim=1).indices  # [n, K]
        kept_scores = top_scores.gather(1, keep)
        ended = []
        for i, best in enumerate(kept_scores[:, 0].tolist()):
            done, lp = slots[i].done, length_penalty(slots[i].steps + 1)
            goes_on = (
                not at_max_list[i]
                and best > NEG_INF
                and (len(done) < K or not early_stopping and best / lp > done[-1].score)
            )
            if not goes_on:
                ended.append(i)
                kept = done if coverage_penalty else done[:n_best]
                if aligning is not None:  # back to the step its sentence began
                    began, length = step - slots[i].steps, len(sources[slots[i].index])
                    for h in kept:
                        aligning.gathered(h, h._origin, began, length, second=False)
                if coverage_penalty:
                    words = watched[slots[i].index] if watched else ()
                    kept = coverage.rescored(kept, coverage_penalty, words)
                results[slots[i].index] = kept[:n_best]
                if aligning is not None:
                    for h in kept[:n_best]:
                        aligning.gathered(h, h._origin, began, length)
                continuous.report_done(
                    slots[i], lambda b=slots[i].batch: [results[j] for j in b.indices], on_batch
                )
        rows_kept, next_tokens = top_rows.gather(1, keep), top_tokens.gather(1, keep)
        fresh = ended[: continuous.waiting_count(waiting)]
        gone = set(ended[len(fresh) :])
        if gone:  # nothing to give their beams to: they leave
            alive = torch.tensor([i not in gone for i in range(n)])
            kept_scores, rows_kept, next_tokens = (
                kept_scores[alive],
                rows_kept[alive],
                next_tokens[alive],
            )
            fresh = [i - sum(g < i for g in gone) for i in fresh]
            slots = [s for i, s in enumerate(slots) if i not in gone]
            if not slots:
                break
        index = rows_kept.view(-1)
        next_list = next_tokens.view(-1).tolist()
        index_list = index.tolist()
        histories = [histories[r] + [t] for r, t in zip(index_list, next_list, strict=True)]
        if aligning is not None:
            aligning.link(index_list)
        inputs, scores = next_tokens.view(-1, 1), kept_scores
        cache = reorder_beams(out.cache, index, K)
        for slot in slots:
            slot.steps += 1
        more = min(
            continuous.more_slots(waiting, slots), continuous.waiting_count(waiting) - len(fresh)
        )
        if more > 0:  # shorter sources: more of them fit the token budget
            fresh += list(range(len(slots), len(slots) + more))
            cache = continuous.grown(cache, more, waiting.widest(slots))
            slots += [None] * more  # type: ignore[list-item]
            inputs = torch.cat([inputs, inputs.new_empty(more * K, 1)])
            scores = torch.cat([scores, scores.new_empty(more, K)])
            histories += [[] for _ in range(more * K)]
        if fresh:  # each ended source's beams go to a waiting one, from its first step
            given = [(i, waiting.take()) for i in fresh]
            cache = continuous.refilled(cache, given, device)
            for i, row in given:
                slots[i] = row
                inputs[i * K : (i + 1) * K] = config.start_id
                scores[i] = first_beams
                histories[i * K : (i + 1) * K] = [[] for _ in range(K)]
        cache = continuous.roomy(cache, slots)
        if aligning is not None:
            aligning.forget_before(min(aligning.count - slot.steps for slot in slots))
    return results
