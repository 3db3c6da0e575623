"""Dates written with a month's name ("25 de diciembre de 2023", "May 3, 1990"), kept from the
model as a weekday it translates, and written the target language's way in its translation.

The bundled models garble such dates, with or without their numbers protected: "Nací el 3 de
mayo de 1990." gave "I was born on the 3990." and "I was born on May 3, 1990." gave "Je suis né
le 3990.": Tatoeba writes few of them, and with digits read one by one the day and the year
run together. They translate weekdays well ("Te llamaré el viernes." -> "I'll call you on
Friday."), and a weekday stands where a date does ("el lunes", "on Monday", "lundi"). So each
date is given to the model as a weekday the sentence does not hold, and that weekday in the
translation becomes the date: "on Monday" -> "on May 3, 1990", "lundi" / "le lundi" -> "le 3 mai
1990" (``heedful.protect``, where a weekday the translation lacks is put back by alignment like
any placeholder).

Read: Spanish "3 de mayo (de 1990)"; English "May 3(rd)(, 1990)", "3(rd) May (1990)" and "(the)
3rd of May (1990)", with the month's name or its short form ("Dec. 25", "Sept 3"); French "3 /
1er mai (1990)". Written: English "May 3, 1990", Spanish "3 de
mayo de 1990", French "3 mai 1990" ("1er mai"). A day outside 1-31 is no date.

A range of days with its preposition ("del 3 al 7 de junio", "from June 3 to (June) 7", "du 3
au 7 juin", across months too: "del 28 de junio al 3 de julio") is one date: the models garbled
both its days ("Estaré en Madrid del 3 al 7 de junio." -> "I'll be in Madrid's 3 on June 7.";
with two weekdays for its two dates, "del lunes al viernes" -> "on Monday on Friday"). It is
given to the model as one weekday with the language's word before it ("el domingo", "on
Monday", "le lundi"), and that weekday in the translation, with the word before it, becomes the
range written the target way: "from June 3 to 7", "del 3 al 7 de junio", "du 3 au 7 juin".

A day of the month alone ("on the 15th", "el 15", "le 15", the month left to the context) is a
date too, written "the 15th", "15" after "el", "15" after "le": the models wrote "sur les 15"
for "on the 15th" and "See you 21." for "Nos vemos el 21.". So is one after its weekday
("Monday the 12th", "el lunes 12", "lundi 12"), written "Monday the 12th", "lunes 12", "lundi 12".

A range of weekdays ("de lunes a viernes", "Monday through Friday", "du lundi au vendredi")
is one too, given and put back as a range of days is, written "from Monday to Friday", "de
lunes a viernes", "du lundi au vendredi": the models wrote "We work on Sunday." for "Trabajamos
de jueves a domingo." and "le lundi au milieu de mercredi" for "Monday through Wednesday".

Months without a day are heedful.months'.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from heedful.textmap import Span
from heedful.written import BEFORE_A_NOUN, english_suffix

MONTHS = {
    "en": ("January February March April May June July August September October November "
           "December").split(),
    "es": "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
          "diciembre".split(),
    "fr": "janvier février mars avril mai juin juillet août septembre octobre novembre "
          "décembre".split(),
}  # fmt: skip
WEEKDAYS = {
    "en": "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split(),
    "es": "lunes martes miércoles jueves viernes sábado domingo".split(),
    "fr": "lundi mardi mercredi jeudi vendredi samedi dimanche".split(),
}
# the weekdays a date is given to the model as, the ones it translates best first. On 82
# sentences of my own with a weekday, often a name, a quarter opening with it (the scripts in
# /root/heedful-runs/s31: the weekday once, after "on" or opening the translation, and the names
# kept), the bundled es -> en model got "domingo" right in 71, "viernes" 66, "sábado" 63, "lunes"
# and "miércoles" 61, "martes" 52, "jueves" 36 ("Nací el jueves en Tom." -> "I was born the
# judge in Tom."; "Nací el lunes en Tom." -> "I was born on Monday.", the name dropped). Other
# languages: the calendar's order ("Monday" and "Friday" both 30 of 30 on en -> fr).
STAND_INS = {
    lang: ("domingo viernes sábado lunes miércoles martes jueves".split() if lang == "es" else days)
    for lang, days in WEEKDAYS.items()
}
# the words before a weekday that a date keeps ("on Monday" -> "on May 3"); other words get the
# language's article before the date ("depuis lundi" -> "depuis le 3 mai")
KEPT_BEFORE = {"en": ("on", "the", "by", "until", "since"), "es": ("el", "del", "al"),
               "fr": ("le", "du", "au", "ce", "chaque")}  # fmt: skip
ARTICLE = {"en": "", "es": "el ", "fr": "le "}
# a preposition before a weekday that takes the article in with it ("de lundi" -> "du 3 mai")
CONTRACTED = {"es": {"de": "del", "a": "al"}, "fr": {"de": "du", "à": "au"}}


@dataclass(frozen=True)
class Date:
    day: int
    month: int | None  # 1-12; None for a day of the month alone ("the 15th", "el 15")
    year: str | None  # as written
    weekday: int | None = None  # 0-6 (Monday first), if written with it: "Tuesday, March 4"
    until: tuple[int, int] | None = None  # a range's last (day, month): "del 3 al 7 de junio"
    between: bool = False  # a range said "between" its days: "entre el 12 y el 14 de enero"


# English's short month names ("Dec. 25", "Jan 3rd"), read as the month they begin
ABBREVIATED = {"en": "Jan Feb Mar Apr Jun Jul Aug Sept Sep Oct Nov Dec".split()}


def _month_names(lang: str) -> str:
    short = [rf"{re.escape(a)}\.?" for a in ABBREVIATED.get(lang, [])]
    return "|".join(MONTHS[lang] + short)


def month_number(name: str, lang: str) -> int:
    """1-12 for a month's name or its short form ("dec." -> 12)."""
    name = name.lower().rstrip(".")
    return next(k for k, n in enumerate(MONTHS[lang], 1) if n.lower().startswith(name))


