"""Paragraphs cut into sentences, and their translations put back together.

The bundled models learned from Tatoeba, one short sentence a line; given several sentences on one
line they translate a third of the line as well as each sentence alone. So ``Translator.translate``
cuts each text into sentences with pysbd (Sadvilkar and Neumann, 2020: Golden Rules, abbreviation
lists and the like per language), translates every sentence in one batch with the rest, and joins
the translations with whatever stood between the sentences: spaces, tabs and line breaks, as they
were. Whitespace before the first sentence and after the last is left out, as the tokenizer
leaves it out of a sentence. A list item's marker at the start of a line ("- ", "• ", "1. ",
"a) ") is no part of its sentence: it stands before the translation as it stood before the
source (the bundled models dropped it: "- Primero: el vuelo sale a las 8:45." gave "On the
flight, the flight leaves at 8:45.").

Four corrections to the segmenter's cuts: a cut inside a span that must stay whole (a URL such
as ``example.org/docs?id=42``, whose "?" pysbd ends a sentence at) is undone; so is a cut after a
title inside a sentence ("con el Sr. Pérez", "la Dra. García", "le Dr. Martin"), which pysbd 0.3.4
makes before a capital in Spanish and French (its Spanish list of abbreviations written before a
name lacks "sr", "dra" and others, its French one is empty: ``titles``); and a piece with no
letter or digit ("😀", "...") is no sentence of its own: it stays with the sentence before it on
its line (or the one after it); and a cut after a word of one or two letters and a full stop
before a small letter ("en EE.UU. | dos años", "a las 5 p. | m. | y se fue"), where an
abbreviation, not a sentence, ends. And a cut pysbd does not make: after a run of "!" or "?"
before a capital ("Wow!!! | You're the best.").
"""

from __future__ import annotations

import functools
import re
import warnings
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import pysbd
from pysbd.languages import LANGUAGE_CODES

from heedful.abbreviations import find_abbreviations
from heedful.names import PERSON_TITLES, SPELT_OUT_TITLES

Span = tuple[int, int]  # [start, end) in a text


@dataclass
class Paragraph:
    """A text and its sentences' places in it, in order, without surrounding whitespace."""

    text: str
    spans: list[Span]

    @property
    def sentences(self) -> list[str]:
        return [self.text[start:end] for start, end in self.spans]

    @property
    def lead(self) -> str:
        """What stands before the first sentence but whitespace: its line's list marker."""
        return self.text[: self.spans[0][0]].lstrip() if self.spans else ""

    def join(self, translations: Sequence[str]) -> str:
        """The sentences' translations with what stood between the sentences between them
        (and the first one's list marker before them)."""
        if len(translations) != len(self.spans):
            raise ValueError(f"{len(self.spans)} sentences, but {len(translations)} translations")
        out = [self.lead]
        for k, translation in enumerate(translations):
            if k:
                out.append(self.text[self.spans[k - 1][1] : self.spans[k][0]])
            out.append(translation)
        return "".join(out)

    def places(self, translations: Sequence[str]) -> list[int]:
        """Where each translation starts in ``join(translations)``."""
        starts, at = [], len(self.lead)
        for k, translation in enumerate(translations):
            if k:
                at += self.spans[k][0] - self.spans[k - 1][1]
            starts.append(at)
            at += len(translation)
        return starts


