"""A number and a half ("3 años y medio", "two and a half hours", "une heure et demie"), kept
from the model as the number and its unit, and written the target language's way.

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
weight and length that such phrases measure, and the dozen; a number in words is one of one to
ten, written in words again. Half a unit goes the same way ("medio kilo" as "12 kilos": "half a
kilo", "un demi-kilo", "une demi-journée"; the models wrote "half kilo", "La moitié un kilo",
"la moitié par jour"), but for half an hour, which Tatoeba has some 30 times in each pair and
the models read. Of a clock ("a las 10 y media"), the half stays the model's.
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
    },
}
# other ways a language writes a unit, read in the source and in the translation
_ALSO = {
    "en": {"liter": "litre", "liters": "litre", "meter": "metre", "meters": "metre",
           "kilogram": "kilo", "kilograms": "kilo", "kg": "kilo", "kilometer": "kilometre",
           "kilometers": "kilometre", "km": "kilometre", "lb": "pound", "lbs": "pound"},
    "es": {"kilogramo": "kilo", "kilogramos": "kilo", "kg": "kilo", "km": "kilometre"},
    "fr": {"année": "year", "années": "year", "journée": "day", "kilogramme": "kilo",
           "kilogrammes": "kilo", "kg": "kilo", "km": "kilometre"},
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
_LOOK = {"en": "half", "es": "medi", "fr": "demi"}  # what a sentence with one holds


@dataclass(frozen=True)
class Half:
    """A number and a half of a unit: ``number`` (the whole part; 0: half a unit, "half a
    kilo", "media hora", "une demi-heure"), ``unit`` (a key of ``UNITS``), ``in_words``: whether
    the source wrote the number in words."""

    number: int
    unit: str
    in_words: bool

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
        if self.number == 0:  # half a unit: written whole, whether the model wrote it or not
            return _half_a(target, self.unit)
        if not unit and target != "en":
            return decimal
        singular, plural, gender = UNITS[target][self.unit]
        words = _WORDS[target]
        number = words[self.number - 1] if self.in_words else str(self.number)
        if not unit:
            return f"{number} and a half"
        if self.number == 1:
            if target == "en":
                article = "an" if singular == "hour" else "a"
                return f"{article} {singular} and a half"
            article = "una" if (target, gender) == ("es", "f") else "une" if gender == "f" else "un"
            return f"{article} {singular} {_HALF[target][gender]}"
        if target == "en":
            return f"{number} and a half {plural}"
        return f"{number} {plural} {_HALF[target][gender]}"


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


def _pattern(lang: str) -> re.Pattern[str]:
    units = {form: key for key, forms in UNITS[lang].items() for form in forms[:2]}
    units |= _ALSO.get(lang, {})
    unit = "|".join(sorted(map(re.escape, units), key=len, reverse=True))
    singular = {forms[0] for forms in UNITS[lang].values()} | set(_ALSO.get(lang, {}))
    one = "|".join(sorted(map(re.escape, singular), key=len, reverse=True))
    half_a = {  # "half a kilo", "medio kilo", "un demi-kilo"
        "en": rf"half (?:a|an) (?P<unit_half>{one})",
        "es": rf"(?:medio|media) (?P<unit_half>{one})",
        "fr": rf"(?:un|une) demi-(?P<unit_half>{one})",
    }[lang]
    number = "|".join([r"\d{1,4}", *_WORDS[lang], *_ONE[lang]])
    if lang == "en":  # "3 and a half years", "a year and a half"
        before = rf"(?P<number>{number}) and a half (?P<unit>{unit})"
        after = rf"(?P<one>{'|'.join(_ONE['en'])}) (?P<unit_one>{unit}) and a half"
        whole = rf"{before}|{after}|{half_a}"
    else:  # "3 años y medio", "une heure et demie"
        half = "y (?:medio|media)" if lang == "es" else "et demie?"
        whole = rf"(?P<number>{number}) (?P<unit>{unit}) {half}|{half_a}"
    return re.compile(rf"(?<![\w'’.,-])(?:{whole})(?![\w'’-])", re.IGNORECASE)


_PATTERNS = {lang: _pattern(lang) for lang in UNITS}
_UNIT_KEYS = {
    lang: {form: key for key, forms in UNITS[lang].items() for form in forms[:2]} | _ALSO[lang]
    for lang in UNITS
}


def find_halves(text: str, lang: str | None) -> list[tuple[Span, Half]]:
    """Where ``text`` says a number and a half the ``lang`` way, and which (none for another
    language)."""
    pattern = _PATTERNS.get(lang or "")
    if pattern is None or _LOOK[lang] not in text.lower():  # most sentences: one look
        return []
    found = []
    for m in pattern.finditer(text):
        if m.group("unit_half"):  # "half a kilo"
            unit = _UNIT_KEYS[lang][m.group("unit_half").lower()]
            if unit != "hour":  # "half an hour", "media hora": the models read them (Tatoeba
                found.append((m.span(), Half(0, unit, True)))  # has them some 30 times each)
            continue
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
        found.append((m.span(), Half(number, unit, in_words)))
    return found
