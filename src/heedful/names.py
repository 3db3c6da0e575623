"""Names in a sentence that the model would garble, for heedful.protect to keep from it: words
mixing letters the model reads with letters it does not, capitalised words its vocabulary cuts
into many pieces (without a word list; with one, heedful.lexicon finds the names it never read,
with ``name_runs`` and ``first_letter`` from here), a title with the name after it ("Sr. Pérez"),
and words in mixed case ("YouTube", "iOS")."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from heedful.textmap import Span


def unreadable_letters(text: str, unknown: Callable[[str], bool]) -> list[Span]:
    """Words that mix letters the model reads with letters it does not (``unknown(c)``):
    "Jürgen" for a vocabulary without "ü" would come out "J ⁇ rgen". (A word of nothing but
    unknown letters is carried past the model instead: ``heedful.unknown_words``.)"""
    out = []
    for match in re.finditer(r"[^\W\d_]+(?:['-][^\W\d_]+)*", text):
        flags = [unknown(c) for c in match.group()]
        if any(flags) and not all(flags):
            out.append(match.span())
    return out


def rare_names(text: str, pieces: Callable[[str], int], *, least: int = 3) -> list[Span]:
    """Capitalised words whose spelling and lower-case spelling the vocabulary both cuts into
    ``least`` pieces or more: names it has not learned, which the model garbles ("Johannes
    Heikkinen" -> "Johannesikkinen"); a common word at the start of a sentence
    ("Desafortunadamente") is known in lower case. A name takes in the capitalised words next
    to it that the vocabulary does not know as one piece in lower case ("Erica Voinea"), not
    "Ayer" ("Ayer Kwame vino."). The first word of the sentence counts only within such a run
    of two or more: alone it is as often a rare verb ("Cuéntame", "Manténgase") as a name."""
    words = [
        m for m in re.finditer(r"[^\W\d_]+(?:-[^\W\d_]+)*", text)
        if m.group()[0].isupper() and m.group()[1:].islower()
    ]  # fmt: skip
    rare = [pieces(m.group()) >= least and pieces(m.group().lower()) >= least for m in words]
    known = [pieces(m.group().lower()) < 2 for m in words]
    return name_runs(text, words, rare, [not k for k in known], lone_opening=False)


def titled_names(text: str, titles: Collection[str]) -> list[Span]:
    """A title and the capitalised words after it, as one name: "Sr. Pérez", "Dr. Smith",
    "Dra. María López" (``titles``: lowercased, without the full stop; heedful.segment.titles).
    The bundled models garble most titles ("con el Sr. Pérez" -> "with the Sr. I'll return",
    "with Dr. Smith" -> "avec le verre"); kept from the model, the name comes back as written.
    Not at the start of the text, where such a word may be a sentence of its own that the
    segmenter left with the next ("Para. Hace cosquillas.": "para" is a Spanish abbreviation)."""
    out = []
    opening = first_letter(text)
    for title in _TITLE.finditer(text):
        if title.start() <= opening or not (
            title.group(1).istitle() and title.group(1).lower() in titles
        ):
            continue
        end = title.end()
        while (word := _NAME_WORD.match(text, end)) and word.group(1).istitle():
            end = word.end()
        if end > title.end():
            out.append((title.start(), end))
    return out


def mixed_case(text: str) -> list[Span]:
    """Words with a capital after a small letter, brand names the models garble ("YouTube" ->
    "yourTube", "PowerPoint file" -> "fichier postal", "iOS" -> "iOroid"): kept from the model
    and copied as written. "McDonald's" is one too."""
    return [m.span() for m in _MIXED.finditer(text)]


_MIXED = re.compile(r"(?<![\w'’-])[^\W\d_]*[a-zà-ÿ][A-ZÀ-Þ][^\W\d_]*(?:['’][^\W\d_]+)?(?![\w'’-])")
_TITLE = re.compile(r"(?<![\w.])([^\W\d_]{2,5})\.")
_NAME_WORD = re.compile(r"[ -]([^\W\d_]+(?:'[^\W\d_]+)?)")


def name_runs(
    text: str, words: list[re.Match], seeds: list[bool], joins: list[bool], *, lone_opening: bool
) -> list[Span]:
    """Where names stand in ``text``: each of ``words`` (capitalised words, in order) that
    ``seeds`` says is a name, with the words around it that ``joins`` lets in, one space apart
    ("Port Muhima"); runs that meet are one. Without ``lone_opening``, a name of one word at the
    start of the text is left out (it may be a rare verb: ``rare_names``)."""
    out: list[Span] = []
    for k in range(len(words)):
        if not seeds[k]:
            continue
        first = last = k
        while first > 0 and joins[first - 1] and _next_to(text, words[first - 1], words[first]):
            first -= 1
        while (
            last + 1 < len(words)
            and joins[last + 1]
            and _next_to(text, words[last], words[last + 1])
        ):
            last += 1
        if not lone_opening and first == last and words[first].start() == first_letter(text):
            continue
        start, end = words[first].start(), words[last].end()
        if out and out[-1][1] >= start:  # the same name as the word before
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def first_letter(text: str) -> int:
    """Where ``text``'s first letter is (-1 if it has none)."""
    match = re.search(r"[^\W\d_]", text)
    return -1 if match is None else match.start()


def _next_to(text: str, left: re.Match, right: re.Match) -> bool:
    return text[left.end() : right.start()] == " "