def weekday_number(name: str, lang: str) -> int:
    """0-6 (Monday first) for a weekday's name, in any case ("LUNES" -> 0)."""
    return [day.lower() for day in WEEKDAYS[lang]].index(name.lower())


_ORDINAL = r"(?:st|nd|rd|th)?"
_PATTERNS = {
    "es": [  # "3 de mayo", the first "1.º de mayo", "1º", "1ro"
        rf"(?P<day>\d{{1,2}})(?:\.?º|ro)? de (?P<month>{_month_names('es')})"
        rf"(?: del? (?P<year>\d{{4}}))?"
    ],
    "en": [
        rf"(?P<month>{_month_names('en')}) (?P<day>\d{{1,2}}){_ORDINAL}(?:,? (?P<year>\d{{4}}))?",
        rf"(?P<day>\d{{1,2}}){_ORDINAL} (?P<month>{_month_names('en')})(?:,? (?P<year>\d{{4}}))?",
        rf"(?:the )?(?P<day>\d{{1,2}}){_ORDINAL} of (?P<month>{_month_names('en')})"
        rf"(?:,? (?P<year>\d{{4}}))?",
    ],
    "fr": [rf"(?P<day>\d{{1,2}}|1er) (?P<month>{_month_names('fr')})(?: (?P<year>\d{{4}}))?"],
}
_DAY = r"(?P<day>\d{1,2})"
_DIGIT = re.compile(r"\d")
_RANGES = {  # a range of days with its preposition, its first day's month left out or not
    "es": [
        rf"(?:del|desde el) {_DAY}(?: de (?P<month>{_month_names('es')}))? (?:al|hasta el) "
        rf"(?P<last>\d{{1,2}}) de (?P<last_month>{_month_names('es')})(?: del? (?P<year>\d{{4}}))?",
        rf"(?P<between>entre) el {_DAY}(?: de (?P<month>{_month_names('es')}))? y el "
        rf"(?P<last>\d{{1,2}}) de (?P<last_month>{_month_names('es')})(?: del? (?P<year>\d{{4}}))?",
    ],
    "en": [
        rf"from (?P<month>{_month_names('en')}) {_DAY}{_ORDINAL} (?:to|until|till|through) "
        rf"(?:(?P<last_month>{_month_names('en')}) )?(?:the )?(?P<last>\d{{1,2}}){_ORDINAL}"
        rf"(?:,? (?P<year>\d{{4}}))?",
        rf"from (?:the )?{_DAY}{_ORDINAL}(?: (?:of )?(?P<month>{_month_names('en')}))? "
        rf"(?:to|until|till) (?:the )?(?P<last>\d{{1,2}}){_ORDINAL} (?:of )?"
        rf"(?P<last_month>{_month_names('en')})(?:,? (?P<year>\d{{4}}))?",
        rf"(?P<between>between) (?P<month>{_month_names('en')}) {_DAY}{_ORDINAL} and "
        rf"(?:(?P<last_month>{_month_names('en')}) )?(?:the )?(?P<last>\d{{1,2}}){_ORDINAL}"
        rf"(?:,? (?P<year>\d{{4}}))?",
        rf"(?P<between>between) (?:the )?{_DAY}{_ORDINAL}"
        rf"(?: (?:of )?(?P<month>{_month_names('en')}))? and "
        rf"(?:the )?(?P<last>\d{{1,2}}){_ORDINAL} (?:of )?"
        rf"(?P<last_month>{_month_names('en')})(?:,? (?P<year>\d{{4}}))?",
    ],
    "fr": [
        rf"du (?P<day>\d{{1,2}}|1er)(?: (?P<month>{_month_names('fr')}))? au "
        rf"(?P<last>\d{{1,2}}) (?P<last_month>{_month_names('fr')})(?: (?P<year>\d{{4}}))?",
        rf"(?P<between>entre) le (?P<day>\d{{1,2}}|1er)(?: (?P<month>{_month_names('fr')}))? et le "
        rf"(?P<last>\d{{1,2}}) (?P<last_month>{_month_names('fr')})(?: (?P<year>\d{{4}}))?",
    ],
}
# the word a range's weekday is given with ("el domingo"), and the words before a weekday in a
# translation that its range takes the place of ("on Sunday" -> "from June 3 to 7"; the model
# wrote "El domingo, desde las 9" as "Last Sunday, from 9")
RANGE_GIVEN = {"en": "on ", "es": "el ", "fr": "le "}
RANGE_BEFORE = {"en": ("from", "on", "the", "by", "until", "since", "last", "next", "this"),
                "es": ("del", "desde el", "de", "desde", "el", "al", "hasta el"),
                "fr": ("du", "le", "de", "dès", "depuis", "au", "ce")}  # fmt: skip
