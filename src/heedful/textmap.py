"""Character offsets through text edits: where a span of one text lies in an edited form of it.

``Translator.translate`` edits a sentence on its way to the model (URLs replaced by placeholders,
capitals lowered, unreadable characters taken out, Unicode normalised) and the model's
translation on its way back (carried words put back, capitals, placeholders restored). A word
alignment between the model's two texts is shown on the user's two, so each edit is recorded as a
``TextMap``: pieces of the two texts that stand for each other, in order. A piece of equal
length on both sides maps character to character (the same characters, or recased); any other
piece (a URL and its placeholder) maps as a whole.
"""

from __future__ import annotations

import difflib
import re
from bisect import bisect_right
from collections.abc import Sequence

Span = tuple[int, int]  # [start, end) in a text
Piece = tuple[int, int, int, int]  # (start in a, end in a, start in b, end in b)


def overlap(a: Span, b: Span) -> bool:
    """Whether two spans share a character."""
    return a[0] < b[1] and b[0] < a[1]


class TextMap:
    """Offsets in a text ``a`` -> offsets in its edited form ``b``, from pieces that cover both
    texts in order (a piece may be empty on one side: an insertion or a deletion)."""

    def __init__(self, pieces: Sequence[Piece] | None):
        """``pieces`` None: the identity (the texts are the same), whatever their length."""
        self.pieces = None if pieces is None else tuple(pieces)
        # the pieces non-empty in a, by start: the ones a position of a can fall in
        self._found = [p for p in self.pieces or () if p[1] > p[0]]
        self._starts = [p[0] for p in self._found]

    @classmethod
    def identity(cls) -> TextMap:
        return IDENTITY

    @classmethod
    def diff(cls, a: str, b: str) -> TextMap:
        """The pieces alike and different between ``a`` and ``b``, as ``difflib`` finds them:
        first whole words (runs without whitespace), so that a word put in or taken out moves
        no other, then the characters between the words found in both."""
        if a == b:
            return IDENTITY
        a_words, b_words = _words(a), _words(b)
        matcher = difflib.SequenceMatcher(
            None, [a[s:e] for s, e in a_words], [b[s:e] for s, e in b_words], autojunk=False
        )
        same = [(a_words[i + k], b_words[j + k])
                for i, j, n in matcher.get_matching_blocks() for k in range(n)]  # fmt: skip
        pieces: list[Piece] = []
        at_a = at_b = 0
        for (a0, a1), (b0, b1) in [*same, ((len(a), len(a)), (len(b), len(b)))]:
            pieces += _between(a, b, (at_a, a0), (at_b, b0))
            if a1 > a0:
                pieces.append((a0, a1, b0, b1))
            at_a, at_b = a1, b1
        return cls(pieces)

    @classmethod
    def recased(cls, a: str, b: str) -> TextMap:
        """``b`` is ``a`` with some letters' case changed: character to character, unless a
        change of case changed a length ("ß" -> "SS"), then as ``diff`` of the lowered texts."""
        if len(a) == len(b):
            return IDENTITY
        lower_a, lower_b = a.lower(), b.lower()
        if len(lower_a) == len(a) and len(lower_b) == len(b):
            return cls.diff(lower_a, lower_b)
        return cls.diff(a, b)

    @classmethod
    def replacing(cls, a: str, replacements: Sequence[tuple[Span, str]]) -> tuple[str, TextMap]:
        """``a`` with each span replaced (spans in order, not overlapping), and the map."""
        out, pieces, at, length = [], [], 0, 0
        for (start, end), text in replacements:
            if start < at or end < start:
                raise ValueError(f"replacements must be in order and apart: {start}:{end}")
            pieces.append((at, start, length, length + start - at))
            length += start - at
            pieces.append((start, end, length, length + len(text)))
            length += len(text)
            out += [a[at:start], text]
            at = end
        pieces.append((at, len(a), length, length + len(a) - at))
        out.append(a[at:])
        return "".join(out), cls(pieces)

    def inverse(self) -> TextMap:
        """Offsets in ``b`` -> offsets in ``a``."""
        if self.pieces is None:
            return self
        return TextMap([(b0, b1, a0, a1) for a0, a1, b0, b1 in self.pieces])

    def map(self, span: Span) -> Span:
        """Where the characters of ``span`` (non-empty, in ``a``) are in ``b``: a span that ends
        inside a piece mapped as a whole takes in the whole piece."""
        if self.pieces is None:
            return span
        start, end = span
        a0, a1, b0, b1 = self._piece_at(start)
        new_start = b0 + (start - a0) if a1 - a0 == b1 - b0 else b0
        a0, a1, b0, b1 = self._piece_at(max(start, end - 1))
        new_end = b0 + (end - a0) if a1 - a0 == b1 - b0 else b1
        return new_start, max(new_start, new_end)

    def _piece_at(self, position: int) -> Piece:
        if not self._found:
            return (0, 0, 0, 0)
        k = max(0, bisect_right(self._starts, position) - 1)
        return self._found[k]


IDENTITY = TextMap(None)


def _words(text: str) -> list[Span]:
    return [m.span() for m in re.finditer(r"\S+", text)]


def _between(a: str, b: str, in_a: Span, in_b: Span) -> list[Piece]:
    """Pieces for ``a[in_a]`` against ``b[in_b]``: one, if either is only whitespace, else
    character by character."""
    (a0, a1), (b0, b1) = in_a, in_b
    if a0 == a1 and b0 == b1:
        return []
    if not a[a0:a1].strip() or not b[b0:b1].strip():
        return [(a0, a1, b0, b1)]
    matcher = difflib.SequenceMatcher(None, a[a0:a1], b[b0:b1], autojunk=False)
    return [(a0 + i1, a0 + i2, b0 + j1, b0 + j2) for _, i1, i2, j1, j2 in matcher.get_opcodes()]


def through(maps: Sequence[TextMap], span: Span) -> Span:
    """``span`` carried through each map in turn."""
    for text_map in maps:
        span = text_map.map(span)
    return span
