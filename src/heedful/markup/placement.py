"""Where the inline elements of a source sentence go in its translation, by word alignment.

A sentence with tags inside (``Haz clic <a href="/x">aquí</a> para seguir.``) is translated as
plain text, its elements kept aside as ``Inline`` nodes: each the span of the text it enclosed,
and its children. The word links of the translation (``WordLink``s, reduced to pairs of spans)
then say where each element goes:

- an element around words goes around the target words aligned to them, as one contiguous span
  from the first to the last (``Click <a href="/x">here</a> to continue.``); of a word's
  links, those to the same word only if there are some (a name linked to more than itself),
  and one to punctuation only if there is nothing else;
- an element whose words got no link goes around the same text if the translation holds it (a
  name kept as it was), else around the words at the same relative place;
- an element around no text (``<img>``, ``<br>``-like atoms, a comment) goes after the target
  word aligned to the source word before it (or before the one aligned to the word after it);
- the result is a tree again: a child stays inside its parent, siblings do not overlap (an
  element keeps clear of the words aligned to a sibling's words where it can, and a later
  sibling takes the free part of its span that holds most of its words, or none: it is then
  left empty in place), and no boundary falls inside a span that must stay whole (a
  placeholder). Nothing is ever dropped.

``insert_missing`` first puts back what the model lost and must be there (a placeholder, a
symbol written as an entity): after the target word aligned to the source word before it; and
drops what the model repeated.

Everything here works on strings and spans only (``heedful.markup.document`` does the HTML).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from heedful.textmap import Span

Pair = tuple[Span, Span]  # (source span, target span): a word link
SPACES = "\u00a0\u2009\u202f\u2007"  # written as entities, lost to the tokenizer's normalisation
_PUNCTUATION = ".,;:!?¡¿…\"'()[]{}«»“”‘’"


@dataclass
class Inline:
    """An element of the source sentence: the span of text it encloses, its children, and where
    it goes in the translation (``place`` fills ``target``); ``element`` is the caller's."""

    source: Span
    children: list[Inline] = field(default_factory=list)
    element: Any = None
    target: Span | None = None

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def place(
    nodes: Sequence[Inline],
    source: str,
    translation: str,
    links: Sequence[Pair],
    whole: Sequence[Span] = (),
) -> None:
    """Fill each node's ``target`` (the module's docstring); ``whole``: spans of the translation
    that no boundary may cut."""
    wanted = _Wanted(source, translation, links, whole)
    _fit(list(nodes), (0, len(translation)), wanted)


def insert_missing(
    source: str, translation: str, links: Sequence[Pair], required: Sequence[tuple[Span, str]]
) -> tuple[str, list[Pair]]:
    """``translation`` with each required string of ``source`` (its span there, and the string)
    that it lacks put back (and any it holds more often than the source dropped), and the links
    moved to match, with a link from each string put back to its place. A space-like character
    (a no-break space) replaces the space nearest its place, if the translation has one."""
    links = list(links)
    for span, text in sorted(required):
        needed = source.count(text)
        while translation.count(text) > needed:  # the model said it twice: the last goes
            translation, links = _remove_last(translation, links, text)
        if translation.count(text) >= needed:
            continue
        at = anchor(span[0], source, translation, links)
        if text in SPACES and (near := _space_near(translation, at)) is not None:
            translation = translation[:near] + text + translation[near + 1 :]
            links.append((span, (near, near + 1)))
            continue
        before = " " if at > 0 and not translation[at - 1].isspace() else ""
        after = " " if at < len(translation) and translation[at].isalnum() else ""
        if text in SPACES:
            before = after = ""
        put = before + text + after
        translation = translation[:at] + put + translation[at:]
        links = [(s, _shift(t, at, len(put))) for s, t in links]
        start = at + len(before)
        links.append((span, (start, start + len(text))))
    return translation, links


