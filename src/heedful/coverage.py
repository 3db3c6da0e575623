"""The coverage penalty (Wu et al., 2016, "Google's Neural Machine Translation System", §7): a
translation that leaves source words unattended loses to one that covers them.

Beam search scores a hypothesis by its length-normalised log-probability, which a short
translation that silently drops a phrase can win ("¿Podemos vernos el jueves a las 14:00?" ->
"Can we see each other at 14:00?", where the second hypothesis has "on Thursday"). Each finished
hypothesis of a sentence is rescored

    score + β · Σ_i log(min(Σ_t a[t, i], 1))

over the source's pieces i (end-of-sentence left out), where a[t, i] is the aligning heads'
cross-attention of target token t (``heedful.aligning``: the heads the model directory records
for word links, the guided head in heedful's bundled models); a piece the translation attends
to less than once in total costs log of its share, floored at ``FLOOR``. As OpenNMT-py's
``--coverage_penalty wu``, but applied to the beam's finished hypotheses (all ``beam_size`` of
them are kept for it) rather than at every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from torch import Tensor

from heedful.search import Hypothesis

FLOOR = 1e-3  # a piece never attended to costs β · log(0.001), not -inf


def penalty(attention: Tensor, beta: float) -> float:
    """β · Σ_i log(min(Σ_t a[t, i], 1)) of one hypothesis's weights [T, S] (S: its source's
    pieces with end-of-sentence, the last)."""
    attended = attention.float().sum(0)[:-1]  # [S - 1]
    return beta * attended.clamp(min=FLOOR, max=1.0).log().sum().item()


def rescored(hypotheses: Sequence[Hypothesis], beta: float) -> list[Hypothesis]:
    """The hypotheses of one source, each score plus its coverage penalty, best first (their
    ``attention`` must be set). A hypothesis keeps its ``log_prob``."""
    scored = [replace(h, score=h.score + penalty(h.attention, beta)) for h in hypotheses]
    return sorted(scored, key=lambda h: -h.score)
