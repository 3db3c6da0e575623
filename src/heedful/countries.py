"""Countries the model read too seldom to name: given to it as a country it reads, of the same
kind, and written back in the target language, as the Unicode CLDR names them (Babel's
``Locale.territories``).

Tatoeba names few countries: the bundled models read "Japan" 271 times, "Colombia" never, and
of "I live in X." / "Vivo en X." for 240 countries and territories wrote the target language's
name for 103 (en -> fr) and 124 (es -> en): "Je vis à Argentina.", "Je vis à Belgium.", "Il
vient de Peru.", "Es de Perú." -> "He's a person's.", "Quiero visitar Marruecos." -> "I want to
visit Marrones." (`/root/heedful-runs/s42/countries.py`). Every country named right was read 12
times or more; every one read 5 times or fewer failed.

A country read fewer than ``READ_FEW`` times (each of its words: "Emirates" of "United Arab
Emirates") is given as a stand-in of its kind, whose prepositions and article the model knows,
and the stand-in's name in the translation becomes the country's. French gives a country the
article and preposition of its gender, number and first letter (``french_kind``: "au Pérou",
"en Belgique", "en Autriche" and "l'Autriche", "aux Philippines", and no article for some
islands: "à Chypre"); English an article for a few ("the Netherlands": ``english_the``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from functools import cache

from babel import Locale, UnknownLocaleError

from heedful.lexicon import ARTICLE_BEFORE, strip_accents
from heedful.textmap import Span

READ_FEW = 10  # a country read fewer times than this is given as a stand-in
# not countries, or not named so in text: the EU, the UN, Eurozone, pseudo-locales, Kosovo's
# provisional code; and names that are mostly something else ("Jordan", "Chad": first names;
# "Turkey", "China" in English; "Jersey" of "New Jersey"; "Georgia" the state; "Granada", the
# Spanish city, is Grenada in Spanish; "Reunión", a meeting)
_LEFT_OUT = {
    "EU", "EZ", "UN", "QO", "XA", "XB", "XK", "ZZ", "JO", "TD", "TR", "CN", "JE", "GE", "GD", "RE",
}  # fmt: skip
# stand-ins, by the kind of country they stand for: read often by the bundled models
_STAND_INS = {
    "masculine": ("CA", "JP"),  # "au Canada", "le Japon"
    "feminine": ("FR", "RU"),  # "en France", "la Russie"
    "vowel": ("FR", "RU"),  # "en France" -> "en Autriche"; "la France" -> "l'Autriche"
    "plural": ("US",),  # "aux États-Unis"
    "the": ("US",),  # English: "the United States"
}
# French names of countries that take no article, as cities do ("à Chypre", "Chypre est")
_FRENCH_BARE = {"CU", "CY", "MT", "MG", "SG", "MC", "BH", "MU", "TW", "IL", "HT", "OM", "AW", "CW"}
# French names whose noun ends in "e" that are masculine ("au Mexique", "le Royaume-Uni")
_FRENCH_MASCULINE_E = {"MX", "KH", "MZ", "ZW", "BZ", "SR", "GB"}
# French names ending in "s" that are singular ("le Laos", "au Honduras")
_FRENCH_SINGULAR_S = {"LA", "HN"}
_ENGLISH_THE = {"NL", "PH", "BS", "MV", "KM", "SC", "GM", "US", "GB", "AE", "DO", "CF"}
# more ways the models write a stand-in than the CLDR's name
_OTHER_FORMS = {
    ("US", "fr"): ("États-Unis d'Amérique", "États-Unis d’Amérique"),
    ("US", "en"): ("United States of America", "USA", "America"),
    ("US", "es"): ("Estados Unidos de América", "EE. UU.", "EE.UU."),
}
_VOWELS = "AEIOUYÂÀÉÈÊÎÏÔÛ"
_SMALL = {"of", "and", "the", "de", "del", "y", "la", "las", "los", "el", "et", "du", "des", "le"}


@cache
def country_names(language: str) -> dict[str, str]:
    """Each country's name in ``language`` -> its code ("Perú" -> "PE"): the CLDR's, but for
    names written with "&", "(" or " - " ("Congo - Kinshasa"), which text writes otherwise;
    typed without its accents too ("Peru", "Japon")."""
    territories = Locale(language).territories
    names = {
        name: code
        for code, name in territories.items()
        if len(code) == 2 and code.isalpha() and code not in _LEFT_OUT
        and not any(mark in name for mark in ("&", "(", " - "))
    }  # fmt: skip
    return names | {strip_accents(n): c for n, c in names.items() if strip_accents(n) not in names}


@cache
def names_countries(language: str | None) -> bool:
    """Whether the CLDR names countries in ``language`` ("fr": yes; None, "xx": no)."""
    try:
        Locale.parse(language or "")
    except (ValueError, UnknownLocaleError):
        return False
    return True


def country_name(code: str, language: str) -> str:
    """The country's name in ``language`` ("PE", "fr" -> "Pérou")."""
    return Locale(language).territories[code]


