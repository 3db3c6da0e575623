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

Watched words. A sum over all pieces cannot tell a dropped noun from an article the target
language has no word for: the guided head, trained on eflomal's links, leaves many function
words unattended, and β stays small. So the caller may name, per source, the words whose loss
matters (``watched``: each word's piece positions; heedful.dropped watches the words the model
read rarely enough to carry meaning): a hypothesis that attends to one of them less than
``COVERED`` in total (its most attended piece) has *dropped* it. Among the hypotheses scored
within ``MARGIN`` of the best, those dropping fewer watched words come first ("The house was
carried away by the flood." -> "La maison a été emportée par la crue.", not "... laissée par la
crue.", 0.15 better scored). Further off, the better-scored stays: a hypothesis 0.4 or more
worse that keeps the word is as often worse for it ("It would mean a great deal to me if you
would stay." -> "Cela signifie comme si tu restais beaucoup avec moi.").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from torch import Tensor

from heedful.search import Hypothesis

FLOOR = 1e-3  # a piece never attended to costs β · log(0.001), not -inf
COVERED = 0.1  # a watched word attended to less than this in total is dropped (chosen on dev)
MARGIN = 0.3  # how much worse scored a hypothesis dropping fewer watched words may be (on dev)


def penalty(attention: Tensor, beta: float) -> float:
    """β · Σ_i log(min(Σ_t a[t, i], 1)) of one hypothesis's weights [T, S] (S: its source's
    pieces with end-of-sentence, the last)."""
    attended = attention.float().sum(0)[:-1]  # [S - 1]
    return beta * attended.clamp(min=FLOOR, max=1.0).log().sum().item()


def dropped(attention: Tensor, watched: Sequence[Sequence[int]]) -> list[int]:
    """Which of the ``watched`` words (each its pieces' positions in the source) a hypothesis
    whose weights are ``attention`` [T, S] has dropped: attended to less than ``COVERED`` in
    total by its most attended piece."""
    if not watched:
        return []
    attended = attention.float().sum(0).tolist()
    return [w for w, pieces in enumerate(watched) if max(attended[p] for p in pieces) < COVERED]


def rescored(
    hypotheses: Sequence[Hypothesis], beta: float, watched: Sequence[Sequence[int]] = ()
) -> list[Hypothesis]:
    """The hypotheses of one source, each score plus its coverage penalty, best first (their
    ``attention`` must be set); with ``watched`` words, those within ``MARGIN`` of the best
    score that drop fewer of them first. A hypothesis keeps its ``log_prob``."""
    scored = [replace(h, score=h.score + penalty(h.attention, beta)) for h in hypotheses]
    if not watched or not scored:
        return sorted(scored, key=lambda h: -h.score)
    near = max(h.score for h in scored) - MARGIN

    def rank(h: Hypothesis) -> tuple[int, float]:  # words dropped (all, if too far off), score
        lost = len(dropped(h.attention, watched)) if h.score >= near else len(watched)
        return lost, -h.score

    return sorted(scored, key=rank)