# the date's weekday before it: "Tuesday, March 4th", "martes 4 de marzo", "mardi 4 mars"
_WEEKDAY = {lang: rf"(?:(?P<weekday>{'|'.join(days)}),? )?" for lang, days in WEEKDAYS.items()}
_COMPILED = {
    lang: [
        re.compile(
            rf"(?<![\w/.,:-]){_WEEKDAY[lang] if p in _PATTERNS[lang] else ''}{p}"
            rf"(?![\w/-]|[.,:]\d)",
            re.IGNORECASE,
        )  # fmt: skip
        for p in _RANGES[lang] + patterns  # ranges first: their last day is a date too
    ]
    for lang, patterns in _PATTERNS.items()
}


# a clause's end after a number: a mark that no digit, letter or ordinal's sign follows ("el 3.º
# piso", "el 3,5 %" are no days)
_CLAUSE_END = r"[ \u00a0]*(?:[.,;:!?)](?![\wºª])|$)"
# a day of the month alone, after its article: English "the 15th" (not before a noun: "the 2nd
# floor"), Spanish "el (día) 15", French "le 15", ending a clause or before a time ("a las 8")
_DAY_ALONE = {
    lang: re.compile(pattern, re.IGNORECASE)
    for lang, pattern in {
        "en": r"(?<![\w-])the (?P<day>\d{1,2})(?:st|nd|rd|th)(?![\w-])",
        "es": rf"(?<=\bel )(?:día )?(?P<day>\d{{1,2}})(?={_CLAUSE_END}| y | a las? )",
        "fr": rf"(?<=\ble )(?P<day>\d{{1,2}}|1er)(?={_CLAUSE_END}| et | à )",
    }.items()
}