def find_countries(
    text: str, language: str | None, read: Callable[[str], int],
    first_names: Collection[str] = (), common: Callable[[str], bool] | None = None,
    *, capitals: bool = False,
) -> list[tuple[Span, str]]:  # fmt: skip
    """The countries named in ``text`` (capitalised, as written in ``language``), longest
    first, whose words the model read (``read``: how many times a word was) fewer than
    ``READ_FEW`` times, and their codes. Not a name of ``first_names`` ("Israel"), nor one
    next to another capitalised word but the text's first: part of a person's or a place's
    name ("Israel Zamora", "Vieja Bolivia"; not "En Perú"). In a text typed all in lower
    case, with ``common`` (whether the model read a word as a common word), a name in lower
    case too, but for one of common words ("vivo en peru"; not "una cuba de vino", "el chile");
    so too in a text in ``capitals`` ("FUIMOS A ISLANDIA"; not "UNA CUBA DE VINO"), where a
    capital says nothing of the words beside the name."""
    if language not in _PATTERNS_LANGUAGES:
        return []
    names = _lower_names(language)
    lower = common is not None and (capitals or not any(c.isupper() for c in text))
    pattern = _pattern(language, lower)
    found = []
    opening = re.match(r"\W*[^\W\d_]+", text)
    lowered = text.lower()
    # a word read once says nothing of how it is usually written ("cyprus")
    usual = lambda word: read(word) > 1 and common(word)  # noqa: E731
    for match in pattern.finditer(text):
        name = match.group()
        if name in first_names or name.capitalize() in first_names:
            continue
        before = not capitals and _CAPITALISED_BEFORE.search(text, 0, match.start())
        if before and not (opening and before.end(1) == opening.end()):
            continue
        if not capitals and _CAPITALISED_AFTER.match(text, match.end()):
            continue
        words = [w for w in re.findall(r"[^\W\d_]+", name) if w.lower() not in _SMALL]
        # "una cuba de vino", "el chile": words; a name of several words is a name ("los
        # países bajos", "LOS PAÍSES BAJOS": "países" alone is a word)
        article = ARTICLE_BEFORE.search(lowered, 0, match.start())
        if article and language == "en" and english_the(names[name.lower()]):
            article = None  # "the netherlands"
        if lower and len(words) == 1 and (article or usual(words[0])):
            continue
        if min(read(w) for w in words) < READ_FEW:
            found.append((match.span(), names[name.lower()]))
    return found


_CAPITALISED_BEFORE = re.compile(r"(?<![\w'’-])([A-ZÀ-Þ][^\W\d_]*) $")
_CAPITALISED_AFTER = re.compile(r" [A-ZÀ-Þ][^\W\d_]*")


_PATTERNS_LANGUAGES = ("en", "es", "fr")


@cache
def _lower_names(language: str) -> dict[str, str]:
    return {name.lower(): code for name, code in country_names(language).items()}


@cache
def _pattern(language: str, lower: bool = False) -> re.Pattern[str]:
    names = sorted(country_names(language), key=len, reverse=True)
    flags = re.IGNORECASE if lower else 0
    return re.compile(rf"(?<![\w'’-])(?:{'|'.join(map(re.escape, names))})(?![\w'’-])", flags)


def french_kind(code: str) -> str:
    """How French says the country: "bare" (no article, "à Chypre"), "plural" ("aux
    Philippines"), "vowel" ("en Autriche", "l'Autriche"), "feminine" ("en Belgique", "la
    Belgique") or "masculine" ("au Pérou", "le Pérou")."""
    name = country_name(code, "fr")
    first = name.split()[0]
    if code in _FRENCH_BARE:
        return "bare"
    if first.endswith(("s", "x")) and code not in _FRENCH_SINGULAR_S:
        return "plural"
    if name[0].upper() in _VOWELS:
        return "vowel"
    head = first.split("-")[0]  # its noun: "Corée" of "Corée du Sud", "Bosnie-Herzégovine"
    if head.endswith("e") and code not in _FRENCH_MASCULINE_E:
        return "feminine"
    return "masculine"


def english_the(code: str) -> bool:
    """Whether English names the country with "the" ("the Netherlands", "the Czech
    Republic", "the Cayman Islands")."""
    name = country_name(code, "en")
    return code in _ENGLISH_THE or name.endswith((" Republic", " Islands"))


def stand_ins(code: str, target: str | None) -> tuple[str, ...]:
    """The codes of the countries that may stand in for ``code`` going into ``target``, of its
    kind there; none for a French name without an article (a city stands in: heedful.protect)."""
    if target == "fr":
        kind = french_kind(code)
        return () if kind == "bare" else _STAND_INS[kind]
    if target == "en":
        return _STAND_INS["the" if english_the(code) else "masculine"]
    return _STAND_INS["masculine"]


def forms(code: str, language: str) -> tuple[str, ...]:
    """The ways a translation into ``language`` may name a stand-in, longest first."""
    written = (country_name(code, language), *_OTHER_FORMS.get((code, language), ()))
    return tuple(sorted(written, key=len, reverse=True))
