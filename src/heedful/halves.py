"""A number and a half or a quarter ("3 años y medio", "two and a half hours", "une heure et
quart", "dos horas y cuarto"), kept from the model as the number and its unit, and written the
target language's way.

Tatoeba says "and a half" seldom: the bundled models wrote "Tengo 3 años y medio de
experiencia." as "I'm 3-five years old and out of experience.", "I have 3 and a half years of
experience." as "J'ai 3 ans et une demi-expérience.", and dropped the half of "Hace dos horas y
media que espero." ("I've been waiting for two hours."). The three languages put the half in
different places: English between the number and the unit ("3 and a half years"; "a year and a
half" for one), Spanish and French after the unit, agreeing with it ("dos horas y media", "3
años y medio", "une heure et demie", "deux ans et demi").

So the whole ("3 años y medio") goes to the model as a number placeholder and the unit, in the
plural ("12 años"), which it translates well, and the placeholder with the unit the model wrote
after it becomes the whole, written the target's way (heedful.protect gives it and puts it back:
``find_halves``, ``Half``). Where the model wrote no unit after the placeholder ("El niño tiene 3
años y medio." -> "The boy is 12."), the number and a half is written alone in English ("The boy
is 3 and a half."), as a decimal in French and Spanish ("3,5"). The units are those of time,
weight and length that such phrases measure, the dozen and the million; a number in words is
one of one to ten, written in words again. Half a unit goes the same way ("medio kilo" as "12
kilos": "half a kilo", "un demi-kilo", "une demi-journée"; the models wrote "half kilo", "La
moitié un kilo", "la moitié par jour"), but for half an hour, which Tatoeba has some 30 times in
each pair and the models read. Of a clock ("a las 10 y media"), the half stays the model's.

Quarters go the same way ("dos horas y cuarto", "un cuarto de hora", "tres cuartos de hora",
"an hour and a quarter", "three quarters of an hour"): the bundled es -> en model read Spanish's
"cuarto" as a room ("two hours and room", "an hour's room", "a room of cheese"), and the en -> fr
model wrote "trois quarts d'une heure" and "un kilo d'enfance en fromage".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heedful.textmap import Span

# each unit as a language writes it: singular, plural and (Spanish, French) gender
UNITS: dict[str, dict[str, tuple[str, str, str]]] = {
    "en": {
        "year": ("year", "years", ""),
        "month": ("month", "months", ""),
        "week": ("week", "weeks", ""),
        "day": ("day", "days", ""),
        "hour": ("hour", "hours", ""),
        "minute": ("minute", "minutes", ""),
        "kilo": ("kilo", "kilos", ""),
        "litre": ("litre", "litres", ""),
        "metre": ("metre", "metres", ""),
        "kilometre": ("kilometre", "kilometres", ""),
        "mile": ("mile", "miles", ""),
        "pound": ("pound", "pounds", ""),
        "dozen": ("dozen", "dozen", ""),
        "million": ("million", "million", ""),
    },
    "es": {
        "year": ("año", "años", "m"),
        "month": ("mes", "meses", "m"),
        "week": ("semana", "semanas", "f"),
        "day": ("día", "días", "m"),
        "hour": ("hora", "horas", "f"),
        "minute": ("minuto", "minutos", "m"),
        "kilo": ("kilo", "kilos", "m"),
        "litre": ("litro", "litros", "m"),
        "metre": ("metro", "metros", "m"),
        "kilometre": ("kilómetro", "kilómetros", "m"),
        "mile": ("milla", "millas", "f"),
        "pound": ("libra", "libras", "f"),
        "dozen": ("docena", "docenas", "f"),
        "million": ("millón", "millones", "m"),
    },
    "fr": {
        "year": ("an", "ans", "m"),
        "month": ("mois", "mois", "m"),
        "week": ("semaine", "semaines", "f"),
        "day": ("jour", "jours", "m"),
        "hour": ("heure", "heures", "f"),
        "minute": ("minute", "minutes", "f"),
        "kilo": ("kilo", "kilos", "m"),
        "litre": ("litre", "litres", "m"),
        "metre": ("mètre", "mètres", "m"),
        "kilometre": ("kilomètre", "kilomètres", "m"),
        "mile": ("mille", "milles", "m"),
        "pound": ("livre", "livres", "f"),
        "dozen": ("douzaine", "douzaines", "f"),
        "million": ("million", "millions", "m"),
    },
}
# other ways a language writes a unit, read in the source and in the translation
_ALSO = {
    "en": {"liter": "litre", "liters": "litre", "meter": "metre", "meters": "metre",
           "kilogram": "kilo", "kilograms": "kilo", "kg": "kilo", "kilometer": "kilometre",
           "kilometers": "kilometre", "km": "kilometre", "lb": "pound", "lbs": "pound"},
    "es": {"kilogramo": "kilo", "kilogramos": "kilo", "kg": "kilo", "km": "kilometre"},
    "fr": {"année": "year", "années": "year", "journée": "day", "kilogramme": "kilo",
           "kilogrammes": "kilo", "kg": "kilo", "km": "kilometre", "mile": "mile",
           "miles": "mile"},
}  # fmt: skip
# the numbers one to ten in words; one's forms are each language's articles too ("a year and a
# half", "un año y medio")
_WORDS = {
    "en": ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"],
    "es": ["un", "dos", "tres", "cuatro", "cinco", "seis", "siete", "ocho", "nueve", "diez"],
    "fr": ["un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix"],
}
_ONE = {"en": ("a", "an", "one"), "es": ("un", "una", "uno"), "fr": ("un", "une")}
_HALF = {"es": {"m": "y medio", "f": "y media"}, "fr": {"m": "et demi", "f": "et demie"}}
# a quarter and three quarters after a number and its unit ("dos horas y cuarto"), and of a unit
# alone ("a quarter of", "tres cuartos de")
_AND_QUARTERS = {
    "en": {1: "and a quarter", 3: "and three quarters"},
    "es": {1: "y cuarto", 3: "y tres cuartos"},
    "fr": {1: "et quart", 3: "trois quarts"},
}
_QUARTERS_OF = {
    "en": {1: "a quarter of", 3: "three quarters of"},
    "es": {1: "un cuarto de", 3: "tres cuartos de"},
    "fr": {1: "un quart de", 3: "trois quarts de"},
}
_LOOK = {  # what a sentence with one holds
    "en": ("half", "quarter"), "es": ("medi", "cuart"), "fr": ("demi", "quart"),
}  # fmt: skip


@dataclass(frozen=True)
class Half:
    """A number and a half (or a quarter, or three quarters) of a unit: ``number`` (the whole
    part; 0: a part of one unit, "half a kilo", "media hora", "un quart d'heure"), ``unit`` (a
    key of ``UNITS``), ``in_words``: whether the source wrote the number in words;
    ``quarters``: the part, in quarters of the unit (2: a half, 1: a quarter, 3: three
    quarters)."""

    number: int
    unit: str
    in_words: bool
    quarters: int = 2

    @property
    def decimal(self) -> str:
        """The whole as a decimal, written the English way ("3.5", "2.25")."""
        return f"{self.number}.{self.quarters * 25}".rstrip("0")

    def given(self, source: str) -> str:
        """The unit as the model is given it, after the number's placeholder: plural."""
        return UNITS[source][self.unit][1]

    def unit_forms(self, target: str) -> list[str]:
        """Every way ``target`` writes the unit, as the model may write it after the number."""
        singular, plural, _ = UNITS[target][self.unit]
        also = [form for form, unit in _ALSO.get(target, {}).items() if unit == self.unit]
        return sorted({singular, plural, *also}, key=len, reverse=True)

    def written(self, target: str, decimal: str, unit: bool = True) -> str:
        """The whole written the ``target`` way, unit included ("3 and a half years", "une
        heure et demie"); without ``unit`` (the model wrote none: "The boy is 12."), English's
        number and a half alone ("3 and a half"), else ``decimal``, the number written as one
        ("3,5"), as for a language with no rule here."""
        if target not in UNITS:
            return decimal
        if self.number == 0:  # a part of a unit: written whole, whether the model wrote it or not
            if self.quarters == 2:
                return _half_a(target, self.unit)
            return _quarters_of(target, self.unit, self.quarters)
        if not unit and target != "en":
            return decimal
        singular, plural, gender = UNITS[target][self.unit]
        words = _WORDS[target]
        number = words[self.number - 1] if self.in_words else str(self.number)
        if self.quarters == 2:
            part = "and a half" if target == "en" else _HALF[target][gender]
        else:
            part = _AND_QUARTERS[target][self.quarters]
        if not unit:
            return f"{number} {part}"
        if self.number == 1:
            if target == "en":
                article = "an" if singular == "hour" else "a"
                return f"{article} {singular} {part}"
            article = "una" if (target, gender) == ("es", "f") else "une" if gender == "f" else "un"
            return f"{article} {singular} {part}"
        if target == "en":  # "two and a half hours"; "two hours and three quarters"
            return (
                f"{number} {part} {plural}" if self.quarters != 3 else f"{number} {plural} {part}"
            )
        return f"{number} {plural} {part}"