# a weekday and a day of the month, the month left to the context: "Monday the 12th", "el lunes
# 12 a las 10:30", "lundi 12": the models wrote "moved to Monday Tuesday" (the day given alone)
# and "al lunes 12" as "in Monday at 12"
_WEEKDAY_AND_DAY = {
    lang: re.compile(pattern.format(weekday="|".join(WEEKDAYS[lang])), re.IGNORECASE)
    for lang, pattern in {
        "en": r"(?<![\w-])(?P<weekday>{weekday}),? (?:the )?(?P<day>\d{{1,2}})(?:st|nd|rd|th)"
        r"(?![\w-])",
        "es": r"(?<![\w-])(?P<weekday>{weekday}),? (?:día )?(?P<day>\d{{1,2}})"
        rf"(?={_CLAUSE_END}| y | a las? )",
        "fr": r"(?<![\w-])(?P<weekday>{weekday}) (?P<day>\d{{1,2}}|1er)"
        rf"(?={_CLAUSE_END}| et | à )",
    }.items()
}


def _taken(span: Span, found: list[tuple[Span, object]]) -> bool:
    """Whether ``span`` overlaps a span already ``found``."""
    return any(a < span[1] and span[0] < b for (a, b), _ in found)


def find_dates(text: str, lang: str | None) -> list[tuple[Span, Date]]:
    """The dates of ``text`` written the ``lang`` way, in order (none for another language);
    a day of the month alone is one, without a month."""
    if not _DIGIT.search(text):  # every date has its day's number; most sentences have none
        return []
    found: list[tuple[Span, Date]] = []
    for pattern in _COMPILED.get(lang or "", []):
        for m in pattern.finditer(text):
            day = 1 if m["day"] == "1er" else int(m["day"])
            if not 1 <= day <= 31 or _taken(m.span(), found):
                continue
            groups = m.groupdict()
            if "last" in groups:  # a range: one month written for both days, or each its own
                last_month = month_number(m["last_month"] or m["month"], lang)
                month = month_number(m["month"] or m["last_month"], lang)
                last = int(m["last"])
                across = month > last_month  # the new year: "del 20 de diciembre al 6 de enero"
                if not 1 <= last <= 31 or not across and (month, day) >= (last_month, last):
                    continue
                until = (last, last_month)
                between = bool(groups.get("between"))
                found.append((m.span(), Date(day, month, m["year"], until=until, between=between)))
                continue
            weekday = m["weekday"] and weekday_number(m["weekday"], lang)
            found.append((m.span(), Date(day, month_number(m["month"], lang), m["year"], weekday)))
    for m in _WEEKDAY_AND_DAY[lang].finditer(text) if lang in _WEEKDAY_AND_DAY else ():
        day = 1 if m["day"] == "1er" else int(m["day"])
        if 1 <= day <= 31 and not _taken(m.span(), found):
            found.append((m.span(), Date(day, None, None, weekday_number(m["weekday"], lang))))
    for m in _DAY_ALONE[lang].finditer(text) if lang in _DAY_ALONE else ():
        day = 1 if m["day"] == "1er" else int(m["day"])
        taken = _taken(m.span(), found)
        noun = lang == "en" and BEFORE_A_NOUN.match(text, m.end())  # "the 2nd floor"
        if 1 <= day <= 31 and not taken and not noun:
            found.append((m.span(), Date(day, None, None)))
    return sorted(found, key=lambda pair: pair[0])


@dataclass(frozen=True)
class Weekdays:
    """A range of weekdays: "de lunes a viernes"."""

    first: int  # 0-6, Monday first
    until: int  # the last day, after the first


def _weekday_names(lang: str) -> str:
    return "|".join(WEEKDAYS[lang])


