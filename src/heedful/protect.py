"""Spans a model cannot copy (URLs, e-mail addresses, long numbers), kept out of its way.

The bundled models saw few URLs, addresses or long numbers in Tatoeba: they break them into rare
pieces and garble them ("Llama al 612345678." -> "Call up 62348."). Each such span is replaced by
a placeholder the model copies, and the placeholder in the translation by the span. Tried on the
bundled models with one to three spans a sentence: for URLs and e-mail addresses a city's name
("Escríbeme a Boston mañana.") came back in 10 of 14 Spanish and 12 of 13 English sentences,
where short numbers came back in 11 and 9, and removing the span to put it back by alignment, as
``heedful.unknown_words`` does, lost the sentences' grammar ("Llama al." -> "Call up."); for
numbers, round numbers ("Pagué 100 euros por el coche.") came back in 9 of 10 and 10 of 10, with
better translations around them than names ("I paid for Boston and a car."). A placeholder the
model drops is put back where word alignment says (``Protected.missing``).

Every number but a lone "1" is protected too: after fine-tuning on numbers (digits
split, heedful.data.augment), the bundled models still copied only 93% (es -> en) and 87%
(en -> fr) of the numbers of bench/robustness.py, repeating or dropping digits ("1918" ->
"19188", "22:53" -> "22:530", "6 pasajes" -> "If you go"); "1" stays with the model, which
writes "1 year" or "one year" as the sentence needs (a placeholder would make it "1 years").
A number with a decimal mark or grouped by thousands is written the target language's way
("1.234,50" -> "1,234.50" from Spanish to English); other numbers (times, phone numbers, codes)
are copied as they are.

Codes of letters and digits ("42A", "IB3456", "PS5") are kept the same way: a number stands in
for one that starts with a digit, a city for one that starts with a letter. A unit's symbol after
a number ("2,5 kg", "120 cm", "30 °C", "90 km/h") goes with it, behind one number placeholder:
the bundled models wrote "5 kicked", "120 cym" and "30 Ó" for them ("2,5 kg" -> "2.5 kg"). So
does a currency's symbol before or after its amount ("$5", "10 €"), written where the target
language writes it ("$5" in English, "5 $" in French and Spanish), with whatever currency the
model wrote next to the placeholder taken in ("100 euros" for "10 €": "€10"): the models wrote
"Ça m'a coûté 5 dollars et 10." for "It cost me $5 and €10." and "It costs 5." for "Cuesta 5 $."
(heedful.money: found, written, and in millions "20 millions de dollars").

A date written with a month's name ("3 de mayo de 1990", "May 3, 1990") is given to the model
as a weekday, which it translates, and written the target language's way where the weekday is
in its translation (heedful.dates). So is a month without a day ("desde marzo de 2018"), as the
month the model translates best ("desde octubre"), whose translation becomes the month, with its
year ("since March 2018").

A time on the 12-hour clock ("10am", "3 p.m.") is kept the same way, behind a short number, and
written on the 24-hour clock where the target language is not English: the bundled en -> fr model
wrote "100 heures" for "10am" and "11 heures" for "11 p.m."; it now writes "10 heures" and "23
heures", and "15 h" where it writes no word for hours ("à 15 au 2e étage" for "at 3pm on the 2nd
floor"). So is an ordinal number, written the target language's way ("the 2nd floor" -> "le 2e
étage", "el 5º piso" -> "the 5th floor"; a day of the month, "on the 17th", as "le 17"): the
models wrote "le 2nd terre" and "the 5o floor". Hashtags and mentions ("#vacaciones", "@juan")
are kept the same way, as are words that mix symbols the vocabulary lacks with digits, or with
letters on both sides ("£5", "[1]", "x=3"; heedful.typography.unreadable_symbols): the bundled
models lack "#", "@", "£" and "[", and wrote " ⁇ vacaciones with  ⁇ juan", " ⁇ 5" and "la note
 ⁇ 3 ⁇ ". An amount keeps its sign and is written the target language's way ("£1.250,50" ->
"£1,250.50").

A phone number written with brackets, a country code or hyphens ("+1 (555) 123-4567", "01 23 45
67 89") is found by phonenumbers (Google's libphonenumber, leniency POSSIBLE, the region of the
source language's main country) and kept whole behind one number, copied as it is: the bundled
en -> fr model was given "100 (200) 300" and wrote "le 123-4567 555 +1 mûres d'emprunt 123-4567".
A word for hours or years the model writes after it is dropped: it read "Please call me at 100."
as a time ("Appelle-moi à 100 heures") and "His number is 100, I think." as an age ("100 ans").

An English decade ("the 1990s", "the '80s") keeps its "s" in the model's text and its number is
written "années 1990" / "años 1990" (the model wrote "dans les 1990"; a singular article before
it is made plural: "du" -> "des"); "etc.", written the same in English, Spanish and French, is
kept (the models wrote "bien sûr" and "some"). A word for hours or years that the model wrote
after a number that already has its unit is dropped ("Il est 25°C heures dehors" -> "Il est 25°C
dehors").

The placeholders of software strings (``{name}``, ``{0}``, ``{{count}}``, ``%s``, ``%(count)d``,
``%1$s``, ``%{name}``, ``${name}``, Qt's ``%1``) are protected the same way, with a name: the
bundled models turned them into words ("Hola {name}" -> "Hello ap-handy"), and a number in their
place was as often written out in words ("%d deux cents") as copied.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field

import phonenumbers

from heedful.acronyms import Acronym, find_acronyms
from heedful.articles import (
    FRENCH_TITLE,
    article_elided,
    elision_before,
    french_title,
    plural_before,
)
from heedful.centuries import STAND_IN, century_forms, find_centuries, write_century
from heedful.countries import country_name, country_names, stand_ins
from heedful.countries import forms as country_forms
from heedful.dates import (
    KEPT_BEFORE,
    MONTHS,
    RANGE_GIVEN,
    STAND_INS,
    WEEKDAYS,
    find_dates,
    find_holidays,
    find_weekday_ranges,
    put_date,
    weekday_pattern,
    write_date,
)
from heedful.halves import UNITS, Half, find_halves
from heedful.money import (
    CURRENCY_AFTER,
    CURRENCY_BEFORE,
    MONEY,
    MONEY_PARTS,
    is_money,
    scaled_money,
    write_money,
)
from heedful.months import MONTH_STAND_INS, find_months, write_month
from heedful.names import feminine_title, write_title
from heedful.sayings import congratulations_on, opening_wish, wish_within
from heedful.textmap import Span, TextMap
from heedful.textmap import overlap as _overlap
from heedful.unknown_words import Unreadable
from heedful.written import (
    BEFORE_A_NOUN,
    DECADE_WORD,
    NUMBER,
    english_suffix,
    grouped,
    is_said_time,
    localise_number,
    on_24_hour_clock,
    spanish_clock_times,
    worded_numbers,
    write_decade,
    write_ordinal,
)

# what the bundled models copy, the same in Spanish, English and French
NAMES = ("Boston", "Chicago", "Berlin", "Denver", "Dallas", "Toronto")
NUMBERS = ("100", "200", "300", "400", "500", "600")
# for a number of one or two digits (a day, an hour): a three-digit one there was read as a year
# ("Nació el 100 de junio." -> "He was born on June 1000 of June.")
SHORT_NUMBERS = ("12", "15", "20", "30", "40", "50")
# for names (``extra`` spans): Tatoeba's own people, whom the bundled models copy; a city in a
# person's place was read as a place ("Mi vecina Boston llegó de Lagos" -> "arrived in Boston")
PEOPLE = ("Tom", "Mary", "John", "Alice", "Ken", "Jane")
WOMEN = {"Mary", "Alice", "Jane"}
# a person placeholder the model may write the target language's way ("Mary arrives" -> "Marie
# arrive"): each form stands for the placeholder in a translation
_NAME_FORMS = {form: group for group in [("Mary", "Marie", "María"), ("John", "Jean", "Juan")]
               for form in group}  # fmt: skip
KEEP = {"1"}  # numbers left to the model, but next to another number (``_PAIRED``)


def written_forms(placeholder: str) -> tuple[str, ...]:
    """The ways a translation may hold ``placeholder`` ("Mary": "Marie", "María" too)."""
    return _NAME_FORMS.get(placeholder, (placeholder,))


_URL = r"(?:https?://|www\.)[^\s<>\"']+[^\s<>\"'.,;:!?)\]}]"
_EMAIL = r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"
# a unit's symbol after a number ("5 kg", "120 cm", "30 °C", "90 km/h"), kept with it: the
# bundled models wrote "5 kicked", "120 cym", "30 Ó", "200 gourts" for them
# (a space before letters: "5km" is a code, "1990s" a decade)
_UNIT = (
    r"(?:[ \u00a0\u202f]?[°º][CF]|[ \u00a0\u202f](?:km/h|mph|kWh|[kMGT]?W|[kKMGT]B"
    r"|[kcm]?m[²³23]?|[km]?g|[mc]?[lL]|ms|min|h|s))"
)
# dimensions, numbers joined by "x" with the unit after the last ("120 x 60 x 75 cm", "2x4"): one
# span, which the models wrote "120 60 75 cm" and "120 60 120 75 cm" a number at a time
_DIMENSIONS = rf"\d+(?:[.,]\d+)?(?:[ \u00a0]?[xX×][ \u00a0]?\d+(?:[.,]\d+)?)+{_UNIT}?"
# software strings' placeholders: Python/ICU/.NET braces, i18next/Jinja/Weblate double braces,
# printf (positional too) and Python's named ones, Ruby's %{name}, JavaScript's ${name}, Qt's %1;
# a percent sign after a digit ("50%s"?) or before a letter ("%sabor") is no placeholder
_PLACEHOLDER = (
    r"\{\{[^{}\n]{1,40}\}\}"
    r"|\$?\{[\w.]{0,40}(?:![rsa])?(?::[^{}\s]{0,20})?\}"
    r"|%\{[\w.]{1,40}\}"
    r"|(?<![%\d])%\([\w.]{1,40}\)[-#0+]*\d*(?:\.\d+)?[sdifuxXeEgGcr]"
    r"|(?<![%\d])%(?:\d{1,2}\$)?[-#0+]*\d*(?:\.\d+)?(?:ll|l|h|z)?[sdifuxXeEgGcp@](?![A-Za-z])"
    r"|(?<![%\d\w])%\d{1,2}(?![\d$\w])"
)
# a code of letters and digits ("42A", "IB3456", "PS5", "COVID-19", "5km"), not an ordinal ("3rd",
# "1er", "2º"), a decade ("1990s") or an hour ("3pm"): the bundled models garbled them ("bus 42A"
# -> "bus 422", "my flight is IB3456" -> "IB ... Tom3456"). One that starts with a digit gets a
# number as its placeholder, one that starts with a letter a city ("Mon vol est IB3456"). An
# English compound of a number and words in lower case is none ("25-year-old": its number is a
# span, its words the model's, given with spaces: heedful.written.spaced_compounds)
_CODE = (
    r"(?!\d+(?:st|nd|rd|th|er|re|e|ème|eme|ère|o|a|º|ª|s|am|pm)(?![\w-]))"
    r"(?!\d+(?:-[^\W\d_A-Z]+)+(?![\w-]))"  # not "25-year-old": its number alone
    r"(?=[\w-]*\d)(?=[\w-]*[^\W\d_])[^\W_]+(?:-[^\W_]+)*(?:\.\d+)*"  # "v2.1" whole
)
# a keyboard shortcut ("Ctrl+C", "Alt+F4", "Cmd+Shift+P"): a name for the model, as it is in the
# translation; the bundled en -> fr model wrote "Press Tom n'a pas de la copie." for "Press
# Ctrl+C to copy." (only "Ctrl" kept from it, as a name)
_KEYS = (
    r"(?i:ctrl|alt|shift|cmd|command|option|opt|control|win|fn|super|meta)"
    r"(?:\+(?:[^\W_]+|[^\w\s]))+"
)
# a number between symbols and nothing else ("£5", "[1]"): a number's placeholder
_SYMBOLS_NUMBER = re.compile(rf"([^\w\s]*?)({NUMBER})([^\w\s]*)")
# a hashtag or a mention ("#vacaciones", "@juan", "#42"): a name, copied as it is; the bundled
# models lack "#" and "@" and wrote " ⁇ vacations", " ⁇ j ⁇ j"
_TAG = r"[#@][^\W_][\w-]*(?<!-)"
# a time of day on the 12-hour clock ("10am", "3 p.m.", "10:30 PM"): the bundled en -> fr model
# wrote "100 heures" for "10am"; a short number stands in, and it is written on the 24-hour clock
# where the target language is not English ("à 15 heures")
_CLOCK = (  # Spanish writes "5 p. m." too
    r"(?:1[0-2]|0?[1-9])(?::[0-5]\d)?[ \u00a0]?"
    r"(?:[ap]\.m\.|[ap]\. m\.|[AP]\.M\.|[ap]m|[AP]M)(?![\w])"
)
# an ordinal number ("2nd", "1er", "3ème", "2º", "1.ª"), written the target language's way
# ("2nd floor" -> "2e étage"): the bundled models wrote "le 2nd terre" and "the 2o floor"
# after "the", an English ordinal before a noun ("the 2nd floor": written.BEFORE_A_NOUN) is one;
# else it is a day ("on the 17th.", "the 3rd of", "the 21st, ...")
_ORDINAL = r"\d{1,4}(?:st|nd|rd|th|\.?er|re|ère|ème|eme|e|nde|nd|\.?º|\.?ª|ero|era)(?![\w])"
# an English decade's number ("the 1990s", "the '80s"), written "années 1990" / "años 1990"
# where the "s" after it goes: the model, given "in the 100s", writes "dans les 100"; it wrote
# "dans les 1990" for "in the 1990s"
_DECADE = r"(?:\d\d|['’])?\d0(?='?s(?![\w'’]))"
# a Spanish or French decade, its article, word and number ("los años 80", "la década de 1990",
# "les années 60"): a number for the model, "the 80s" in English; the bundled es -> en model
# wrote "The years 80 were genials." and "I was born in the age of 90."
_WORD_DECADE = (
    r"(?i:(?:los|la|les) (?:años|années|década de(?: los)?|décennie))[ \u00a0](?:\d\d)?\d0"
    r"(?![\w'’])"
)
# "etc.", written so in English, Spanish and French; the bundled models wrote "bien sûr", "some"
_ETC = r"etc(?=\.(?!\w))"  # its full stop stays in the model's text, which may end there
# hours from one time to another ("9am-5pm"): the bundled en -> fr model wrote "9 h-5 cents"
_CLOCK_RANGE = rf"{_CLOCK}[-–]{_CLOCK}"
# code between backticks, as Markdown, chat apps and issue trackers write it ("run `make test`");
# not a backtick typed for an apostrophe ("don`t", "isn`t") nor one alone with a space after it;
# two or three backticks around it too ("```make test```")
_CODE_SPAN = r"(?<![\w`])(?P<ticks>`{1,3})[^`\s](?:[^`\n]{0,98}[^`\s])?(?P=ticks)(?![\w`])"
_SPAN = re.compile(
    rf"{_CODE_SPAN}"
    rf"|(?<![\w@/.+-])(?:{_URL}|{_EMAIL}|{_TAG}|{_KEYS}|{_CLOCK_RANGE}|{_CLOCK}|{_ORDINAL}|{_CODE}"
    rf"|{MONEY}|{_DIMENSIONS}"
    rf"|{NUMBER}{_UNIT}?)(?![\w@/])|(?:{_PLACEHOLDER})|(?<![\w'’]){_ETC}"
    rf"|(?<![\w@/.+-]){_DECADE}|(?<![\w-]){_WORD_DECADE}"
)
_DECADE_AT = re.compile(_DECADE)
_DIMENSIONS_AT = re.compile(_DIMENSIONS)
# the word before a number that makes it a version's, copied as it is: "version 2.0", "la
# versión 3.1", "v. 2.0" (the en -> fr model's "La Version 2,0" before). A capitalised word before
# a number is no sign of one: "I left Tom 807.3 messages.", "October 106.1" (bench/robustness.py's
# numbers) are quantities; so "Python 3.11" is written "3,11" in French still
_VERSION_WORD = re.compile(r"(?i:\bv(?:ersi[oó]n)?)\.?[ \u00a0]*$")


def _is_version(text: str, start: int) -> bool:
    """Whether the number at ``start`` in ``text`` is a version's (``_VERSION_WORD``), not a
    quantity to write the target language's way."""
    return bool(_VERSION_WORD.search(text, 0, start))