def _half_a(target: str, unit: str) -> str:
    """Half a ``unit``, as ``target`` writes it: "half an hour", "media hora", "une
    demi-journée"."""
    singular, _, gender = UNITS[target][unit]
    if target == "en":
        return f"half {'an' if singular == 'hour' else 'a'} {singular}"
    if target == "es":
        return f"{'media' if gender == 'f' else 'medio'} {singular}"
    if unit in ("day", "year"):  # "une demi-journée", "une demi-année", not "un demi-jour"
        return "une demi-journée" if unit == "day" else "une demi-année"
    return f"{'une' if gender == 'f' else 'un'} demi-{singular}"


def _quarters_of(target: str, unit: str, quarters: int) -> str:
    """A quarter or three quarters of a ``unit``, as ``target`` writes it: "a quarter of an
    hour", "tres cuartos de hora", "un quart d'heure"."""
    singular = UNITS[target][unit][0]
    of = _QUARTERS_OF[target][quarters]
    if target == "en":
        return f"{of} {'an' if singular == 'hour' else 'a'} {singular}"
    if target == "fr" and singular[:1] in "aeh":  # "d'heure", "d'an"
        return f"{of[:-2]}d'{singular}"
    return f"{of} {singular}"


def _pattern(lang: str) -> re.Pattern[str]:
    units = {form: key for key, forms in UNITS[lang].items() for form in forms[:2]}
    units |= _ALSO.get(lang, {})
    unit = "|".join(sorted(map(re.escape, units), key=len, reverse=True))
    singular = {forms[0] for forms in UNITS[lang].values()} | set(_ALSO.get(lang, {}))
    one = "|".join(sorted(map(re.escape, singular), key=len, reverse=True))
    of = {"en": " of (?:a|an) ", "es": " de ", "fr": " d(?:e |')"}[lang]
    part_of = {  # "half a kilo", "medio kilo", "un demi-kilo", "a quarter of an hour"
        "en": rf"(?:half (?:a|an) |(?P<quarters_of>a quarter|three[ -]quarters){of})",
        "es": rf"(?:(?:medio|media) |(?P<quarters_of>un cuarto|tres cuartos){of})",
        "fr": rf"(?:(?:un|une) demi-|(?P<quarters_of>un quart|trois quarts){of})",
    }[lang]
    part_of += rf"(?P<unit_half>{one})"
    number = "|".join([r"\d{1,4}", *_WORDS[lang], *_ONE[lang]])
    if lang == "en":  # "3 and a half years", "a year and a half", "two hours and a quarter"
        part = r"and (?P<{}>a half|a quarter|three[ -]quarters)"
        before = rf"(?P<number>{number}) {part.format('part')} (?P<unit>{unit})"
        after = rf"(?P<one>{number}) (?P<unit_one>{unit}) {part.format('part_one')}"
        whole = rf"{before}|{after}|{part_of}"
    else:  # "3 años y medio", "une heure et demie", "dos horas y cuarto"
        part = {
            "es": r"y (?P<part>medio|media|cuarto|tres cuartos)",
            "fr": r"(?P<part>et demie?|et quart|(?:et )?trois quarts)",
        }[lang]
        whole = rf"(?P<number>{number}) (?P<unit>{unit}) {part}|{part_of}"
    return re.compile(rf"(?<![\w'’.,-])(?:{whole})(?![\w'’-])", re.IGNORECASE)