_WEEKDAY_RANGES = {
    "en": [
        rf"(?:from )?(?P<first>{_weekday_names('en')}) (?:to|through|thru|till|until) "
        rf"(?P<last>{_weekday_names('en')})",
        rf"(?P<first>{_weekday_names('en')}) ?[-–] ?(?P<last>{_weekday_names('en')})",
    ],
    "es": [
        rf"(?:de|del|desde(?: el)?) (?P<first>{_weekday_names('es')}) (?:a|al|hasta(?: el)?) "
        rf"(?P<last>{_weekday_names('es')})",
        # a timetable's "Lunes a viernes", "lunes-viernes": the model read "Monday, from ..."
        rf"(?P<first>{_weekday_names('es')})(?: a | ?[-–] ?)(?P<last>{_weekday_names('es')})",
    ],
    "fr": [
        rf"(?:du|de) (?P<first>{_weekday_names('fr')}) (?:au|à|jusqu'au) "
        rf"(?P<last>{_weekday_names('fr')})",
        rf"(?P<first>{_weekday_names('fr')})(?: au | ?[-–] ?)(?P<last>{_weekday_names('fr')})",
    ],
}
_ANY_WEEKDAY = {lang: re.compile(_weekday_names(lang), re.IGNORECASE) for lang in WEEKDAYS}
_WEEKDAY_RANGES_COMPILED = {
    lang: [re.compile(rf"(?<![\w-]){p}(?![\w-])", re.IGNORECASE) for p in patterns]
    for lang, patterns in _WEEKDAY_RANGES.items()
}


def find_weekday_ranges(text: str, lang: str | None) -> list[tuple[Span, Weekdays]]:
    """The ranges of weekdays of ``text`` written the ``lang`` way, in order: "Monday to
    Friday", "del lunes al viernes" (its preposition with it); not one day to itself."""
    found: list[tuple[Span, Weekdays]] = []
    if lang not in _ANY_WEEKDAY or len(_ANY_WEEKDAY[lang].findall(text)) < 2:
        return found  # most sentences
    for pattern in _WEEKDAY_RANGES_COMPILED[lang]:
        for m in pattern.finditer(text):
            first, last = weekday_number(m["first"], lang), weekday_number(m["last"], lang)
            if first != last and not _taken(m.span(), found):
                found.append((m.span(), Weekdays(first, last)))
    return sorted(found, key=lambda pair: pair[0])


@dataclass(frozen=True)
class Holiday:
    """A holiday by name: its row of ``HOLIDAYS``."""

    row: int
    until = None  # no range of days


# holidays by name, a row each: each language's forms, the first the one written; French with
# its article ("la Saint-Sylvestre"). The bundled models garbled them: "We are closed on New
# Year's Day." -> "... le jour de la Saint-Valentin.", "See you on New Year's Eve." -> "À New
# Year's Eve.", "Cenamos juntos en Nochebuena." -> "We sang together on Christmas Eve.",
# "¿Qué haces en Nochevieja?" -> "What do you do in Nochevieja?". A holiday is given to the
# model as a weekday is, and written back in the weekday's place.
HOLIDAYS = [
    {"en": ("New Year's Eve",), "es": ("Nochevieja",), "fr": ("la Saint-Sylvestre",)},
    {"en": ("New Year's Day",), "es": ("día de Año Nuevo",), "fr": ("le jour de l'An",)},
    {"en": ("Christmas Eve",), "es": ("Nochebuena",), "fr": ("la veille de Noël",)},
    {"en": ("Christmas Day",), "es": ("día de Navidad",), "fr": ("le jour de Noël",)},
    {"en": ("Mother's Day",), "es": ("Día de la Madre",), "fr": ("la fête des mères",)},
    {"en": ("Father's Day",), "es": ("Día del Padre",), "fr": ("la fête des pères",)},
    {"en": ("Valentine's Day",), "es": ("San Valentín", "día de San Valentín"),
     "fr": ("la Saint-Valentin",)},
    {"en": ("Holy Week",), "es": ("Semana Santa",), "fr": ("la semaine sainte",)},
    {"en": ("Three Kings' Day", "Epiphany"), "es": ("Día de Reyes",), "fr": ("l'Épiphanie",)},
    {"en": ("Easter Monday",), "es": ("Lunes de Pascua",), "fr": ("le lundi de Pâques",)},
    {"en": ("All Saints' Day",), "es": ("Día de Todos los Santos",), "fr": ("la Toussaint",)},
]  # fmt: skip
_FRENCH_ARTICLE = re.compile(r"(?P<article>le |la |l')(?P<name>.+)")


