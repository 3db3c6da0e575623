"""Centuries ("el siglo XVI", "the 16th century", "le XVIe siècle"), kept from the model as the
century it reads best and written the target language's way in its translation.

Tatoeba writes few centuries, the 19th most: the models wrote every other as the 19th ("en el
siglo XVI" -> "in the 19th century"), or dropped it ("in the century. XVI"), or wrote it twice
("au 16e XIXe siècle"). So a century goes to the model as the 19th (``STAND_IN``), written as
the source writes it, and each way the target may write the 19th in the translation becomes the
century, written that way (heedful.protect gives it and puts it back: ``find_centuries``,
``write_century``, ``century_forms``).

Only the century's number is kept from the model; "siglo", "century", "siècle" and the words
around them are the model's.
"""

from __future__ import annotations

import re

import roman

from heedful.textmap import Span
from heedful.written import english_suffix

_ROMAN = r"[IVX]{1,5}|[ivx]{1,5}"  # "xvi" typed casually
# the century's number as each language writes it (the span kept from the model), and the word
# that makes it a century
_CENTURY = {
    "es": re.compile(
        rf"(?<![\w'’-])(?i:siglos?) (?P<kept>(?P<number>{_ROMAN}|\d{{1,2}}))(?![\w'’-])"
    ),
    "en": re.compile(
        r"(?<![\w'’-])(?P<kept>(?P<number>\d{1,2})(?:st|nd|rd|th))"
        r"(?=[ -](?:century|centuries)(?!\w))",
        re.IGNORECASE,
    ),
    "fr": re.compile(
        rf"(?<![\w'’-])(?P<kept>(?P<number>{_ROMAN}|\d{{1,2}})(?:e|ème|er))(?= (?i:siècles?)(?!\w))"
    ),
}
_WORD = {"es": "siglo", "en": "centur", "fr": "siècle"}  # what a sentence with one holds
STAND_IN = 19  # the century the models read best: Tatoeba's most written


def find_centuries(text: str, lang: str | None) -> list[tuple[Span, int]]:
    """Where ``text`` writes a century's number the ``lang`` way ("XVI" of "el siglo XVI",
    "16th" of "the 16th century", "XVIe" of "le XVIe siècle"), and which century; none for
    another language, nor a number that is no century ("IIII", "0th")."""
    pattern = _CENTURY.get(lang or "")
    found = []
    if pattern is None or _WORD[lang] not in text.lower():  # most sentences: one look
        return found
    for m in pattern.finditer(text):
        number = m["number"]
        if number.isdigit():
            century = int(number)
        else:
            try:
                century = roman.fromRoman(number.upper())
            except roman.InvalidRomanNumeralError:
                continue
        if 1 <= century <= 30:
            found.append((m.span("kept"), century))
    return found


def write_century(century: int, lang: str | None) -> str:
    """``century`` as ``lang`` writes its number where the century stands: "16th", "XVI",
    "XVIe" (French: "Ier" for the first)."""
    if lang == "en":
        return f"{century}{english_suffix(century)}"
    if lang == "fr":
        return roman.toRoman(century) + ("er" if century == 1 else "e")
    return roman.toRoman(century)


def century_forms(century: int, lang: str | None) -> dict[str, str]:
    """Each way the stand-in's century may stand in a ``lang`` translation, and what it
    becomes there for ``century``: French writes the 19th "XIXe" or "19e" ("16e" stays in
    figures)."""
    out = {write_century(STAND_IN, lang): write_century(century, lang)}
    if lang == "fr":
        out[f"{STAND_IN}e"] = f"{century}{'er' if century == 1 else 'e'}"
    return out