_ETC_LANGUAGES = {"en", "es", "fr", "it", "pt"}


def find_code(text: str) -> list[Span]:
    """Where ``text`` holds code between backticks (kept whole, whatever it holds)."""
    return [m.span() for m in re.finditer(_CODE_SPAN, text)]


def find_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds code between backticks, a URL, an e-mail address, a number (but
    ``KEEP``'s, unless paired with another number: "2 a 1"; separators allowed: "612 345 678",
    "1.234,50", "8:45", "+34-612-345-678"), or a placeholder (``find_placeholders``)."""
    spans = []
    for match in _SPAN.finditer(text):
        span = match.group()
        paired = _PAIRED_BEFORE.search(text, 0, match.start()) or _PAIRED_AFTER.match(
            text, match.end()
        )
        if span in KEEP and not paired:
            continue
        spans.append(match.span())
    return spans


# a number and a word between two numbers: a score, a ratio, a choice ("2 a 1", "1 to 0", "1 o
# 2"); the es -> en model, given "El partido terminó 12 a 1." ("2" protected, "1" not), wrote
# "12 to 12": "The game ended 2 to 2." ("Perdimos 1 a 0." gave "We lost 0.")
_BETWEEN = r"[ \u00a0]+(?:a|to|à|y|and|et|o|or|ou|contra|contre|against|versus|vs\.?)[ \u00a0]+"
_PAIRED_BEFORE = re.compile(rf"\d{_BETWEEN}$")
_PAIRED_AFTER = re.compile(rf"{_BETWEEN}\d")


_DIGIT = re.compile(r"\d")
# the country whose numbering plan a language's phone numbers are read in (without a "+")
PHONE_REGIONS = {"en": "US", "es": "ES", "fr": "FR", "de": "DE", "it": "IT", "pt": "PT"}


def find_phone_numbers(text: str, language: str | None) -> list[Span]:
    """Where ``text`` holds phone numbers, as phonenumbers finds them (leniency POSSIBLE: "+1
    (555) 123-4567", "555-1234", "612 345 678"; not "1990-2000", "3-2", "1 234 567"); only
    international ones ("+33 6 12 34 56 78") for a language without a region here; not the
    digits of a code ("AB1234567", a passport's: "Tom100" for the model before, which wrote
    "AB 1234567 Mon numéro de passeport est Tom10.")."""
    if not _DIGIT.search(text):  # most sentences
        return []
    region = PHONE_REGIONS.get(language or "")
    leniency = phonenumbers.Leniency.POSSIBLE
    found = phonenumbers.PhoneNumberMatcher(text, region, leniency=leniency)
    glued = lambda at: 0 <= at < len(text) and text[at].isalpha()  # noqa: E731
    return [(m.start, m.end) for m in found if not glued(m.start - 1) and not glued(m.end)]


def find_placeholders(text: str) -> list[Span]:
    """Where ``text`` holds software placeholders (``{name}``, ``%s``, ``{{count}}``...)."""
    return [match.span() for match in re.finditer(_PLACEHOLDER, text)]


@dataclass
class Protected:
    """A sentence with its spans replaced by placeholders."""

    text: str  # what the model translates
    placeholders: list[str]
    spans: list[str]  # what each placeholder stands for in the translation
    places: list[Span] = field(default_factory=list)  # where each span was in the sentence
    # a placeholder the model translates, index -> its translation in the target language
    # (``target``): a date's weekday (heedful.dates), a month's month (heedful.months)
    translated_as: dict[int, str] = field(default_factory=dict)
    target: str | None = None
    # a time on the hour ("3pm" -> "15"): the target's word for hours follows it where the model
    # wrote none ("à 12 au 2e étage" for "at 3pm on the 2nd floor": "à 15 h au 2e étage")
    hours: set[int] = field(default_factory=set)
    # a phone number's, a score's: no hours or years after it
    phones: set[int] = field(default_factory=set)
    # a range of days' weekday, given to the model after the source's word for it ("el domingo")
    ranges: dict[int, str] = field(default_factory=dict)
    months: set[int] = field(default_factory=set)  # a month's: put back as a month, not a date
    # a placeholder the translation holds in one of several forms, each with what it becomes
    # there: a century's ("XIXe" -> "XVIe", "19e" -> "16e"; heedful.centuries), a wish's
    # stand-in ("Happy birthday" -> "Good luck"; heedful.sayings)
    written_as: dict[int, dict[str, str]] = field(default_factory=dict)
    # a number and a half ("3 años y medio"): given as a number and its unit ("12 años"), the
    # placeholder and the unit the model wrote after it written as the whole (heedful.halves)
    halves: dict[int, Half] = field(default_factory=dict)
    after: dict[int, str] = field(default_factory=dict)  # what the model is given after each
    # an acronym ("la ONU"): given as a noun ("la escuela"), which becomes it (heedful.acronyms)
    acronyms: dict[int, Acronym] = field(default_factory=dict)
    # a country given as a stand-in (heedful.countries): French elides before its name
    countries: set[int] = field(default_factory=set)

    @property
    def cased_alone(self) -> list[str]:
        """The placeholders that keep their own case in a text in capitals: not an acronym's
        noun ("ESCUELA" of "LA ONU"), which is read in lower case as the words around it."""
        return [p for k, p in enumerate(self.placeholders) if k not in self.acronyms]

    def as_translated(self) -> list[str]:
        """Each placeholder as the translation holds it (a date's: its translated weekday; a
        century's: the first of its forms; an acronym's: its noun, "école" for "the school")."""
        return [
            next(iter(self.written_as[k])) if k in self.written_as
            else self.acronyms[k].noun if k in self.acronyms
            else self.translated_as.get(k, p)
            for k, p in enumerate(self.placeholders)
        ]  # fmt: skip

    def in_translation(self, k: int) -> re.Pattern[str]:
        """Placeholder ``k`` as the translation holds it: itself, or a date's translated
        weekday (with the word before it that the date keeps)."""
        if k in self.written_as:  # longest first: "XIXe" before "XIX"
            written_as = sorted(self.written_as[k], key=len, reverse=True)
            forms = "|".join(map(re.escape, written_as))
            ended = r"(?:(?<=['’])|(?!\w))"  # "Merci d'" before "avoir"
            return re.compile(rf"(?<![\w'’-])(?:{forms}){ended}", re.IGNORECASE)
        if k in self.acronyms:  # "l'école" -> "l'ONU", "the school" -> "the UN"
            return self.acronyms[k].pattern(self.target or "")
        if k in self.halves:  # "12 years": the placeholder, and the unit if the model wrote it
            forms = "|".join(map(re.escape, self.halves[k].unit_forms(self.target or "")))
            unit = rf"(?:[ \u00a0](?P<unit>{forms}))?" if forms else ""
            number = re.escape(self.placeholders[k])
            return re.compile(rf"(?<![\w.,]){number}{unit}(?![\w])", re.IGNORECASE)
        if k in self.months:  # the month in the target language, or copied as it was given
            forms = "|".join(map(re.escape, {self.translated_as[k], self.placeholders[k]}))
            return re.compile(rf"(?<!\w)(?:{forms})(?!\w)", re.IGNORECASE)
        if k in self.translated_as:
            weekday, range_of_days = self.translated_as[k], k in self.ranges
            return weekday_pattern(weekday, self.target or "", range_of_days=range_of_days)
        return _find(self.placeholders[k])

    def _replacements(self, translation: str) -> list[tuple[Span, str]]:
        """Where each placeholder stands in ``translation`` and what it becomes there."""
        found = []
        for k, span in enumerate(self.spans):
            for match in self.in_translation(k).finditer(translation):
                if k in self.acronyms:  # "the school" -> "the UN"; "l'école" -> "l'ONU"
                    target = self.target or ""
                    article = match.group("article") if target == "en" else None
                    put = self.acronyms[k].written(target, article)
                    at = match.span() if target == "en" else match.span("noun")
                    found.append((at, _cased_as(translation[at[0] : at[1]], put)))
                elif k in self.halves:  # "12 years" -> "3 and a half years"; "12" -> "3,5"
                    unit = bool(match.group("unit"))
                    put = self.halves[k].written(self.target or "", span, unit)
                    put = _cased_as(match.group(), put)
                    if not translation[: match.start()].strip(" ¡¿\"'“«"):
                        put = put[:1].upper() + put[1:]  # it opens the sentence
                    found.append((match.span(), put))
                    if self.target == "fr":  # "de 12 litres" -> "d'un demi-litre"
                        found += elision_before(match, put, translation)
                elif k in self.written_as:  # "Happy birthday" -> "Good luck", "XIXe" -> "XVIe"
                    written_as = {f.lower(): w for f, w in self.written_as[k].items()}
                    put = written_as[match.group().lower()]
                    found.append((match.span(), _cased_as(match.group(), put)))
                    if k in self.countries and self.target == "fr":  # "la France" -> "l'Autriche"
                        found += elision_before(match, put, translation)
                        found += article_elided(match, put, translation)
                elif k in self.months:
                    found.append((match.span(), _cased_as(match.group(), span)))
                    if self.target == "fr":  # "d'octobre" for "mars": "de mars"
                        found += elision_before(match, span, translation)
                elif k in self.translated_as:
                    range_of_days = k in self.ranges
                    found += put_date(match, span, self.target or "", range_of_days=range_of_days)
                else:
                    put = _put(match, span)
                    if k in self.hours and not _AFTER_HOUR.match(translation, match.end()):
                        put += HOUR_WORD[self.target]
                    article: list[tuple[Span, str]] = []
                    woman = self.placeholders[k] in WOMEN  # "Dr Jennifer Smith est prête."
                    if self.target == "fr" and FRENCH_TITLE.match(span) and not woman:
                        put, article = french_title(match, put, translation)
                    phone = k in self.phones
                    if scaled := scaled_money(match, span, translation, self.target):
                        found.append(scaled)  # "100 millions" for "$20 million"
                        continue
                    found.append((_extent(match, span, translation, phone=phone), put))
                    found += plural_before(match, span, translation) + article
                    if self.target == "fr" and not span[:1].isdigit() and not article:
                        found += elision_before(match, span, translation)
        return sorted(found)

    def mended(self, translation: str) -> str:
        """``translation`` with each number the model wrote in a number placeholder's stead put
        back to that placeholder: a number the model was not given, one digit from a placeholder
        the translation lacks (a digit dropped, added or changed: "100" written "10", "1000" or,
        next to a "12", "120"). The closest pairs are mended first, each number once."""
        absent = [p for p in self.placeholders if p.isdigit() and not _find(p).search(translation)]
        if not absent:
            return translation
        given = set(re.findall(r"\d+", self.text))
        written = [m for m in _LONE_NUMBER.finditer(translation) if m.group() not in given]
        pairs = sorted(
            (_digit_distance(m.group(), p), k, j)
            for k, m in enumerate(written)
            for j, p in enumerate(absent)
        )
        chosen: dict[int, str] = {}
        used: set[int] = set()
        for distance, k, j in pairs:
            if distance <= 1 and k not in chosen and j not in used:
                chosen[k] = absent[j]
                used.add(j)
        for k in sorted(chosen, reverse=True):  # from the end: earlier offsets stay right
            start, end = written[k].span()
            translation = translation[:start] + chosen[k] + translation[end:]
        return translation

    def unstuttered(self, translation: str) -> str:
        """``translation`` without a lone capital the model wrote before a name's placeholder
        that it opens ('"Boston"' written '"B Boston"' for the Wi-Fi password "sunshine123"),
        where the model's text has none."""
        for name in {p for p in self.placeholders if not p.isdigit()}:
            stutter = re.compile(rf"(?<![\w'’]){re.escape(name[0])} (?={re.escape(name)}\b)")
            if not stutter.search(self.text):
                translation = stutter.sub("", translation)
        return translation

    def unrepeated(self, translation: str) -> str:
        """``translation`` without the second and later times the model wrote a number's or a
        date's placeholder that the model's text holds once (a date's with the word before it
        that a date keeps: "le", "on", "el"): "Valorado con 4,5 de 5 estrellas" gave "with 4.5
        of 5 4.5 stars", "We arrive in Paris on August 3 and stay until the 10th." "... et
        restons le 3 août jusqu'au 10"."""
        for k, placeholder in enumerate(self.placeholders):
            dated = k in self.translated_as and k not in self.months
            if not (placeholder.isdigit() or dated) or k in self.halves:
                continue
            if len(_find(placeholder).findall(self.text)) != 1:
                continue
            written = self.translated_as.get(k, placeholder)
            before = "|".join(KEPT_BEFORE.get(self.target or "", ())) if dated else ""
            pattern = rf"[ \u00a0](?:(?:{before}) )?" if before else r"[ \u00a0]?"
            found = list(re.finditer(pattern + rf"(?<![\w.,]){re.escape(written)}(?![\w])",
                                     translation, re.IGNORECASE))  # fmt: skip
            for again in reversed(found[1:]):
                translation = translation[: again.start()] + translation[again.end() :]
        return translation

    def missing(self, translation: str, split: Unreadable) -> Unreadable:
        """``split`` (the model's source, and the words carried past the model) with the
        placeholders that ``translation`` lacks carried too, to be put back by alignment after
        the source word before each."""
        absent = [
            k
            for k in range(len(self.placeholders))
            if not self.in_translation(k).search(translation)
        ]
        if not absent:
            return split
        carried = list(zip(split.after, split.words, strict=True))
        for k in absent:
            seen = _find(self.placeholders[k])
            found = (i for i, w in enumerate(split.readable) if seen.search(w))
            carried.append((next(found, 0) - 1, self.as_translated()[k]))
        carried.sort(key=lambda pair: pair[0])  # stable: in order of the source
        return Unreadable(split.readable, [w for _, w in carried], [a for a, _ in carried])

    def restore(self, translation: str) -> str:
        """``translation`` with each placeholder replaced by its span (every time it occurs)."""
        return self.restore_map(translation)[0]

    def restore_map(self, translation: str) -> tuple[str, TextMap]:
        """``restore``, and the map from ``translation``'s offsets to the restored text's."""
        return TextMap.replacing(translation, self._replacements(translation))

    def sentence_map(self, sentence: str) -> TextMap:
        """The map from ``text``'s offsets to those of ``sentence``, the text protected."""
        given = [
            self.ranges.get(k, "") + p + self.after.get(k, "")
            for k, p in enumerate(self.placeholders)
        ]
        text, forward = TextMap.replacing(sentence, list(zip(self.places, given, strict=True)))
        if text != self.text:
            raise ValueError(f"{self.text!r} was not protected from {sentence!r}")
        return forward.inverse()


def protect(
    text: str,
    source: str | None = None,
    target: str | None = None,
    extra: list[Span] = (),
    kept: list[Span] = (),
    women: Collection[Span] = (),
    cities: Collection[Span] = (),
    countries: dict[Span, str] | None = None,
) -> Protected | None:
    """``text`` with its spans replaced by placeholders it does not already hold (numbers for
    numbers, cities for URLs and addresses, people for ``extra``, weekdays for dates written with
    a month's name: heedful.dates); None if it has none. ``source`` and ``target``: the
    languages, for writing numbers and dates. ``extra``: names to protect (heedful.names),
    where they overlap none of the other spans; ``kept``: other spans to copy as they are
    (heedful.typography.unreadable_symbols), each in place of the spans it overlaps ("£5", not
    "5"); ``women``: those of ``extra`` that name a woman, who gets a woman's placeholder
    ("Mary"), as a woman's title gets ("Mrs. Smith"); ``cities``: those that name a place, which
    gets a city's placeholder ("Boston"): given a person's, "Hoy hace 28 grados en Sevilla." came
    back as "Sevilla is 28 degrees in Sevilla today." ("Tom is ... in Tom"); ``countries``: the
    countries the model read too seldom and their codes (heedful.countries), each given as a
    country of its kind that it reads ("au Canada" for "au Pérou")."""
    code = find_code(text)
    # code, and dimensions ("10×15 cm": "×" is a symbol the vocabulary may lack), are kept whole
    spanned = find_spans(text)
    whole = code + [s for s in spanned if _DIMENSIONS_AT.fullmatch(text, *s)]
    kept = [k for k in kept if not any(_overlap(k, c) for c in whole)]
    dates = dict(find_dates(text, source)) if target in WEEKDAYS else {}
    if target in WEEKDAYS:  # "de lunes a viernes": one range of days
        ranges_of_days = find_weekday_ranges(text, source)
        dates |= {d: v for d, v in ranges_of_days if not any(_overlap(d, e) for e in dates)}
        holidays = find_holidays(text, source)  # "New Year's Eve": a weekday for the model too
        dates |= {d: v for d, v in holidays if not any(_overlap(d, e) for e in dates)}
    dates = {d: v for d, v in dates.items() if not any(_overlap(d, c) for c in code)}
    months = dict(find_months(text, source)) if target in MONTHS else {}
    months = {m: v for m, v in months.items() if not any(_overlap(m, d) for d in [*dates, *code])}
    dates |= months
    centuries = dict(find_centuries(text, source)) if target in ("en", "es", "fr") else {}
    centuries = {c: n for c, n in centuries.items() if not any(_overlap(c, d) for d in dates)}
    dates |= centuries
    halves = dict(find_halves(text, source)) if target in UNITS else {}  # "3 años y medio"
    halves = {h: v for h, v in halves.items() if not any(_overlap(h, d) for d in [*dates, *code])}
    dates |= halves
    clocks = dict(spanish_clock_times(text, source, target))  # "las 9 y media": "9:30"
    clocks = {c: v for c, v in clocks.items() if not any(_overlap(c, d) for d in [*dates, *code])}
    dates |= clocks
    acronyms = dict(find_acronyms(text, source, target))  # "la ONU", "the UN"
    acronyms = {a: v for a, v in acronyms.items() if not any(_overlap(a, d) for d in dates)}
    dates |= acronyms
    wish = opening_wish(text, source, target)  # "Buen viaje" of "¡Buen viaje, chicos!"
    wish = wish or wish_within(text, source, target)  # of "I wish you a merry Christmas."
    wish = wish or congratulations_on(text, source, target)  # "Enhorabuena por"
    wishes = {} if wish is None else {wish[0]: wish[1:]}
    dates |= wishes
    countries = countries or {}
    countries = {c: v for c, v in countries.items() if not any(_overlap(c, d) for d in dates)}
    dates |= countries
    phones = [
        p for p in find_phone_numbers(text, source) if not any(_overlap(p, k) for k in kept + code)
    ]
    kept = list(kept) + phones
    found = list(kept) + [s for s in spanned if not any(_overlap(s, k) for k in kept)]
    if target != "en":  # "los años 90" into French: only its number kept from the model
        found = [_number_of_decade(text, s) for s in found]
    spans = [s for s in found if not any(_overlap(s, d) for d in dates)]
    worded = dict(worded_numbers(text, source))  # "mil quinientas": "1500", as a number is
    worded = {w: n for w, n in worded.items() if not any(_overlap(w, s) for s in spans + [*dates])}
    spans += list(worded)
    spans += [e for e in extra if not any(_overlap(e, s) for s in spans + list(dates))]
    spans = sorted(spans + list(dates))
    if not spans:
        return None
    days = tuple(STAND_INS.get(source or "", ()))
    months_given = tuple(MONTH_STAND_INS.get(source or "", ()))
    lowered = text.lower()
    pools = (NAMES, NUMBERS, SHORT_NUMBERS, PEOPLE, days, months_given)
    free = {pool: [p for p in pool if not _find(p.lower()).search(lowered)] for pool in pools}
    names, symbols = set(extra), set(kept)
    out, placeholders, originals, places, at = [], [], [], [], 0
    translated_as: dict[int, str] = {}
    hours: set[int] = set()
    phone_numbers: set[int] = set()
    ranges: dict[int, str] = {}
    month_indices: set[int] = set()
    written_as: dict[int, dict[str, str]] = {}
    half_indices: dict[int, Half] = {}
    acronym_indices: dict[int, Acronym] = {}
    given_after: dict[int, str] = {}  # ("after" is a money span's symbol below)
    country_indices: set[int] = set()
    taken: set[str] = set()  # the countries given so far
    free_centuries = [write_century(STAND_IN, source)] if centuries else []
    free_centuries = [c for c in free_centuries if not _find(c).search(text)]
    for start, end in spans:
        span = text[start:end]
        if (start, end) in centuries:  # "XVI" of "el siglo XVI": "XIX" for the model
            pool, original = free_centuries, write_century(centuries[start, end], target)
        elif (start, end) in acronyms:  # "la ONU": "la escuela" for the model
            pool = [acronyms[start, end].given]
            original = acronyms[start, end].written(target or "", None)
        elif (start, end) in halves:  # "3 años y medio": "12 años" for the model
            pool = free[SHORT_NUMBERS] or free[NUMBERS]
            original = localise_number(halves[start, end].decimal, "en", target)
        elif (start, end) in clocks:  # "9 y media" of "a las 9 y media": "12", "9:30" written
            pool, original = free[SHORT_NUMBERS] or free[NUMBERS], clocks[start, end]
        elif (start, end) in worded:  # "treinta y cinco": "100" for the model, "35" written
            pool, original = free[NUMBERS], grouped(worded[start, end], target)
        elif (start, end) in wishes:  # "¡Buen viaje, chicos!": "¡Feliz cumpleaños, chicos!"
            stand_in, forms = wishes[start, end]
            pool, original = [stand_in], next(iter(forms.values()))
        elif (start, end) in countries:  # "Perú": "Canadá" for the model, "Peru" written
            code = countries[start, end]
            given_codes = stand_ins(code, target)
            pool = [country_name(c, source) for c in given_codes]
            pool = [c for c in pool if c not in taken and not _find(c.lower()).search(lowered)]
            if not given_codes:  # "à Chypre": a city stands in
                pool = free[NAMES]
            original = country_name(code, target)
            if len(span) > 1 and span.isupper():  # "ISLANDIA": "ISLANDE", as it was typed
                original = original.upper()
        elif (start, end) in months:
            pool, original = free[months_given], write_month(months[start, end], target)
        elif (start, end) in dates:
            pool, original = free[days], write_date(dates[start, end], target)
        elif (start, end) in cities and free[NAMES]:  # "en Sevilla": "en Boston" for the model
            pool, original = free[NAMES], span
        elif (start, end) in names:  # "Sra. Ruiz": a woman for her ("Mary"), "Mrs. Ruiz" in English
            pool, original = free[PEOPLE], write_title(span, source, target)
            woman = feminine_title(span, source) or any(_overlap((start, end), w) for w in women)
            if woman and any(p in WOMEN for p in pool):
                pool.insert(0, pool.pop(next(k for k, p in enumerate(pool) if p in WOMEN)))
        elif re.fullmatch(_ORDINAL, span):  # "2nd": "12" for the model, "2e" in French
            pool = free[SHORT_NUMBERS] or free[NUMBERS]
            day = (  # "on the 17th.", "the 3rd of"; not "the 2nd floor", "finished 2nd in"
                source == "en"
                and text[:start].lower().endswith("the ")
                and not BEFORE_A_NOUN.match(text, end)
            )
            original = write_ordinal(span, target, day=day)
        elif _is_decade(text, start, end):  # "1990" of "1990s" -> "années 1990"
            if source != "en" or target not in DECADE_WORD:
                continue  # left to the model
            pool, original = free[NUMBERS], write_decade(span, target)
        elif re.fullmatch(_WORD_DECADE, span):  # "los años 80": "7" for the model, "the 80s"
            the = "The" if span[0].isupper() else "the"
            original = f"{the} {span.split()[-1]}s"
            pool, original = free[NUMBERS], original.upper() if span.isupper() else original
        elif span == "etc":  # "etc.": a name for the model, as it is in the target
            if not {source, target} <= _ETC_LANGUAGES:
                continue  # left to the model
            pool, original = free[NAMES], span
        elif re.fullmatch(_CLOCK_RANGE, span):  # "9am-5pm": "9 h-17 h" in French
            pool = free[SHORT_NUMBERS] or free[NUMBERS]
            ends = re.findall(_CLOCK, span)
            word = HOUR_WORD.get(target or "", "")
            times = [on_24_hour_clock(end) for end in ends]
            times = [t if ":" in t else t + word for t in times]  # "9 h", "9:30"
            original = span if target == "en" else "-".join(times)
        elif re.fullmatch(_CLOCK, span):  # "3pm": "12" for the model, "15" in French
            pool = free[SHORT_NUMBERS] or free[NUMBERS]
            original = span if target == "en" else on_24_hour_clock(span)
            original = original.replace(". m.", ".m.")  # "5 p. m." -> "5 p.m." in English
        elif is_money(span):  # "$5", "5 $"
            pool = free[NUMBERS]
            before, digits, after = MONEY_PARTS.fullmatch(span).groups()
            amount = localise_number(digits, source, target)
            original = write_money(span, before or after, amount, target)
        elif span.startswith("`"):  # code: a city for the model, as it is in the translation
            pool, original = free[NAMES], span
        elif _DIMENSIONS_AT.fullmatch(span):  # "120 x 60 x 75 cm": each number localised
            pool = free[NUMBERS]
            cut = _unit_start(span)
            numbers = re.sub(r"\d+(?:[.,]\d+)?", lambda m: localise_number(m.group(), source,
                             target), span[:cut])  # fmt: skip
            original = numbers + span[cut:]
        elif (start, end) in phones:  # "+1 (555) 123-4567": as it is
            pool, original = free[NUMBERS], span
        elif (start, end) in symbols and (amount := _SYMBOLS_NUMBER.fullmatch(span)):  # "£5"
            pool = free[NUMBERS]
            before, digits, after = amount.groups()
            original = before + localise_number(digits, source, target) + after
        else:
            number = span.lstrip("+-\u2212")[:1].isdigit()
            pool = free[NAMES if "@" in span or not number else NUMBERS]
            if pool is free[NUMBERS] and span.isdigit() and len(span) <= 2 and free[SHORT_NUMBERS]:
                pool = free[SHORT_NUMBERS]
            cut = _unit_start(span)
            original = localise_number(span[:cut], source, target) + span[cut:]
            if _is_version(text, start):
                original = span  # "Python 3.11", "version 2.0": no decimal to write anew
        if not pool:
            continue  # more spans than placeholders: the model is given the rest as they are
        given = ""  # what the model is given before the placeholder
        behind = ""  # and after it
        if (start, end) in acronyms:
            acronym_indices[len(placeholders)] = acronyms[start, end]
        elif (start, end) in halves:
            half_indices[len(placeholders)] = halves[start, end]
            behind = " " + halves[start, end].given(source)
            behind = behind.upper() if span.isupper() else behind
            given_after[len(placeholders)] = behind
        elif (start, end) in clocks:
            pass  # a number the model reads as a time ("a las 12"), written "9:30"
        elif (start, end) in centuries:  # each form the stand-in may take, and what it becomes
            written_as[len(placeholders)] = century_forms(centuries[start, end], target)
        elif (start, end) in wishes:
            written_as[len(placeholders)] = wishes[start, end][1]
        elif (start, end) in countries:  # a city's placeholder for "à Chypre": as a name
            if pool is not free[NAMES]:
                given_code = country_names(source)[pool[0]]
                written = dict.fromkeys(country_forms(given_code, target), original)
                written_as[len(placeholders)] = written
                country_indices.add(len(placeholders))
                taken.add(pool[0])
        elif (start, end) in months:  # the month the translation will hold
            translated_as[len(placeholders)] = MONTHS[target][MONTHS[source].index(pool[0])]
            month_indices.add(len(placeholders))
        elif (start, end) in dates:  # the weekday the translation will hold
            translated_as[len(placeholders)] = WEEKDAYS[target][WEEKDAYS[source].index(pool[0])]
            if dates[start, end].until is not None:  # "del 3 al 7 de junio": "el domingo"
                given = RANGE_GIVEN[source]
                # capitalised as its first word ("Del", "From"), not as an English weekday is
                weekday = span.split()[0] in WEEKDAYS[source] and re.search(r"\w", text[:start])
                given = given.capitalize() if span[0].isupper() and not weekday else given
                given = given.upper() if span.isupper() else given  # ALL CAPS stays so
                ranges[len(placeholders)] = given
        elif target in HOUR_WORD and re.fullmatch(_CLOCK, span) and ":" not in original:
            hours.add(len(placeholders))  # "3pm" -> "15 h" where the model writes no "heures"
        elif (
            (start, end) in phones
            or _BARE_RANGE.fullmatch(span)
            and not _UNIT_AFTER.match(text, end)
        ):  # a score, or a range of numbers without a unit ("won 2-1 last night": "2-1 heures")
            phone_numbers.add(len(placeholders))
        elif source == "es" and _OF_STUFF.match(text, end) and (kind := _measure(span)):
            behind = " " + _MEASURE_GIVEN[kind]  # "2 kg de patatas": "100 kilos de patatas"
            behind = behind.upper() if span.isupper() else behind
            given_after[len(placeholders)] = behind
        placeholders.append(pool.pop(0))
        if (start, end) in centuries and span.isupper():  # "16TH": "19TH", so capitals stay
            placeholders[-1] = placeholders[-1].upper()
        originals.append(original)
        places.append((start, end))
        out += [text[at:start], given, placeholders[-1], behind]
        at = end
    text = "".join(out) + text[at:]
    return Protected(
        text,
        placeholders,
        originals,
        places,
        translated_as,
        target,
        hours,
        phone_numbers,
        ranges,
        month_indices,
        written_as,
        half_indices,
        given_after,
        acronym_indices,
        country_indices,
    )


def _cased_as(found: str, written: str) -> str:
    """``written`` in capitals where ``found`` was, capitalised where it opened with one."""
    if len(found) > 1 and found.isupper():
        return written.upper()
    return written[:1].upper() + written[1:] if found[:1].isupper() else written


def _number_of_decade(text: str, span: Span) -> Span:
    """``span``, or its number if it is a decade with its words ("los años 90": "90")."""
    start, end = span
    if not re.fullmatch(_WORD_DECADE, text[start:end]):
        return span
    return end - len(text[start:end].split()[-1]), end


def _is_decade(text: str, start: int, end: int) -> bool:
    decade = _DECADE_AT.match(text, start)
    return decade is not None and decade.end() == end


def find_word(word: str, text: str) -> Span | None:
    """Where ``word`` first stands as a word of its own in ``text`` (a placeholder), if it does."""
    match = _find(word).search(text)
    return None if match is None else match.span()


# a number standing alone: not part of a time, a decimal or a word ("8:45", "3,5", "B12")
_LONE_NUMBER = re.compile(r"(?<![\w.,:/])\d+(?![\w/]|[.,:]\d)")


def _digit_distance(a: str, b: str) -> int:
    """Edits (a digit added, dropped or changed) from ``a`` to ``b`` (Levenshtein)."""
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


def _find(word: str) -> re.Pattern[str]:
    """``word`` standing alone, a person placeholder in any of its forms ("Mary", "Marie",
    "María"); a number placeholder may take a suffix ("100th", "100km"), an English ordinal's
    apart (``_put``)."""
    after = r"(?P<ordinal>st|nd|rd|th)?(?!\d)" if word.isdigit() else r"(?!\w)"
    forms = "|".join(map(re.escape, written_forms(word)))  # "Mary": "Marie" too
    return re.compile(rf"(?<!\w)(?:{forms}){after}")


def _unit_start(span: str) -> int:
    """Where the unit after a number span's digits begins ("5 km", "5km", "-30 °C", "42A"; a
    space before it counts), or the span's length: none, or not a number."""
    unit = _TRAILING_UNIT.search(span) if span.lstrip("+-\u2212")[:1].isdigit() else None
    return len(span) if unit is None else unit.start()


_TRAILING_UNIT = re.compile(r"(?<=\d)[ \u00a0\u202f]?[^\d\s]+$")  # after the last digit


def _extent(match: re.Match, span: str, translation: str, *, phone: bool = False) -> Span:
    """Where a placeholder's ``match`` stands, with what the model wrote next to it that
    ``span`` already says:

    * an amount's currency, or a word for hours or years after it (the model read "It costs 100
      at the market" as a time: "Ça coûte 100 heures au marché", and "for orders over 100" as an
      age: "pour les ordres plus de 100 ans");
    * its unit, if the span is a number with that unit ("100km" for "5 km": "5 km", not "5 kmkm");
    * a word for years after a decade ("années 80 ans": "années 80"), or its own word before
      it ("années 100" for "the 1990s": "années 1990", not "années années 1990");
    * a word for hours after a time with its minutes or its "pm" ("à 12 heures" for "at 3:30
      PM": "à 15:30"), or after a number with its unit (the model read "It's 100 outside" as an
      hour: "Il est 25°C dehors", not "Il est 25°C heures dehors");
    * minutes after a time that has its own ("1:50:00" for "a las 1:50": "1:50");
    * a word for hours or years after a ``phone`` number ("à +33 6 12 34 56 78 heures");
    * the full stop after a span ending with its own ("9 a.m." ending a sentence);
    * "a.m." or "p.m." after a number with a unit other than a clock's, or a date written in
      figures (the model read "a 100 por la noche" as a time: "-5 °C p.m.", "12/03/2025
      a.m.")."""
    if is_money(span):
        start, end = match.span()  # "$100 dollars" for "$5": "$5"
        if before := CURRENCY_BEFORE.search(translation, 0, start):
            start = before.start()
        after = CURRENCY_AFTER.match(translation, end) or _HOURS.match(translation, end)
        if after := after or _YEARS_WORD.match(translation, end):  # "over 100" read as an age
            end = after.end()  # "5 $ heures" for "It costs $5 at the market.": read as a time
        return start, end
    if span.endswith(".") and translation.startswith(".", match.end()):
        return match.start(), match.end() + 1  # "9 a.m.." for "Abrimos a las 9 a. m.": one stop
    unit = span[_unit_start(span) :].lstrip(" \u00a0\u202f")
    if unit:
        after = re.compile(rf"[ \u00a0\u202f]?{re.escape(unit)}(?![\w/])")
        if tail := after.match(translation, match.end()):
            return match.start(), tail.end()
        kind = _measure(span)
        if kind and (tail := _MEASURE_WORDS[kind].match(translation, match.end())):
            return match.start(), tail.end()  # "100 kilograms of" for "2 kg de": "2 kg of"
    clock = _TIME.fullmatch(span) or is_said_time(span)
    if (unit and not clock or _FIGURES_DATE.fullmatch(span)) and (
        tail := _MERIDIEM.match(translation, match.end())
    ):
        return match.start(), tail.end()  # "-5 °C p.m." for "-5 °C por la noche": "-5 °C."
    decade = span.startswith(tuple(DECADE_WORD.values()))
    if decade and (tail := _YEARS_WORD.match(translation, match.end())):
        return match.start(), tail.end()  # "années 80 ans" for "in the 80s": the decade says it
    if decade and translation[: match.start()].endswith(word := span.split()[0] + " "):
        return match.start() - len(word), match.end()  # "années années 1990": "années 1990"
    if phone and (
        tail := _HOURS.match(translation, match.end())
        or _YEARS_WORD.match(translation, match.end())
    ):
        return match.start(), tail.end()  # "à +33 6 12 34 56 78 heures": the model read a time
    hours = _TIME.fullmatch(span) or unit or span == "24/7"  # "Open 24/7": "24/7 heures"
    hours = hours or is_said_time(span)  # "a quarter past three o'clock": "... three"
    if hours and (tail := _HOURS.match(translation, match.end())):
        return match.start(), tail.end()  # "25°C heures" for "It's 25°C outside": "25°C"
    if _TIME.fullmatch(span) and (tail := _NOT_A_TIME.match(translation, match.end())):
        return match.start(), tail.end()  # "9:00-17:00 jours" for "Monday-Friday, 9:00-17:00"
    if ":" in span and _TIME.fullmatch(span) and (tail := _MINUTES.match(translation, match.end())):
        return match.start(), tail.end()  # "1:50:00" for "a las 1:50": the time has its minutes
    return match.span()


# two numbers joined by a dash: a score ("2-1") or a range ("3-5"), and a word for hours or
# years after one in the source ("2-3 hours", "3-5 años"), which the translation keeps
_BARE_RANGE = re.compile(r"\d{1,3}[-–]\d{1,3}")
_UNIT_AFTER = re.compile(
    r" (?:hours?|hrs?|o'clock|horas?|heures?|h|years?|yrs?|ans|années|años)(?!\w)", re.IGNORECASE
)
_TIME = re.compile(
    rf"\d{{1,2}}:\d{{2}}(?:[-–]\d{{1,2}}:\d{{2}})?|{_CLOCK}"
)  # "15:30", "3pm", "9:30-17:30"
# what the model wrote after a time's placeholder, read as another number: "100 jours", "100
# degrés" (the bundled en -> fr model's "9:00-17:00 jours", "17:00 9:00 degrés")
_NOT_A_TIME = re.compile(
    r" (?:jours?|days?|d[ií]as?|degr[ée]s|degrees?|grados?)(?!\w)", re.IGNORECASE
)  # in capitals too

_MINUTES = re.compile(r":\d\d(?!\d)")
# "a.m." or "p.m." after a placeholder, its full stop too where the sentence goes on
_MERIDIEM = re.compile(r" [aApP]\. ?[mM](?:\.(?=\s*\w))?(?!\w)")
_FIGURES_DATE = re.compile(r"\d{1,4}([/.-])\d{1,2}\1\d{1,4}")  # "12/03/2025", "2025-03-12"
# in capitals too: "FREE SHIPPING ON ORDERS OVER $50" gave "... DE PLUS DE 50 $ ANS"
_YEARS_WORD = re.compile(r" (?:ans|années|años)(?!\w)", re.IGNORECASE)
_HOURS = re.compile(r" (?:heures?|h|horas?|hours?|o'clock)(?!\w)", re.IGNORECASE)  # in capitals too
# how a time on the hour is written in a language that writes a word after it ("15 h")
HOUR_WORD = {"fr": " h"}
_AFTER_HOUR = re.compile(r"(?:[ \u00a0]?(?:heures?|h)|:\d)(?!\w)", re.IGNORECASE)


def _measure(span: str) -> str | None:
    """What a number with a unit of weight or volume measures ("2 kg": "weight"), or None."""
    unit = span[_unit_start(span) :].strip(" \u00a0\u202f")
    return next((kind for kind, units in _MEASURES.items() if unit in units), None)


# a measure before "de" and what it measures ("2 kg de patatas"): the bundled es -> en model wrote
# "2 kg potatoes", "500 g from flour", "200 ml milk" for the placeholder alone ("100 de
# patatas"), and "100 kilograms of potatoes" for "100 kilos de patatas". So the model is given a
# unit of the same kind that it reads, in words, and the words it writes for it go with the
# placeholder: "2 kg of potatoes", "200 ml of milk". Not lengths: given "100 metros de tela",
# the model wrote "100 meters in the dress" ("3 m of cloth" before)
_MEASURES = {"weight": {"kg", "g", "mg"}, "volume": {"l", "L", "ml", "mL", "cl"}}
_MEASURE_GIVEN = {"weight": "kilos", "volume": "litros"}
# "de" before what is measured, a noun without an article ("de patatas"), not before a place
# ("a 2 km de aquí", "de la tienda", "de mi casa")
_OF_STUFF = re.compile(
    r" de (?!(?:el|la|los|las|lo|un|una|unos|unas|aquí|allí|allá|ahí|acá|mi|mis|tu|tus|su|sus"
    r"|nuestr\w*|vuestr\w*|est\w*|es[aeo]s?|aquel\w*|casa|\d)\b)[^\W\d_]",
    re.IGNORECASE,
)
_MEASURE_WORDS = {
    kind: re.compile(rf"[ \u00a0](?:{words})s?(?!\w)", re.IGNORECASE)
    for kind, words in {
        "weight": "kilo|kilogram|kilogramme|kilogramo|gram|gramme|gramo",
        "volume": "lit(?:er|re)|litro|millilit(?:er|re)|mililitro",
    }.items()
}


def _put(match: re.Match, span: str) -> str:
    """What a placeholder's ``match`` becomes: ``span``, with an English ordinal's suffix made
    the number's own ("100th" for 3 -> "3rd", for 14 -> "14th")."""
    suffix = match.groupdict().get("ordinal") or ""
    if suffix and span.isdigit():
        suffix = english_suffix(int(span))
    elif re.search(r"\d(?:st|nd|rd|th)$", span):  # "1st" for "1.º": not "1stth"
        suffix = ""
    return span + suffix