def _remove_last(translation: str, links: list[Pair], text: str) -> tuple[str, list[Pair]]:
    """``translation`` without the last ``text`` in it (and a space before it), links moved."""
    start = translation.rindex(text)
    end = start + len(text)
    if start > 0 and translation[start - 1] == " ":
        start -= 1
    elif end < len(translation) and translation[end] == " ":
        end += 1
    kept = [(s, t) for s, t in links if not (start <= t[0] and t[1] <= end)]
    gone = end - start
    moved = [(s, tuple(x - gone if x >= end else min(x, start) for x in t)) for s, t in kept]
    return translation[:start] + translation[end:], moved  # type: ignore[return-value]


def anchor(position: int, source: str, translation: str, links: Sequence[Pair]) -> int:
    """Where a point of the source (between words) goes in the translation: at the start or the
    end if nothing lies before or after it (before the closing punctuation if only punctuation
    follows it), else after the target words aligned to the
    source word before it, else before those of the word after it, else at the same relative
    place, moved to the nearest space."""
    if not source[:position].strip():
        return 0
    if not source[position:].strip():
        return len(translation)
    if not any(c.isalnum() for c in source[position:]):  # "mundo<img>."
        return _before_punctuation(translation)
    before = [(s, t) for s, t in links if s[1] <= position]
    if before:
        last = max(s[1] for s, _ in before)
        return max(t[1] for s, t in before if s[1] == last)
    after = [(s, t) for s, t in links if s[0] >= position]
    if after:
        first = min(s[0] for s, _ in after)
        return min(t[0] for s, t in after if s[0] == first)
    return _to_space(translation, round(position * len(translation) / max(1, len(source))))


# --- what each node wants, then the tree ---------------------------------------------------------


@dataclass
class _Wanted:
    source: str
    translation: str
    links: Sequence[Pair]
    whole: Sequence[Span]

    def linked(self, node: Inline) -> list[Span]:
        """The target spans aligned to the source words inside the node; of a source word's,
        those that are the same word if there are some (a name: "Madrid" linked to "I'm going
        to Madrid tomorrow"), else those with a letter or digit if there are some."""
        s0, s1 = node.source
        by_word: dict[Span, list[Span]] = {}
        for s, t in self.links:
            if s[0] < s1 and s[1] > s0 and t[1] > t[0]:
                by_word.setdefault(s, []).append(t)
        out = []
        for s, found in by_word.items():
            word = self.source[s[0] : s[1]].lower().strip(_PUNCTUATION)
            text = [self.translation[t[0] : t[1]] for t in found]
            same = [
                t for t, w in zip(found, text, strict=True) if w.lower().strip(_PUNCTUATION) == word
            ]
            wordy = [t for t, w in zip(found, text, strict=True) if any(map(str.isalnum, w))]
            out += same or wordy or found
        return out

    def span(self, node: Inline) -> Span:
        """Where the node would go, were it alone."""
        start, end = node.source
        if start == end:
            at = anchor(start, self.source, self.translation, self.links)
            return self.snap((at, at))
        linked = self.linked(node)
        if linked:
            return self.snap((min(t[0] for t in linked), max(t[1] for t in linked)))
        text = self.source[start:end].strip()
        found = re.search(rf"(?<!\w){re.escape(text)}(?!\w)", self.translation) if text else None
        if found:  # the same words, as a name is
            return self.snap(found.span())
        scale = len(self.translation) / max(1, len(self.source))
        at, to = round(start * scale), round(end * scale)
        return self.snap(_words_around(self.translation, at, max(at + 1, to)))

    def snap(self, span: Span) -> Span:
        """``span`` widened so that neither end cuts a span that must stay whole."""
        start, end = span
        for w0, w1 in self.whole:
            if w0 < start < w1:
                start = w0
            if w0 < end < w1:
                end = w1
        return start, max(start, end)


