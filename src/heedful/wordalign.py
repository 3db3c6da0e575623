"""Statistical word alignment with eflomal, for guided-alignment training and as a benchmark peer.

    text -> words (``\\w+`` runs and single punctuation marks, with their character spans)
         -> eflomal, both directions (unsupervised, lowercased) -> symmetrised links
         -> links between subword pieces (``piece_links``): what guided alignment supervises

eflomal (Östling and Tiedemann, 2016) is a Bayesian IBM-style aligner; it learns from the
corpus it aligns, so the more sentence pairs it sees the better. A link ``(i, j)`` joins source
word i and target word j, both from 0, as in ``heedful.explain.align``.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from pathlib import Path

Link = tuple[int, int]
Span = tuple[int, int]  # [start, end) in characters

# a word: letters and digits (with an apostrophe glued to the word before it: French l', j');
# any other visible character stands alone
_WORD = re.compile(r"\w+'?|[^\w\s]")


def words_with_spans(text: str) -> tuple[list[str], list[Span]]:
    """The words eflomal aligns, and where each is in ``text``."""
    found = list(_WORD.finditer(text))
    return [m.group() for m in found], [m.span() for m in found]


def eflomal_links(
    sources: Sequence[Sequence[str]],
    targets: Sequence[Sequence[str]],
    *,
    symmetrize_with: str = "grow-diag-final-and",
) -> list[set[Link]]:
    """Align tokenised sentence pairs with eflomal in both directions and symmetrise.

    Words are lowercased for eflomal; empty sentences get no links. eflomal samples, and its C
    code seeds itself (it takes no seed): two runs may give slightly different links, which is
    why a training run keeps the links it trained on."""
    forward, reverse = eflomal_directions(sources, targets)
    return [
        symmetrize(f, r, len(s), len(t), symmetrize_with) if s and t else set()
        for s, t, f, r in zip(sources, targets, forward, reverse, strict=True)
    ]


def eflomal_directions(
    sources: Sequence[Sequence[str]], targets: Sequence[Sequence[str]]
) -> tuple[list[set[Link]], list[set[Link]]]:
    """eflomal's links source -> target and target -> source (both as (source, target)), from
    one run, before symmetrisation."""
    import eflomal  # a compiled extension: imported only when alignments are computed

    with tempfile.TemporaryDirectory(prefix="heedful-eflomal-") as tmp:
        forward, reverse = Path(tmp) / "fwd", Path(tmp) / "rev"
        eflomal.Aligner().align(
            [" ".join(w.lower() for w in s) or "_" for s in sources],
            [" ".join(w.lower() for w in t) or "_" for t in targets],
            links_filename_fwd=str(forward),
            links_filename_rev=str(reverse),
            quiet=True,
        )
        fwd = [read_pharaoh(line) for line in forward.read_text().splitlines()]
        rev = [read_pharaoh(line) for line in reverse.read_text().splitlines()]
    if len(fwd) != len(sources) or len(rev) != len(sources):
        raise RuntimeError(
            f"eflomal gave {len(fwd)} and {len(rev)} alignments for {len(sources)} sentence pairs"
        )
    return fwd, rev


def read_pharaoh(line: str) -> set[Link]:
    """'0-0 1-2' -> {(0, 0), (1, 2)} (eflomal's output, a run's cached links)."""
    links = set()
    for item in line.split():
        i, _, j = item.partition("-")
        links.add((int(i), int(j)))
    return links


def write_pharaoh(links: set[Link]) -> str:
    """{(1, 2), (0, 0)} -> '0-0 1-2'."""
    return " ".join(f"{i}-{j}" for i, j in sorted(links))


def symmetrize(
    forward: set[Link], reverse: set[Link], n_source: int, n_target: int, method: str
) -> set[Link]:
    """Combine the two directions' links (both as (source, target)): ``intersection``,
    ``union``, or ``grow-diag-final-and`` (Koehn et al., 2005): the intersection, grown by
    neighbouring (diagonals included) union links that align a word not aligned yet, then the
    union links whose two words are both still unaligned."""
    if method == "intersection":
        return forward & reverse
    if method == "union":
        return forward | reverse
    if method != "grow-diag-final-and":
        raise ValueError(f"symmetrize: unknown method {method!r}")
    union = forward | reverse
    links = set(forward & reverse)
    aligned_s = {i for i, _ in links}
    aligned_t = {j for _, j in links}
    neighbours = [(-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1)]
    grown = True
    while grown:
        grown = False
        for i, j in sorted(links):
            for di, dj in neighbours:
                k, m = i + di, j + dj
                if (
                    (k, m) in union
                    and (k, m) not in links
                    and (k not in aligned_s or m not in aligned_t)
                ):
                    links.add((k, m))
                    aligned_s.add(k)
                    aligned_t.add(m)
                    grown = True
    for i, j in sorted(union - links):  # final-and
        if i not in aligned_s and j not in aligned_t:
            links.add((i, j))
            aligned_s.add(i)
            aligned_t.add(j)
    return {(i, j) for i, j in links if 0 <= i < n_source and 0 <= j < n_target}


def piece_spans(surfaces: Sequence[str]) -> list[Span]:
    """The character span of each piece, from the pieces' surface strings in order (they add up
    to the encoded text; a piece's leading space is not part of its span)."""
    spans, position = [], 0
    for surface in surfaces:
        start = position + (len(surface) - len(surface.lstrip(" ")))
        position += len(surface)
        spans.append((start, position))
    return spans


def word_of_pieces(piece: Sequence[Span], words: Sequence[Span]) -> list[int]:
    """For each piece, the word it overlaps (-1 for none: a lone space)."""
    out = []
    w = 0
    for start, end in piece:
        while w < len(words) and words[w][1] <= start:
            w += 1
        out.append(w if w < len(words) and words[w][0] < end else -1)
    return out


def piece_links(
    links: set[Link], source_words: Sequence[int], target_words: Sequence[int]
) -> list[tuple[int, int]]:
    """Word links -> (source piece, target piece) links: every piece of a linked source word with
    every piece of the target word it is linked to."""
    by_target: dict[int, list[int]] = {}
    for i, j in links:
        by_target.setdefault(j, []).append(i)
    source_pieces: dict[int, list[int]] = {}
    for p, w in enumerate(source_words):
        source_pieces.setdefault(w, []).append(p)
    out = []
    for q, w in enumerate(target_words):
        for i in by_target.get(w, ()):
            out += [(p, q) for p in source_pieces.get(i, ())]
    return sorted(out)