def _holiday_pattern(lang: str) -> re.Pattern[str]:
    forms = sorted((f for row in HOLIDAYS for f in row[lang]), key=len, reverse=True)
    names = "|".join(re.escape(f).replace("'", "['’]?") for f in forms)  # "mothers day" too
    return re.compile(rf"(?<![\w-])(?:{names})(?![\w-])", re.IGNORECASE)


_HOLIDAY_PATTERNS = {lang: _holiday_pattern(lang) for lang in ("en", "es")}
_APOSTROPHES = str.maketrans("", "", "'’")


def _holiday_key(name: str) -> str:
    return name.lower().translate(_APOSTROPHES)


# each source language's forms, as ``_holiday_key`` writes them, -> their row
_HOLIDAY_ROWS = {
    lang: {_holiday_key(form): k for k, row in enumerate(HOLIDAYS) for form in row[lang]}
    for lang in _HOLIDAY_PATTERNS
}


def find_holidays(text: str, lang: str | None) -> list[tuple[Span, Holiday]]:
    """The holidays of ``text`` named the ``lang`` way (``HOLIDAYS``), in order."""
    pattern = _HOLIDAY_PATTERNS.get(lang or "")
    if pattern is None:
        return []
    rows = _HOLIDAY_ROWS[lang]
    return [(m.span(), Holiday(rows[_holiday_key(m.group())])) for m in pattern.finditer(text)]


def write_date(date: Date | Weekdays | Holiday, lang: str) -> str:
    """``date`` as ``lang`` writes it (``lang`` one of ``MONTHS``), with its weekday if it has
    one: "Tuesday, March 4, 2025", "martes 4 de marzo de 2025", "mardi 4 mars 2025"; a range of
    weekdays: "from Monday to Friday", "de lunes a viernes", "du lundi au vendredi"; a holiday:
    its name ("New Year's Eve", "la Saint-Sylvestre")."""
    if isinstance(date, Holiday):
        return HOLIDAYS[date.row][lang][0]
    if isinstance(date, Weekdays):
        first, last = WEEKDAYS[lang][date.first], WEEKDAYS[lang][date.until]
        return {"en": "from {} to {}", "es": "de {} a {}", "fr": "du {} au {}"}[lang].format(
            first, last
        )
    if date.until is not None:
        return _write_range(date, lang)
    if date.month is None:  # "the 15th"; "15", "1er" after the article the weekday gets
        weekday = "" if date.weekday is None else WEEKDAYS[lang][date.weekday] + " "
        if lang == "en":  # "Monday the 12th", "lunes 12", "lundi 12"
            return f"{weekday}the {date.day}{english_suffix(date.day)}"
        return weekday + ("1er" if lang == "fr" and date.day == 1 else str(date.day))
    month = MONTHS[lang][date.month - 1]
    weekday = "" if date.weekday is None else WEEKDAYS[lang][date.weekday]
    if lang == "en":
        weekday = weekday and weekday + ", "
        return f"{weekday}{month} {date.day}" + (f", {date.year}" if date.year else "")
    weekday = weekday and weekday + " "
    if lang == "es":
        return f"{weekday}{date.day} de {month}" + (f" de {date.year}" if date.year else "")
    day = "1er" if date.day == 1 else str(date.day)
    return f"{weekday}{day} {month}" + (f" {date.year}" if date.year else "")


