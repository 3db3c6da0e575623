"""Asides in parentheses, translated apart from their sentence and put back where it aligns.

Tatoeba has hardly any parentheses, and the bundled models garble a sentence with an aside:
"Tom (my brother) is here." gave "Tom Łmy est dans l'esprit.", "Tom (mi hermano) está aquí."
"Tom certainly is here.". So a sentence with asides is given to the model as two kinds of
sentences, each of which it translates well:

    "Tom (my brother) is here."
    -> the sentence without them, "Tom is here.", and each aside, "my brother"
    -> translated in one batch with the rest ("Tom est ici.", "mon frère")
    -> each aside's translation, in its parentheses, after the translation of the last word
       before it, as the model's own word links say ("Tom" -> "Tom"): "Tom (mon frère) est ici."

An aside is a parenthesis neither nested nor holding a parenthesis; one with no letter ("(2019)",
"(1)", which the model garbled too: "Le livre de la casse 2019lt") is copied, not translated,
and one opening its sentence ("(Nota) Es importante.") opens the translation. An aside's
translation keeps its lower-case opening and lack of a full stop ("mi hermano" -> "my brother",
not "My brother."). Where the words before an aside are linked to nothing, it follows the
translation's word at the same relative place.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from heedful.dates import MONTHS, WEEKDAYS
from heedful.explain.alignment_spans import WordLink
from heedful.textmap import Span

# " (my brother)": the space before it, and its inside
_ASIDE = re.compile(r"[ \t]*\((?P<inside>[^()\n]+)\)")
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class Asides:
    """A sentence's asides taken out: ``main`` is the sentence without them; each aside's
    ``cut`` (its span in the sentence, with the space before it, or after it where it opens
    the sentence), ``inside`` (the span of its text) and ``at`` (where it was cut out of
    ``main``)."""

    sentence: str
    main: str
    cuts: list[Span]
    insides: list[Span]
    at: list[int]

    @property
    def texts(self) -> list[str]:
        """Each aside's text."""
        return [self.sentence[a:b] for a, b in self.insides]

    @property
    def to_translate(self) -> list[int]:
        """The asides with a letter, to translate; the others ("2019", "1") are copied."""
        return [k for k, text in enumerate(self.texts) if _LETTER.search(text)]

    def main_to_sentence(self, offset: int, end: bool = False) -> int:
        """An offset into ``main`` as an offset into the sentence (an ``end`` offset at an
        aside's place stays before it)."""
        shift = 0
        for (a, b), at in zip(self.cuts, self.at, strict=True):
            if at < offset or at == offset and not end:
                shift += b - a
        return offset + shift


def find_asides(sentence: str, keep_whole: Collection[Span] = ()) -> Asides | None:
    """``sentence``'s asides, if it has any and a word outside them; none inside or across a
    span of ``keep_whole`` (a phone number's "(555)", a URL's)."""
    cuts, insides, at, main, last = [], [], [], [], 0
    for match in _ASIDE.finditer(sentence):
        start, end = match.span()
        marks = (match.start("inside") - 1, match.end() - 1)  # "(" and ")"
        if any(a <= mark < b for a, b in keep_whole for mark in marks):
            continue  # part of a span: "+1 (555) 123-4567" (not "(2019)", a number inside)
        if not sentence[:start].strip():  # opening the sentence: the space after it goes too
            end += len(sentence[end:]) - len(sentence[end:].lstrip())
        main.append(sentence[last:start])
        at.append(sum(map(len, main)))
        cuts.append((start, end))
        insides.append(match.span("inside"))
        last = end
    if not cuts:
        return None
    main.append(sentence[last:])
    text = "".join(main)
    if not _WORD.search(text):
        return None
    return Asides(sentence, text, cuts, insides, at)


def as_aside(source: str, translation: str, target: str | None = None) -> str:
    """An aside's translation as the aside was written: without the full stop the model ended
    it with, or the capital it opened it with, where the aside has neither ("mi hermano" gave
    "My brother.": "my brother"); a word the ``target`` language always capitalises keeps its
    capital ("lunes" -> "Monday", "I")."""
    if not translation:
        return source
    if not source.rstrip().endswith((".", "!", "?", "…")):
        translation = _ADDED_END.sub("", translation)
    first = _WORD.match(translation)
    always = {"I", *MONTHS.get(target or "", ()), *WEEKDAYS.get(target or "", ())}
    capital = first is not None and (first.group() in always or first.group().split("'")[0] == "I")
    opens_small = source[:1].islower()
    if opens_small and not capital and translation[:1].isupper() and translation[1:2].islower():
        translation = translation[0].lower() + translation[1:]
    return translation


_ADDED_END = re.compile(r"(?<=[^\W_])\s?[.!?]$")


@dataclass
class Put:
    """A translation with its asides put back: ``text``; per aside, ``points`` (where it was
    inserted in the main sentence's translation), ``inserted`` (the text inserted there, its
    parentheses and the space before them) and ``starts`` (where its translation starts in
    ``text``)."""

    text: str
    points: list[int]
    inserted: list[str]
    starts: list[int]

    def moved(self, offset: int, end: bool = False) -> int:
        """An offset into the main sentence's translation as an offset into ``text``."""
        return offset + sum(
            len(text)
            for point, text in zip(self.points, self.inserted, strict=True)
            if point < offset or point == offset and not end
        )


def put_asides(
    asides: Asides, translation: str, links: list[WordLink], translated: list[str]
) -> Put:
    """``translation`` of ``asides.main`` with each aside's translation (``translated``) in
    parentheses after the target word linked to the last source word before it (``links``:
    the main sentence's word links, spans of ``asides.main`` and ``translation``)."""
    points = [_place(asides, k, translation, links) for k in range(len(translated))]
    inserted = [f"({text}) " if not point else f" ({text})" for point, text in zip(
        points, translated, strict=True)]  # fmt: skip
    put = Put("", points, inserted, [0] * len(translated))
    out, at = [], 0
    for k in sorted(range(len(translated)), key=lambda k: (points[k], k)):
        out.append(translation[at : points[k]])
        put.starts[k] = sum(map(len, out)) + (2 if points[k] else 1)
        out.append(inserted[k])
        at = points[k]
    out.append(translation[at:])
    put.text = "".join(out)
    return put


def _place(asides: Asides, k: int, translation: str, links: list[WordLink]) -> int:
    """Where aside ``k`` goes in ``translation``: after the target words linked to the
    nearest source word before it that has links; else at its relative place, after a word."""
    cut = asides.at[k]
    before = [m for m in _WORD.finditer(asides.main) if m.end() <= cut]
    if not before:
        return 0  # it opened the sentence
    for word in reversed(before):
        ends = [link.target[1] for link in links if link.source[0] == word.start()]
        if ends:
            return _word_end(translation, max(ends))
    share = cut / max(len(asides.main), 1)
    return _word_end(translation, round(share * len(translation)))


def _word_end(text: str, offset: int) -> int:
    """The end of the word at or before ``offset`` in ``text`` (0 if none)."""
    words = [m.end() for m in _WORD.finditer(text) if m.start() < max(offset, 1)]
    return words[-1] if words else 0
