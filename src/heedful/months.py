"""Months written without a day ("desde marzo de 2018", "in March", "jusqu'en mai"), kept from
the model as the month it reads best and written the target language's way in its translation.

The models garbled some months and wrote others untranslated or with their year the source's
way ("desde enero" -> "From work here.", "in March" -> "à March", "en diciembre de 2024" -> "in
December, 2024", "since May 2009" -> "depuis 2009 ans"), where "October" / "octubre" they
translate well. So a month goes to the model as that month (``MONTH_STAND_INS``), and that month
in the translation becomes the month, with its year if it has one (heedful.protect gives and
puts it back as it does dates: heedful.dates).

An English month is capitalised and, unless a year follows it, comes after a word that takes a
month ("in", "since", "early"...): "May I...", "Mark and April came" are no months; typed in
lower case, only after "in", "since" and the like ("in march", not "to march"). A Spanish or
French one is in lower case (a capital opens a name: "Julio", "Mars"), or in capitals after
such a word.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heedful.dates import MONTHS, month_number
from heedful.textmap import Span


@dataclass(frozen=True)
class Month:
    """A month without a day: "marzo de 2018", "in January"."""

    month: int  # 1-12
    year: str | None  # as written


# the months a month is given to the model as, the one it translates best first (on sentences
# of my own, /root/heedful-runs/s35: "octubre" and "October" read right in 5 of 6 and 6 of 7,
# "junio" 4 of 6, "mayo" 2 of 6, "June" and "July" 4 of 7)
MONTH_STAND_INS = {
    "en": ("October", "December", "July"),
    "es": ("octubre", "junio", "diciembre"),
    "fr": ("octobre", "juin", "décembre"),
}
# the words before a month without a year that make it one ("in May", not "May I")
_MONTH_CUES = {
    "en": "in since until till by before after during from of for through to early late last next "
          "this every each mid".split(),
    "es": "en desde hasta de del para durante a al este cada entre".split(),
    "fr": "en depuis avant après pendant de du dès début fin à au chaque ce et jusqu'en".split(),
}  # fmt: skip
_MONTH = {
    lang: re.compile(
        rf"(?<![\w/.,:'’-])(?P<month>{'|'.join(names)})"
        rf"(?:{',? (?:of )?' if lang == 'en' else ' del? ' if lang == 'es' else ' '}"
        rf"(?P<year>\d{{4}}))?(?![\w'’-]|[.,:]\d)",
        re.IGNORECASE,
    )
    for lang, names in MONTHS.items()
}
# the words before an English month typed in lower case that make it one ("in march")
_TYPED_CUE = re.compile(r"(?<![\w'’-])(?:in|since|until|till|during|before|after) $", re.I)
_CUE_BEFORE = {
    lang: re.compile(rf"(?<![\w'’-])(?:{'|'.join(map(re.escape, cues))})\s+$", re.IGNORECASE)
    for lang, cues in _MONTH_CUES.items()
}

# between two months of a list or a span of months ("May or June", "marzo y abril", "mai à juin")
_LISTED = re.compile(
    r",\s*|\s*[-–]\s*|\s+(?:and|or|to|through|until|till|y|o|u|a|hasta|et|ou|à|au)\s+",
    re.IGNORECASE,
)


def find_months(text: str, lang: str | None) -> list[tuple[Span, Month]]:
    """The months of ``text`` written without a day, the ``lang`` way (with their year if they
    have one), in order; none for another language. A date with its day is not one
    (``find_dates``: leave out the months that overlap its dates)."""
    found: list[tuple[Span, Month]] = []
    for m in _MONTH[lang].finditer(text) if lang in _MONTH else ():
        word = m["month"]
        cued = bool(_CUE_BEFORE[lang].search(text, 0, m.start()))
        listed = found and _LISTED.fullmatch(text, found[-1][0][1], m.start())  # "in May or June"
        marked = cued or listed or m["year"] is not None
        capitalised = word.istitle() or word.isupper()  # "May", "MAY"; not "mAy"
        # English capitalises its months, but for casual typing after "in" and the like ("in
        # march", not "to march"); Spanish and French capitalise names ("Julio")
        if lang == "en":
            typed = word.islower() and _TYPED_CUE.search(text, 0, m.start()) is not None
            month = marked and capitalised or typed
        else:
            month = word.islower() or marked and capitalised
        if month:
            found.append((m.span(), Month(month_number(word, lang), m["year"])))
    return found


def write_month(month: Month, lang: str) -> str:
    """``month`` as ``lang`` writes it: "March 2019", "marzo de 2019", "mars 2019", "mars"."""
    name = MONTHS[lang][month.month - 1]
    if month.year is None:
        return name
    return f"{name} de {month.year}" if lang == "es" else f"{name} {month.year}"