_PATTERNS = {lang: _pattern(lang) for lang in UNITS}
_UNIT_KEYS = {
    lang: {form: key for key, forms in UNITS[lang].items() for form in forms[:2]} | _ALSO[lang]
    for lang in UNITS
}


def _quarters(said: str) -> int:
    """The part a phrase says, in quarters: "a half", "y media", "et quart", "tres cuartos"."""
    said = said.lower()
    return 3 if _THREE.search(said) else 1 if _QUARTER.search(said) else 2


_THREE, _QUARTER = re.compile("three|tres|trois"), re.compile("quart|cuart")


def find_halves(text: str, lang: str | None) -> list[tuple[Span, Half]]:
    """Where ``text`` says a number and a half or a quarter the ``lang`` way, and which (none
    for another language)."""
    pattern = _PATTERNS.get(lang or "")
    lowered = text.lower()
    if pattern is None or not any(look in lowered for look in _LOOK[lang]):  # one look, mostly
        return []
    found = []
    for m in pattern.finditer(text):
        if m.group("unit_half"):  # "half a kilo", "un cuarto de hora"
            unit = _UNIT_KEYS[lang][m.group("unit_half").lower()]
            quarters = _quarters(m.group("quarters_of") or "half")
            if unit != "hour" or quarters != 2:  # "half an hour", "media hora": the models
                found.append((m.span(), Half(0, unit, True, quarters)))  # read them (Tatoeba
            continue  # has them some 30 times each)
        said = (m.group("number") or m.group("one")).lower()
        unit = _UNIT_KEYS[lang][(m.group("unit") or m.group("unit_one")).lower()]
        if said.isdigit():
            number, in_words = int(said), False
        elif said in _ONE[lang]:
            number, in_words = 1, True
        else:
            number, in_words = _WORDS[lang].index(said) + 1, True
        if number == 0:
            continue  # "0 and a half": nothing to say a half of ("half a" is number 0)
        found.append(
            (
                m.span(),
                Half(number, unit, in_words, _quarters(m.group("part") or m.group("part_one"))),
            )
        )
    return found
