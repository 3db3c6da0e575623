"""Word alignments from cross-attention, in Pharaoh format, and their alignment error rate.

A link ``i-j`` joins source word i and target word j, both counted from 0 over the words of the
text (``</s>`` is not a word). Each target word is linked to the source word its cross-attention
weighs most, at word level (``heedful.explain.words``), in one layer, averaged over its heads
(Garg et al., 2019, "Jointly Learning to Align and Translate with Transformer Models", take the
same argmax from the penultimate layer; ``best_layer`` picks the layer from a gold set instead).
Other ways to align (shift-attention, chosen heads, erasure) and the one a model directory
records: ``heedful.explain.alignment_methods``.

Gold files have one line per sentence pair, whitespace-separated links: ``i-j`` for a sure link,
``i?j`` or ``ipj`` for a possible one (as in awesome-align's and SimAlign's gold sets), with i
a source word and j a target word, counted from 0 or from 1 (``base``: the Hansards gold of
Och and Ney counts from 1). Sentences are split into words at whitespace. A link that is not of
this form, or that points past its sentence's words, is refused with the file and line. The
alignment error rate (Och and Ney, 2003), over the whole set, with the sure links S counted as
possible too (S ⊆ P):

    AER = 1 - (|A ∩ S| + |A ∩ P|) / (|A| + |S|)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from heedful.attended import Attended
from heedful.explain.words import STANDALONE

Link = tuple[int, int]  # (source word, target word)


@dataclass
class Gold:
    """One sentence pair's gold links; ``possible`` includes every sure link."""

    sure: set[Link]
    possible: set[Link]


def penultimate(n_layers: int) -> int:
    """The layer to align from without a gold set (0-based): the penultimate, as Garg et al."""
    return max(0, n_layers - 2)


def align(words: Attended, layer: int) -> set[Link]:
    """Links of a word-level Attended (``to_words``) from one layer's mean cross-attention."""
    if words.cross is None:
        raise ValueError("alignments need cross-attention: this model has none")
    if not 0 <= layer < words.cross.shape[0]:
        raise ValueError(f"the model has layers 1..{words.cross.shape[0]}, not {layer + 1}")
    weights = words.cross[layer].float().mean(0)  # [T, S]
    sources = [k for k, w in enumerate(words.source_pieces) if w not in STANDALONE]
    targets = [k for k, w in enumerate(words.target_pieces) if w not in STANDALONE]
    if not sources:
        return set()
    links = set()
    for j, row in enumerate(targets):
        best = int(weights[row, sources].argmax())
        links.add((best, j))
    return links


def format_links(links: set[Link]) -> str:
    """'0-0 1-2 2-1': sorted by source word, then target word."""
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


_LINK = re.compile(r"([0-9]+)([-?p])([0-9]+)")  # i-j, i?j, ipj


def parse_links(
    line: str, where: str = "", *, base: int = 0, sizes: tuple[int, int] | None = None
) -> Gold:
    """A gold line: ``i-j`` sure, ``i?j`` or ``ipj`` possible, indices counted from ``base``
    (0 or 1); returned 0-based. ``sizes``: the pair's (source words, target words), to refuse
    links beyond them. ``where`` (file, line) starts every error message."""
    if base not in (0, 1):
        raise ValueError(f"gold indices count from 0 or 1, not {base}")
    sure, possible = set(), set()
    for item in line.split():
        match = _LINK.fullmatch(item)
        if match is None or min(int(match[1]), int(match[3])) < base:
            raise ValueError(
                f"{where}: {item!r} is not a link; write i-j (sure) or i?j / ipj (possible), "
                f"with word indices counted from {base}"
            )
        link = (int(match[1]) - base, int(match[3]) - base)
        if sizes is not None and not (link[0] < sizes[0] and link[1] < sizes[1]):
            last = (sizes[0] - 1 + base, sizes[1] - 1 + base)
            raise ValueError(
                f"{where}: {item!r} points past the sentence pair's words: the source has "
                f"{sizes[0]} words ({base}..{last[0]}), the target {sizes[1]} ({base}..{last[1]})"
            )
        possible.add(link)
        if match[2] == "-":
            sure.add(link)
    return Gold(sure, possible)


def read_gold(
    path: str | Path, *, base: int = 0, sizes: Sequence[tuple[int, int]] | None = None
) -> list[Gold]:
    """Every line of a gold file (``parse_links``); ``sizes``: each pair's (source words, target
    words), one per line, to check the links against."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"gold alignment file not found: {path}")
    lines = path.read_text(encoding="utf-8").splitlines()
    if sizes is not None and len(sizes) != len(lines):
        raise ValueError(f"{path} has {len(lines)} lines but there are {len(sizes)} pairs")
    return [
        parse_links(
            line, f"{path}, line {n}", base=base, sizes=None if sizes is None else sizes[n - 1]
        )
        for n, line in enumerate(lines, 1)
    ]


def word_counts(sources: Sequence[str], targets: Sequence[str]) -> list[tuple[int, int]]:
    """Each pair's (source words, target words), words split at whitespace as gold files count."""
    return [(len(s.split()), len(t.split())) for s, t in zip(sources, targets, strict=True)]


def aer(predicted: Sequence[set[Link]], gold: Sequence[Gold]) -> float:
    """The alignment error rate of a whole set (lower is better; 0 is perfect)."""
    if len(predicted) != len(gold):
        raise ValueError(f"{len(predicted)} alignments but {len(gold)} gold lines")
    a_and_s = a_and_p = n_a = n_s = 0
    for links, g in zip(predicted, gold, strict=True):
        a_and_s += len(links & g.sure)
        a_and_p += len(links & (g.possible | g.sure))
        n_a += len(links)
        n_s += len(g.sure)
    if n_a + n_s == 0:
        return 0.0
    return 1.0 - (a_and_s + a_and_p) / (n_a + n_s)


def best_layer(words: Sequence[Attended], gold: Sequence[Gold]) -> tuple[int, list[float]]:
    """The layer whose alignments have the lowest AER on the gold set, and every layer's AER."""
    if not words:
        raise ValueError("no sentences to choose a layer on")
    n_layers = words[0].cross.shape[0] if words[0].cross is not None else 0
    scores = [aer([align(w, layer) for w in words], gold) for layer in range(n_layers)]
    if not scores:
        raise ValueError("alignments need cross-attention: this model has none")
    return min(range(n_layers), key=scores.__getitem__), scores
