"""Decoding as pure functions over a step callback: greedy search, beam search and sampling.

A model enters only through two things, so the same functions decode the Transformer and the
decoder-only language model:

    step(tokens [B, t], cache) -> Stepped(logits [B, V], cache)   # t = 1 after the first call
    cache.reorder(index [B'])  -> cache with rows index[0], index[1], ...

Every function starts from ``tokens`` [B, t0] (the decoder's start token, or a language-model
prompt) and returns, per input row, Hypotheses of generated tokens. ``max_length`` counts
generated tokens, end-of-sentence included; ``min_length`` forbids end-of-sentence before that
many tokens. Rows that finish leave the batch, so the step only ever computes live rows.

Beam search follows Hugging Face ``generate`` (transformers 5) step for step: 2K candidates per
sentence; end-of-sentence candidates ranked within the first K become finished hypotheses scored
log P(Y) / lp(|Y|) with |Y| counting the end-of-sentence token; a sentence stops when it holds K
finished hypotheses and its best live beam, scored as if it ended now, cannot beat the worst (HF's
``early_stopping=False``), or, with ``early_stopping=True``, as soon as it holds K (as HF's
``early_stopping=True``, fairseq and CTranslate2 stop: fewer steps, and sometimes a worse best).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import torch
from torch import Tensor

from heedful import native

NEG_INF = float("-inf")
PenaltyForm = Literal["gnmt", "power"]


@dataclass(frozen=True)
class LengthPenalty:
    """Divides a hypothesis's log-probability so that longer outputs are not unfairly penalised.

    ``gnmt``: ((5 + |Y|) / 6)^α (Wu et al., 2016), which the paper (§6.1) and tensor2tensor use
    with α = 0.6; ``power``: |Y|^α, as fairseq, Hugging Face and CTranslate2. α = 0: no penalty.
    """

    alpha: float = 0.6
    form: PenaltyForm = "gnmt"

    def __post_init__(self) -> None:
        if self.form not in ("gnmt", "power"):
            raise ValueError(f"length penalty form must be gnmt or power, not {self.form!r}")

    def __call__(self, length: int) -> float:
        if self.form == "gnmt":
            return ((5 + length) / 6) ** self.alpha
        return float(length) ** self.alpha


@dataclass(frozen=True)
class Sampling:
    """Draw each next token instead of searching (see ``sample``): from softmax(logits /
    temperature), restricted to the ``top_k`` most probable tokens (0: all) and to the smallest
    set whose probability reaches ``top_p``. ``seed``: the same seed draws the same tokens."""

    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    seed: int | None = None

    def generator(self) -> torch.Generator | None:
        return None if self.seed is None else torch.Generator().manual_seed(self.seed)


@dataclass
class Stepped:
    """What one step returns: the next-token logits of every row and the extended cache.

    ``trace``: optional per-row tensors [B, ...] (e.g. this step's attention weights) that the
    search carries along each hypothesis when asked to (``keep_trace=True``).
    """

    logits: Tensor  # [B, V]
    cache: Any
    trace: tuple[Tensor, ...] = ()


Step = Callable[[Tensor, Any], Stepped]


@dataclass
class Hypothesis:
    """One output: generated tokens (ending with EOS unless cut at max_length) and its score."""

    tokens: list[int]
    score: float  # beam search: log_prob / lp(len(tokens)); otherwise log_prob
    log_prob: float  # sum of the tokens' log-probabilities
    trace: list[tuple[Tensor, ...]] | None = None  # per generated token, when keep_trace
    # [T, S] the aligning heads' cross-attention per token, where decoding kept it
    attention: Tensor | None = field(default=None, repr=False)  # (heedful.aligning)
    # [T, S] a blended alignment method's second reading, where decoding kept it
    second_attention: Tensor | None = field(default=None, repr=False)
    # (step, row) that ended it, for traces and the aligning heads' weights (StepRecord)
    _origin: tuple[int, int] | None = field(default=None, repr=False)


@dataclass
class BeamState:
    """The live beams after t steps. K beams per sentence (1 before the first step)."""

    sentences: Tensor  # [n] each live sentence's row in the caller's batch
    tokens: Tensor  # [n*K, t] tokens generated so far, beams of a sentence adjacent
    scores: Tensor  # [n, K] sum of log-probabilities of each beam
    cache: Any  # n*K rows, in the same order as tokens


class StepRecord:
    """Something per step over that step's rows, and each row's parent row at the step before
    (beam search reorders rows at every step; rows leave as they finish), so that a hypothesis's
    rows are found only at the end, by walking back from the row that ended it. Kept for traces
    (``keep_trace``) and for the aligning heads' weights (``heedful.aligning``)."""

    def __init__(self):
        self.steps: dict[int, Any] = {}  # step -> its value over that step's rows
        self.parents: dict[int, list[int]] = {}  # step -> its rows' rows at the step before
        self.count = 0  # steps recorded
        self.first = 0  # steps before it are forgotten

    def record(self, value: Any) -> int:
        """This step's value; returns its number."""
        self.steps[self.count] = value
        self.count += 1
        return self.count - 1

    def link(self, index: list[int]) -> None:
        """The next step's row r continues this step's row index[r] (rows added after these,
        new sentences, continue none)."""
        self.parents[self.count] = index

    def path(self, step: int, row: int, start: int = 0) -> list[tuple[int, int]]:
        """(step, row) of each step from ``start`` to ``step`` that ``row`` of ``step`` came
        through."""
        rows = [row]
        for u in range(step, start, -1):
            rows.append(self.parents[u][rows[-1]])
        return list(zip(range(start, step + 1), rows[::-1], strict=True))

    def forget_before(self, step: int) -> None:
        """Drop the steps before ``step``: no row still to be walked back began before it."""
        for old in range(self.first, step):
            self.steps.pop(old, None)
            self.parents.pop(old, None)
        self.first = max(self.first, step)


class _Traces(StepRecord):
    """Per-step traces and back-pointers, so a hypothesis's trace is rebuilt only at the end."""

    def __init__(self, enabled: bool):
        super().__init__()
        self.enabled = enabled

    def record(self, trace: tuple[Tensor, ...]) -> int:
        return super().record(trace) if self.enabled else 0

    def link(self, index: Tensor | None, rows: int = 0) -> None:  # type: ignore[override]
        """The next step's row r continues this step's row index[r] (None: the same rows)."""
        if self.enabled:
            super().link(list(range(rows)) if index is None else index.tolist())

    def resolve(self, hypothesis: Hypothesis) -> Hypothesis:
        if self.enabled and hypothesis._origin is not None:
            path = self.path(*hypothesis._origin)
            hypothesis.trace = [tuple(t[row] for t in self.steps[u]) for u, row in path]
        return hypothesis


def _mask_logits(
    logp: Tensor,
    banned: Sequence[int],
    eos_id: int,
    allow_eos: bool | Tensor,
    last: Tensor | None,
) -> Tensor:
    """Forbid ``banned`` ids, EOS before min_length (``allow_eos``: for every row, or [rows]
    bool), and, where ``last`` [rows] is True with ``force_eos``, everything but EOS, which then
    costs nothing (HF's forced_eos_token_id)."""
    if banned:
        logp.index_fill_(1, torch.tensor(list(banned)), NEG_INF)
    if isinstance(allow_eos, Tensor):
        logp[~allow_eos, eos_id] = NEG_INF
    elif not allow_eos:
        logp[:, eos_id] = NEG_INF
    if last is not None and last.any():
        logp[last] = NEG_INF
        logp[last, eos_id] = 0.0
    return logp


def _max_lengths(max_length: int | Sequence[int], batch: int) -> list[int]:
    lengths = [max_length] * batch if isinstance(max_length, int) else list(max_length)
    if len(lengths) != batch or min(lengths, default=1) < 1:
        raise ValueError(f"max_length must be >= 1 for each of the {batch} rows, not {max_length}")
    return lengths


def beam_search(
    step: Step,
    cache: Any,
    tokens: Tensor,
    *,
    beam_size: int,
    eos_id: int,
    max_length: int | Sequence[int],
    min_length: int = 0,
    length_penalty: LengthPenalty = LengthPenalty(),
    n_best: int = 1,
    banned: Sequence[int] = (),
    force_eos: bool = False,
    keep_trace: bool = False,
    early_stopping: bool = False,
) -> list[list[Hypothesis]]:
    """Beam search from ``tokens`` [B, t0]; returns, per row, its n_best hypotheses, best first.

    ``banned``: ids never generated (e.g. padding). ``max_length``: one value, or one per row.
    ``force_eos``: the token at max_length is EOS (fairseq; HF's forced_eos_token_id, which
    Marian models set); as in HF, the forced EOS adds nothing to the score.
    ``keep_trace``: rebuild each hypothesis's per-step ``Stepped.trace``.
    ``early_stopping``: a sentence stops as soon as it holds K finished hypotheses (see above).
    """
    if not 1 <= n_best <= beam_size:
        raise ValueError(f"n_best must be between 1 and beam_size={beam_size}, not {n_best}")
    batch, K = tokens.shape[0], beam_size
    max_len = _max_lengths(max_length, batch)
    finished: list[list[Hypothesis]] = [[] for _ in range(batch)]  # best first, at most K
    traces = _Traces(keep_trace)
    sentences = list(range(batch))  # state.sentences as a list, for the bookkeeping
    state = BeamState(
        sentences=torch.arange(batch),
        tokens=tokens.new_empty(batch, 0),
        scores=torch.zeros(batch, 1),
        cache=cache,
    )
    inputs, t = tokens, 0
    while True:
        out = step(inputs, state.cache)
        n, k = state.scores.shape
        lp = length_penalty(t + 1)
        at_max_list = [t + 1 >= max_len[s] for s in sentences]
        at_max = torch.tensor(at_max_list).unsqueeze(1)  # [n, 1]
        last = at_max.expand(n, k).reshape(-1) if force_eos else None
        logits = out.logits.float()  # [n*k, V]
        V = logits.shape[-1]
        top_scores, top_index = _best_candidates(
            logits, state.scores, min(2 * K, k * V), banned, eos_id, t >= min_length, last
        )  # [n, 2K], best first
        top_tokens = top_index % V
        top_rows = top_index // V + torch.arange(n).unsqueeze(1) * k  # rows of this step
        stops = (top_tokens == eos_id) | at_max  # [n, 2K]
        traces.record(out.trace)

        # Candidates ranked within the first K that stop become finished hypotheses.
        new_finished = stops[:, :K] & (top_scores[:, :K] > NEG_INF)
        if new_finished.any():
            history = state.tokens.tolist()
            rows, scores, ends = (x[:, :K].tolist() for x in (top_rows, top_scores, top_tokens))
            for i, j in new_finished.nonzero().tolist():
                row, log_prob = rows[i][j], scores[i][j]
                hypothesis = Hypothesis(
                    history[row] + [ends[i][j]], log_prob / lp, log_prob, _origin=(t, row)
                )
                _add_finished(finished[sentences[i]], hypothesis, K)

        # The K best candidates that did not stop are the next beams; a sentence goes on while
        # its best beam, scored as if it ended now, could still beat its worst finished one.
        keep = top_scores.masked_fill(stops, NEG_INF).topk(K, dim=1).indices  # [n, K]
        scores = top_scores.gather(1, keep)
        live = []
        for i, best in enumerate(scores[:, 0].tolist()):
            done = finished[sentences[i]]
            live.append(
                not at_max_list[i]
                and best > NEG_INF
                and (len(done) < K or not early_stopping and best / lp > done[-1].score)
            )
        if not any(live):
            break
        rows = top_rows.gather(1, keep)
        next_tokens = top_tokens.gather(1, keep)
        if not all(live):
            alive = torch.tensor(live)
            scores, rows, next_tokens = scores[alive], rows[alive], next_tokens[alive]
            sentences = [s for s, on in zip(sentences, live, strict=True) if on]
        index = rows.view(-1)
        inputs = next_tokens.view(-1, 1)
        state = BeamState(
            torch.tensor(sentences),
            torch.cat([state.tokens.index_select(0, index), inputs], dim=1),
            scores,
            out.cache.reorder(index),
        )
        traces.link(index)
        t += 1
    return [[traces.resolve(h) for h in done[:n_best]] for done in finished]


def _best_candidates(
    logits: Tensor,
    scores: Tensor,
    count: int,
    banned: Sequence[int],
    eos_id: int,
    allow_eos: bool | Tensor,
    last: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """The ``count`` best continuations of each sentence's k beams, best first: their scores
    (the beam's score + the token's log-probability) [n, count] and their indices beam · V + token
    into the sentence's k·V candidates. (In one native pass where it can: heedful.native.)"""
    if native.handles(logits):
        return native.beam_candidates(
            logits, scores, count, banned=banned, eos_id=eos_id, allow_eos=allow_eos, last=last
        )
    n, k = scores.shape
    logp = _mask_logits(logits.log_softmax(dim=-1), banned, eos_id, allow_eos, last)
    candidates = logp.view(n, k, -1).add_(scores.unsqueeze(-1)).view(n, -1)  # [n, k·V]
    return top_k(candidates, count)


def greedy_choice(
    logits: Tensor,
    log_probs: Tensor,
    banned: Sequence[int],
    eos_id: int,
    allow_eos: bool | Tensor,
    last: Tensor | None,
) -> tuple[Tensor, Tensor]:
    """Greedy search's step: each row's most probable token [n] from ``logits`` [n, V], masked
    as ``_mask_logits`` says, and its log-probability added to the row's ``log_probs`` [n]: beam
    search's candidates for one beam, one best each (one native pass where it can)."""
    scores, chosen = _best_candidates(
        logits, log_probs.unsqueeze(1), 1, banned, eos_id, allow_eos, last
    )
    return chosen.squeeze(1), scores.squeeze(1)


def top_k(x: Tensor, k: int, block: int = 64) -> tuple[Tensor, Tensor]:
    """``x.topk(k, dim=1)`` (sorted) for rows much longer than k, several times faster on CPU:
    only the k blocks of ``block`` values with the largest maxima can hold the k largest."""
    n, m = x.shape
    if m < 8 * block * k:
        return x.topk(k, dim=1)
    if m % block:
        x = torch.nn.functional.pad(x, (0, block - m % block), value=NEG_INF)
    blocks = x.view(n, -1, block)
    best_blocks = blocks.amax(dim=-1).topk(k, dim=1).indices  # [n, k]
    gathered = blocks.gather(1, best_blocks.unsqueeze(-1).expand(n, k, block)).view(n, -1)
    values, within = gathered.topk(k, dim=1)
    index = best_blocks.gather(1, within // block) * block + within % block
    return values, index.clamp_(max=m - 1)  # a -inf from the padding points at a real token


def _add_finished(done: list[Hypothesis], hypothesis: Hypothesis, size: int) -> None:
    """Insert into a best-first list, keeping at most ``size`` (a later equal score goes after)."""
    position = len(done)
    while position and done[position - 1].score < hypothesis.score:
        position -= 1
    if position < size:
        done.insert(position, hypothesis)
        del done[size:]


def greedy_search(
    step: Step,
    cache: Any,
    tokens: Tensor,
    *,
    eos_id: int,
    max_length: int | Sequence[int],
    min_length: int = 0,
    banned: Sequence[int] = (),
    force_eos: bool = False,
    keep_trace: bool = False,
) -> list[Hypothesis]:
    """The most probable next token at every step, from ``tokens`` [B, t0]; one per row.
    Arguments as for ``beam_search``."""
    return _one_path(
        step, cache, tokens, None, eos_id=eos_id,
        max_length=max_length, min_length=min_length, banned=banned, force_eos=force_eos,
        keep_trace=keep_trace,
    )  # fmt: skip


def sample(
    step: Step,
    cache: Any,
    tokens: Tensor,
    *,
    eos_id: int,
    max_length: int | Sequence[int],
    min_length: int = 0,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
    banned: Sequence[int] = (),
    generator: torch.Generator | None = None,
    force_eos: bool = False,
    keep_trace: bool = False,
) -> list[Hypothesis]:
    """Draw each next token from softmax(logits / temperature), restricted to the ``top_k`` most
    probable tokens (0: all) and to the smallest set whose probability reaches ``top_p``."""
    if temperature <= 0:
        raise ValueError(
            f"temperature must be > 0, not {temperature} (greedy search: the most probable token)"
        )
    if not 0 < top_p <= 1:
        raise ValueError(f"top_p must be in (0, 1], not {top_p}")
    if top_k < 0:
        raise ValueError(f"top_k must be >= 0 (0: every token), not {top_k}")

    def choose(logp: Tensor) -> Tensor:
        logits = logp / temperature
        if 0 < top_k < logits.shape[-1]:
            kth = logits.topk(top_k, dim=-1).values[:, -1:]
            logits = logits.masked_fill(logits < kth, NEG_INF)
        if top_p < 1:
            sorted_logits, order = logits.sort(dim=-1, descending=True)
            probs = sorted_logits.softmax(dim=-1)
            # drop a token when the tokens before it already reach top_p (the first always stays)
            drop = probs.cumsum(dim=-1) - probs >= top_p
            logits = logits.scatter(1, order, sorted_logits.masked_fill(drop, NEG_INF))
        return torch.multinomial(logits.softmax(dim=-1), 1, generator=generator).squeeze(1)

    return _one_path(
        step, cache, tokens, choose, eos_id=eos_id, max_length=max_length,
        min_length=min_length, banned=banned, force_eos=force_eos, keep_trace=keep_trace,
    )  # fmt: skip


def _one_path(
    step: Step,
    cache: Any,
    tokens: Tensor,
    choose: Callable[[Tensor], Tensor] | None,
    *,
    eos_id: int,
    max_length: int | Sequence[int],
    min_length: int,
    banned: Sequence[int],
    force_eos: bool,
    keep_trace: bool,
) -> list[Hypothesis]:
    """Greedy search (``choose`` None) and sampling: one hypothesis per row; finished rows
    leave the batch."""
    batch = tokens.shape[0]
    max_len = _max_lengths(max_length, batch)
    results: list[Hypothesis | None] = [None] * batch
    traces = _Traces(keep_trace)
    rows = list(range(batch))  # each live row's index in the caller's batch
    generated = tokens.new_empty(batch, 0)
    log_probs = torch.zeros(batch)
    inputs, t = tokens, 0
    while True:
        out = step(inputs, cache)
        at_max = torch.tensor([t + 1 >= max_len[r] for r in rows])  # [n]
        last = at_max if force_eos else None
        if choose is None:
            chosen, log_probs = greedy_choice(
                out.logits.float(), log_probs, banned, eos_id, t >= min_length, last
            )
        else:
            logp = out.logits.float().log_softmax(dim=-1)  # [n, V]
            logp = _mask_logits(logp, banned, eos_id, t >= min_length, last)
            chosen = choose(logp)  # [n]
            log_probs = log_probs + logp.gather(1, chosen.unsqueeze(1)).squeeze(1)
        generated = torch.cat([generated, chosen.unsqueeze(1)], dim=1)
        traces.record(out.trace)
        stops = (chosen == eos_id) | at_max
        if stops.any():
            for i in stops.nonzero().flatten().tolist():
                results[rows[i]] = traces.resolve(
                    Hypothesis(
                        generated[i].tolist(),
                        float(log_probs[i]),
                        float(log_probs[i]),
                        _origin=(t, i),
                    )  # fmt: skip
                )
            if stops.all():
                break
            live = (~stops).nonzero().flatten()
            rows = [rows[i] for i in live.tolist()]
            generated, log_probs = generated[live], log_probs[live]
            chosen = chosen[live]
            cache = out.cache.reorder(live)
            traces.link(live)
        else:
            cache = out.cache
            traces.link(None, len(rows))
        inputs, t = chosen.unsqueeze(1), t + 1
    return results  # type: ignore[return-value]