def _fit(nodes: list[Inline], region: Span, wanted: _Wanted) -> None:
    """Place sibling ``nodes`` inside ``region``, apart from each other, then their children."""
    placed: list[Span] = []
    own = [set(wanted.linked(node)) for node in nodes]
    for k, node in enumerate(nodes):
        want = _clip(wanted.span(node), region)
        if want[0] == want[1] or node.source[0] == node.source[1]:
            node.target = (want[0], want[0])
        else:  # a sibling's words (and not its own) are as good as taken
            others = {t for m, words in enumerate(own) if m != k for t in words} - own[k]
            node.target = _free_part(want, region, placed, sorted(own[k]), wanted, others)
        if node.target[1] > node.target[0]:
            placed.append(node.target)
    for node in nodes:  # an empty node inside a sibling moves to that sibling's nearer edge
        at = node.target[0]
        if node.target[0] == node.target[1]:
            for s0, s1 in placed:
                if s0 < at < s1:
                    at = s0 if at - s0 <= s1 - at else s1
            node.target = (at, at)
    for node in nodes:
        _fit(node.children, node.target, wanted)


def _free_part(
    want: Span,
    region: Span,
    placed: list[Span],
    linked: list[Span],
    wanted: _Wanted,
    others: Collection[Span] = (),
) -> Span:
    """The part of ``want`` not taken by a sibling that holds most of the node's aligned words
    (trimmed to them and to no white space at either end), keeping clear of the words aligned
    to a sibling's where it can; empty if nothing is free."""

    def inside(f: Span) -> list[Span]:
        return [t for t in linked if f[0] <= t[0] and t[1] <= f[1]]

    free = _subtract(want, [*placed, *others])
    if not any(inside(f) for f in free):
        free = _subtract(want, placed)
    if not free:  # all taken: empty, at the end of the sibling that took its start
        at = want[0]
        for s0, s1 in placed:
            if s0 <= at < s1:
                at = s1
        return (min(at, region[1]), min(at, region[1]))
    best = max(free, key=lambda f: len(inside(f)))  # the first of the best
    words = inside(best)
    if words:
        best = wanted.snap((min(t[0] for t in words), max(t[1] for t in words)))
    text = wanted.translation
    start, end = best
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else (best[0], best[0])


def _subtract(span: Span, taken: Collection[Span]) -> list[Span]:
    """The non-empty parts of ``span`` outside every span ``taken``."""
    free = [span]
    for s0, s1 in taken:
        free = [p for f in free for p in ((f[0], min(f[1], s0)), (max(f[0], s1), f[1]))]
        free = [f for f in free if f[1] > f[0]]
    return free


# --- small helpers -------------------------------------------------------------------------------


def _clip(span: Span, region: Span) -> Span:
    start = min(max(span[0], region[0]), region[1])
    return start, min(max(span[1], start), region[1])


def _shift(span: Span, at: int, by: int) -> Span:
    return tuple(x + by if x >= at else x for x in span)  # type: ignore[return-value]


def _space_near(text: str, at: int) -> int | None:
    """The space of ``text`` nearest ``at``, if it has one."""
    spaces = [k for k, char in enumerate(text) if char == " "]
    return min(spaces, key=lambda k: (abs(k - at + 0.5), k), default=None)


def _before_punctuation(text: str) -> int:
    """The end of ``text``, before the punctuation and spaces that close it."""
    end = len(text)
    while end > 0 and not text[end - 1].isalnum():
        end -= 1
    return end if end > 0 else len(text)


def _to_space(text: str, at: int) -> int:
    """The word boundary nearest ``at``."""
    at = min(max(at, 0), len(text))
    for d in range(len(text) + 1):
        for k in (at - d, at + d):
            if 0 <= k <= len(text) and (k in (0, len(text)) or text[k].isspace()):
                return k
    return at


def _words_around(text: str, start: int, end: int) -> Span:
    """The whole words that the characters ``start:end`` of ``text`` touch, without the
    punctuation at either end (unless they are nothing else)."""
    start, end = min(max(start, 0), len(text)), min(max(end, 0), len(text))
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    inner_start, inner_end = start, end
    while inner_start < inner_end and not text[inner_start].isalnum():
        inner_start += 1
    while inner_end > inner_start and not text[inner_end - 1].isalnum():
        inner_end -= 1
    return (inner_start, inner_end) if inner_end > inner_start else (start, end)