class SentenceSplitter:
    """pysbd's rules for ``language`` (an ISO 639-1 code); English's, the most general, for a
    language pysbd has no rules for, or when the language is not known."""

    def __init__(self, language: str | None):
        self.language = language if language in LANGUAGE_CODES else "en"
        self._segmenter = pysbd.Segmenter(language=self.language, clean=False, char_span=True)
        # English keeps pysbd's own cuts: its rules are complete, and "Inc." may end a sentence
        self._titles = titles(self.language) if self.language != "en" else frozenset()
        # "Sr." opening a line: "Sr. | Pérez"; not a word ("Uncle. | Bob came.")
        spelt_out = SPELT_OUT_TITLES.get(self.language, set())
        self._person = set(PERSON_TITLES.get(self.language, {})) - spelt_out

    def split(self, text: str, keep_whole: Sequence[Span] = ()) -> Paragraph:
        """``text``'s sentences: line by line, each line cut by pysbd, never inside a span of
        ``keep_whole``. A line the segmenter fails on is one sentence, with a warning naming it."""
        spans: list[Span] = []
        for line in re.finditer(r"[^\n]+", text):
            marker = _MARKER.match(line.group())  # "- ", "1. ", "a) ": no part of the sentence
            at = marker.end() if marker and _has_word(line.group()[marker.end() :]) else 0
            for start, end in self._cut(line.group()[at:]):
                spans.append((line.start() + at + start, line.start() + at + end))
        # "approx. | 50 euros", "e.g. | apples": an abbreviation spelt out for the model ends
        # no sentence before a small letter or a digit ("EE. UU. | Me gusta." stays cut)
        after = [(a, b, text[b + 1 : b + 2]) for a, b in find_abbreviations(text, self.language)]
        small = [(a, b + 2) for a, b, c in after if c.islower() or c.isdigit()]
        whole = [*keep_whole, *small]
        return Paragraph(text, _merged(text, spans, whole, self._titles, self._person))

    def _cut(self, line: str) -> list[Span]:
        """The line's sentences, stripped of whitespace; none for a blank line. A line with no
        sentence mark before its last word ("Tengo un perro.", "donde esta el baño") is one
        sentence without asking pysbd, which took a third of translating the bundled models'
        dev sets (its answer was the same on every such line of 20,000 training sentences in
        each of es, en and fr: tests/test_segment.py)."""
        if _ONE_SENTENCE.fullmatch(line):
            return [span for span in [_strip(line, (0, len(line)))] if span[0] < span[1]]
        try:
            found = [(s.start, s.end) for s in self._segmenter.segment(line)]
            problem = _problem(line, found)
        except Exception as error:  # noqa: BLE001 - any failure of the segmenter is reported
            problem = f"{type(error).__name__}: {error}"
        if problem:
            warnings.warn(
                f"the sentence splitter (pysbd, {self.language!r}) failed on {line[:60]!r} "
                f"({problem}); translating the line as one sentence",
                stacklevel=4,
            )
            found = [(0, len(line))]
        found = [cut for span in found for cut in _after_runs(line, span)]
        return [span for span in (_strip(line, s) for s in found) if span[0] < span[1]]


# a run of "!" or "?" after a word, then a sentence opening with a capital: pysbd made "Wow!!!
# You're the best." one sentence, which the model garbled ("Waou ! Tu es le meilleur.",
# "Really??? I can't believe it." -> "Alors ? Je n'arrive pas ...", "Great!!! See you soon."
# -> "Bat ! À bientôt.")
_RUN_THEN_CAPITAL = re.compile(r"(?<=[^\W_])[!?]{2,}(?=\s+[¡¿\"“«(]?[A-ZÀ-ÖØ-Þ])")


def _after_runs(line: str, span: Span) -> list[Span]:
    """``span`` of ``line`` cut after each run of "!" or "?" that a capital follows."""
    start, end = span
    cuts = [m.end() for m in _RUN_THEN_CAPITAL.finditer(line, start, end)]
    return list(zip([start, *cuts], [*cuts, end], strict=True))


# a list item's marker at the start of a line: a bullet, a number or a letter, then a space
# (the bundled models dropped "- " and read "- Segundo: ..." as "No way, ...")
_MARKER = re.compile(  # and Markdown's: a heading's "## ", a task's "- [ ] "
    r"[ \t]*(?:[-*+][ \t]+\[[ xX]\]|#{1,6}|[-*+•‣◦▪>–—]|\(?\d{1,3}[.)]|\(?[a-z]\)|[a-z]\.)[ \t]+"
)
# a line whose sentence marks all stand after its last word
_ONE_SENTENCE = re.compile(r"[^.!?…。！？;:]*(?:[.!?…。！？;:][.!?…。！？;:\s]*)?")


def is_marker(text: str) -> bool:
    """Whether ``text`` is nothing but a list item's marker ("a)", "- ", "1.")."""
    return _MARKER.fullmatch(text.strip() + " ") is not None