def _write_range(date: Date, lang: str) -> str:
    """A range of days with its words, as ``lang`` writes it: "from June 3 to 7(, 2025)", "from
    June 28 to July 3", "del 3 al 7 de junio (de 2025)", "du 1er au 7 juin (2025)"; said
    "between" them ("between June 12 and 14", "entre el 12 y el 14 de junio", "entre le 12 et
    le 14 juin"; the models wrote "between the 12th and January 14", "entre le 12 janvier et
    14")."""
    (last, last_month), month = date.until, MONTHS[lang][date.month - 1]
    same = date.month == last_month
    last_name = MONTHS[lang][last_month - 1]
    opening, joining = _RANGE_WORDS[lang, date.between]
    if lang == "en":
        out = f"{opening} {month} {date.day} {joining} {'' if same else last_name + ' '}{last}"
        return out + (f", {date.year}" if date.year else "")
    if lang == "es":
        first = f"{date.day}" if same else f"{date.day} de {month}"
        out = f"{opening} {first} {joining} {last} de {last_name}"
        return out + (f" de {date.year}" if date.year else "")
    day = "1er" if date.day == 1 else str(date.day)
    first = day if same else f"{day} {month}"
    return f"{opening} {first} {joining} {last} {last_name}" + (
        f" {date.year}" if date.year else ""
    )


# the words before a range's first day and before its last, by language and "between"
_RANGE_WORDS = {
    ("en", False): ("from", "to"), ("en", True): ("between", "and"),
    ("es", False): ("del", "al"), ("es", True): ("entre el", "y el"),
    ("fr", False): ("du", "au"), ("fr", True): ("entre le", "et le"),
}  # fmt: skip


def weekday_pattern(weekday: str, lang: str, *, range_of_days: bool = False) -> re.Pattern[str]:
    """A weekday in a translation, with the word before it that a date keeps, if any (a
    range of days: the word before it that the range takes the place of)."""
    kept = "|".join((*KEPT_BEFORE.get(lang, ()), *CONTRACTED.get(lang, {})))
    if range_of_days:
        kept = "|".join(RANGE_BEFORE.get(lang, ()))
    return re.compile(
        rf"(?<!\w)(?:(?P<before>{kept}) )?(?P<weekday>{re.escape(weekday)})(?!\w)", re.IGNORECASE
    )


def put_date(
    match: re.Match, written: str, lang: str, *, range_of_days: bool = False
) -> list[tuple[Span, str]]:
    """What a weekday's ``match`` (``weekday_pattern``) becomes, as (span, text) replacements of
    the translation: the weekday, the date ``written`` (after the language's article unless a
    word that a date keeps comes before it; capitalised where the weekday was, in capitals where
    it was), and a preposition before it that takes the article in ("de" -> "du"). A
    ``range_of_days`` takes the place of the weekday and the word before it."""
    before, weekday = match["before"], match["weekday"]
    capitals = len(weekday) > 1 and weekday.isupper()
    if range_of_days:  # written with its own preposition, in place of the word before
        date = written.upper() if capitals else written
        before_it = match.string[: match.start()].rstrip()
        opening = not before_it or before_it.endswith((".", "!", "?", ":"))
        if opening and (before or weekday)[0].isupper():  # English capitalises every weekday
            date = date[:1].upper() + date[1:]
        return [(match.span(), date)]
    if lang == "fr" and (named := _FRENCH_ARTICLE.fullmatch(written)):
        return _put_french_holiday(match, named, capitals)
    out = []
    contracted = CONTRACTED.get(lang, {}).get((before or "").lower())
    if lang in _ANY_WEEKDAY and _ANY_WEEKDAY[lang].fullmatch(written.split()[0]):
        contracted = None  # a date opening with its weekday: "À lundi !" -> "À lundi 12 !"
    if contracted:
        word = contracted.capitalize() if before[0].isupper() else contracted
        out.append((match.span("before"), word.upper() if capitals else word))
        date = written
    elif before:
        date = written
    else:
        date = ARTICLE.get(lang, "") + written
        if weekday[0].isupper() and lang != "en":  # English capitalises every weekday
            date = date[:1].upper() + date[1:]
    out.append((match.span("weekday"), date.upper() if capitals else date))
    return out