def _problem(line: str, spans: list[Span]) -> str | None:
    """What is wrong with the segmenter's spans, if anything: they must be in order, not
    overlap, and leave out nothing but whitespace."""
    at = 0
    for start, end in spans:
        if not at <= start <= end <= len(line):
            return f"a sentence at {start}:{end} after one ending at {at}"
        if line[at:start].strip():
            return f"{line[at:start]!r} belongs to no sentence"
        at = end
    if line[at:].strip():
        return f"{line[at:]!r} belongs to no sentence"
    return None


def _strip(line: str, span: Span) -> Span:
    start, end = span
    while start < end and line[start].isspace():
        start += 1
    while end > start and line[end - 1].isspace():
        end -= 1
    return start, end


def _merged(
    text: str,
    spans: list[Span],
    keep_whole: Sequence[Span],
    title_words: Collection[str],
    person: Collection[str] = (),
) -> list[Span]:
    """Sentences of a line joined where a cut falls inside a span of ``keep_whole``, after one
    of the ``title_words`` written capitalised after another word of its sentence ("con el Sr. |
    Pérez", not "Bien. | Je suis d'accord."), after a sentence that is nothing but a title of a
    ``person`` ("Sr. | Pérez llegó.", not "Para. | Hace cosquillas."), or where one of the two
    has no letter or digit."""
    out: list[Span] = []
    for start, end in spans:
        if out and "\n" not in text[out[-1][1] : start]:
            before = text[slice(*out[-1])]
            inside = any(a < start and out[-1][1] < b for a, b in keep_whole)
            capitals = before.isupper()  # a title in capitals counts there: "EL SR. | GARCÍA"
            m = _LAST_ABBREVIATION.search(before)
            title = m is not None and (m[1].istitle() or capitals) and m[1].lower() in title_words
            alone = re.fullmatch(r"([^\W\d_]{1,5})\.", before)
            title |= (
                alone is not None
                and (alone[1].istitle() or capitals)
                and alone[1].lower() in person
            )
            # "EE.UU. | dos años", "5 p. | m. | y se fue", "¿Uds. | vienen?": a sentence opens
            # with no small letter after an abbreviation
            ending = _ENDING_ABBREVIATION.search(before)
            listed = ending is not None and ending[1].lower() in title_words
            short = _SHORT_ABBREVIATION.search(before) is not None or listed
            short = short and text[start].islower()
            if inside or title or short or not _has_word(text[start:end]) or not _has_word(before):
                out[-1] = (out[-1][0], end)
                continue
        out.append((start, end))
    return out


# a word of one or two letters and a full stop ending a text: an abbreviation's last part
_SHORT_ABBREVIATION = re.compile(r"(?<![^\W\d_])[^\W\d_]{1,2}\.$")
# a word of up to five letters and a full stop ending a text: an abbreviation if the
# language's list has it ("¿Uds.")
_ENDING_ABBREVIATION = re.compile(r"(?<![^\W\d_])([^\W\d_]{1,5})\.$")
# an abbreviation ending a text, after another word: "con el Sr.", "le Dr." (not "Bien.")
_LAST_ABBREVIATION = re.compile(r"[\w,;]\s+([^\W\d_]{2,5})\.$")


@functools.cache
def titles(language: str | None) -> frozenset[str]:
    """Abbreviations written before a name, lowercased, without their full stop: the titles
    pysbd lists for English ("mr", "dr", "prof", "st") and, for another language, every
    abbreviation pysbd lists for it ("sr", "dra", "av"; also "etc", which is never written
    capitalised inside a sentence, where these are used)."""
    found = set(LANGUAGE_CODES["en"].Abbreviation.PREPOSITIVE_ABBREVIATIONS)
    if language in LANGUAGE_CODES and language != "en":
        found |= set(LANGUAGE_CODES[language].Abbreviation.ABBREVIATIONS)
    return frozenset(a for a in found if a.isalpha())


def _has_word(text: str) -> bool:
    return any(c.isalnum() for c in text)