def _put_french_holiday(match: re.Match, named: re.Match, capitals: bool) -> list[tuple[Span, str]]:
    """A French holiday with its article in a weekday's place: "le lundi" -> "la
    Saint-Sylvestre", "du lundi" -> "de la Saint-Sylvestre" ("du jour de l'An"), "au lundi" or
    "à lundi" -> "à la Saint-Sylvestre", "chaque lundi" -> "chaque Saint-Sylvestre", "lundi" ->
    "la Saint-Sylvestre"."""
    before, article, name = (match["before"] or ""), named["article"], named["name"]
    lowered = before.lower()
    preposition = {"du": "de", "au": "à"}.get(lowered, lowered)  # "du" took the weekday's "le"
    if preposition in CONTRACTED["fr"]:  # "de la", "de l'", "du" again before "le"
        put = f"{preposition} {article}{name}"
        if article == "le ":
            put = f"{CONTRACTED['fr'][preposition]} {name}"
        at = (match.start("before"), match.end())
    elif lowered == "le" or not before:
        put, at = article + name, (match.start(), match.end())
    else:  # "ce", "chaque": the name alone after them
        put, at = name, match.span("weekday")
    opening = (before or match["weekday"])[0].isupper()
    if opening:
        put = put[:1].upper() + put[1:]
    return [(at, put.upper() if capitals else put)]


def kept_weekdays(given: str, translation: str, source: str | None, target: str | None) -> str:
    """``translation`` with the weekdays of ``given`` (the text the model was given) where the
    model wrote others, as many as it was given, in their order: "Hi Mark, I'm writing to
    confirm our appointment on Tuesday." gave "... notre rendez-vous lundi." (without "Hi
    Mark," the model wrote "mardi"). A plural stays plural ("Sundays" -> "dimanches"), the
    case as the model wrote it (English capitalises its own). A weekday the model dropped, or
    wrote once more, is left."""
    if source not in _PLURAL_WEEKDAY or target not in _PLURAL_WEEKDAY:
        return translation
    wanted = [weekday_number(m["day"], source) for m in _PLURAL_WEEKDAY[source].finditer(given)]
    written = list(_PLURAL_WEEKDAY[target].finditer(translation))
    found = [weekday_number(m["day"], target) for m in written]
    if not wanted or len(found) != len(wanted) or sorted(found) == sorted(wanted):
        return translation
    for match, day in reversed(list(zip(written, wanted, strict=True))):
        name = WEEKDAYS[target][day]
        as_written = match["day"]
        if as_written.isupper() and len(as_written) > 1:
            name = name.upper()
        elif as_written[0].isupper():
            name = name[0].upper() + name[1:]
        translation = translation[: match.start("day")] + name + translation[match.end("day") :]
    return translation


def weekdays_left_out(words: list[str], translation: Callable[[], str], source: str | None,
                      target: str | None) -> list[int]:  # fmt: skip
    """Which of ``words`` (a source's, in ``source``) are weekdays whose day the model's
    ``translation()`` (in ``target``; asked for only where a word is a weekday) does not name,
    where it names fewer weekdays than they are
    (``kept_weekdays`` puts back one it changed): "Would Tuesday at 10 work for you?" gave "Est-ce
    que tu voudrais 10 travail pour toi ?", and the attention the model paid "Tuesday" hid it
    from heedful.dropped's look."""
    if source not in _PLURAL_WEEKDAY or target not in _PLURAL_WEEKDAY:
        return []
    days = [
        (k, day) for k, word in enumerate(words) if (day := _PLURAL_WEEKDAY[source].fullmatch(word))
    ]
    if not days:
        return []
    text = translation()
    written = [weekday_number(m["day"], target) for m in _PLURAL_WEEKDAY[target].finditer(text)]
    if target == "en":  # "Is Tues convenient for you at 10?" names it
        written += [_SHORT_EN.index(m.lower()) for m in _SHORT_EN_AT.findall(text)]
    if len(written) >= len(days):
        return []
    return [k for k, day in days if weekday_number(day["day"], source) not in written]


_SHORT_EN = ["mon", "tues", "wed", "thurs", "fri", "sat", "sun"]
_SHORT_EN_AT = re.compile(r"\b(Mon|Tues|Wed|Thurs|Fri|Sat|Sun)\b")  # capitalised: not "the sun"
# a weekday, and the plural's ending after it ("Sundays", "domingos", "dimanches"), in any case
_PLURAL_WEEKDAY = {
    lang: re.compile(rf"(?<![\w-])(?P<day>{_weekday_names(lang)})(?:s)?(?![\w-])", re.IGNORECASE)
    for lang in WEEKDAYS
}
