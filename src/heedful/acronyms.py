"""Acronyms of institutions and common terms that each language writes its own way ("la ONU",
"the UN", "l'ONU"), kept from the model as a noun it translates well and written as the target
language writes them.

Tatoeba spells out few acronyms: the bundled models wrote "La ONU celebró su reunión anual." as
"The U.NA celebrated ...", "the WHO" as "celle qui", "the UN" as "l'avion", "el IVA" as "IVA" and
"the EU" as "EU". So an acronym goes to the model as a noun of the same gender and article in the
target ("the school" for "the UN": French writes "l'école" as it writes "l'ONU", "de l'école" as
"de l'ONU"; "el gobierno" for "el IVA"), and that noun in the translation becomes the acronym,
the model's article kept in French ("à l'OMS", "du PIB") and written the English way in English
("the UN", "NATO", "an NGO"). In a sentence in capitals the noun is given in capitals too, and
read in lower case as the words around it ("LA ONU Y LA OMS" gave "THE U.A AND OMS"); there an
acronym that is also a word of the language needs its article ("THE WHO"; "WHO ARE YOU?" stays
a question).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heedful.textmap import Span

# each acronym as each language writes it: English with its article or none ("the UN",
# "NATO"), Spanish with its article (its gender), French with its article and gender, which the
# noun given in its place shares
ACRONYMS = [
    {"en": ("the", "UN"), "es": ("la", "ONU"), "fr": ("l'", "ONU", "f")},
    {"en": ("the", "WHO"), "es": ("la", "OMS"), "fr": ("l'", "OMS", "f")},
    {"en": ("the", "EU"), "es": ("la", "UE"), "fr": ("l'", "UE", "f")},
    {"en": ("", "NATO"), "es": ("la", "OTAN"), "fr": ("l'", "OTAN", "f")},
    {"en": ("the", "IMF"), "es": ("el", "FMI"), "fr": ("le", "FMI", "m")},
    {"en": ("", "VAT"), "es": ("el", "IVA"), "fr": ("la", "TVA", "f")},
    {"en": ("", "GDP"), "es": ("el", "PIB"), "fr": ("le", "PIB", "m")},
    {"en": ("", "DNA"), "es": ("el", "ADN"), "fr": ("l'", "ADN", "m")},
    {"en": ("an", "NGO"), "es": ("una", "ONG"), "fr": ("une", "ONG", "f")},
]
# the noun given in an acronym's place, as the source and the target write it, by what the
# target's acronym takes: its French article and gender ("l'école" as "l'ONU", "de l'école" as
# "de l'ONU"), or its Spanish gender into English; each is read well by the bundled models
# ("She works for the school." -> "Elle travaille pour l'école.")
_STAND_INS = {  # a second for a second acronym of the same kind ("la ONU y la OMS")
    ("en", "fr", "l'", "f"): [("school", "école"), ("church", "église")],
    ("en", "fr", "l'", "m"): [("hospital", "hôpital"), ("airport", "aéroport")],
    ("en", "fr", "le", "m"): [("government", "gouvernement"), ("president", "président")],
    ("en", "fr", "la", "f"): [("car", "voiture"), ("house", "maison")],
    ("en", "fr", "une", "f"): [("school", "école"), ("church", "église")],
    ("es", "en", "f"): [("escuela", "school"), ("iglesia", "church")],
    ("es", "en", "m"): [("gobierno", "government"), ("hospital", "hospital")],
}
_ARTICLES = {"en": r"the|a|an", "es": r"el|la|los|las|un|una|del|al", "fr": r"le|la|les|l'|un|une"}


@dataclass(frozen=True)
class Acronym:
    """An acronym found in a source: its row of ``ACRONYMS``, the noun given in its place, the
    noun as the target writes it (what becomes the acronym)."""

    row: int
    given: str
    noun: str

    def pattern(self, target: str) -> re.Pattern[str]:
        """The stand-in's noun in the translation, in English with its article."""
        article = rf"(?:(?P<article>{_ARTICLES[target]}) )?" if target == "en" else ""
        return re.compile(rf"(?<![\w-]){article}(?P<noun>{re.escape(self.noun)})(?![\w-])", re.I)

    def written(self, target: str, article: str | None) -> str:
        """The acronym as ``target`` writes it in place of the noun: in French alone (the
        model's article stays), in English with the article English gives it ("the UN",
        "NATO", "an NGO"; "the NGO" where the model wrote "the")."""
        own, acronym = ACRONYMS[self.row][target][:2]
        if target != "en" or not own:
            return acronym
        if own == "an" and article and article.lower() == "the":
            return f"the {acronym}"
        return f"{own} {acronym}"


def _source_pattern(lang: str) -> tuple[re.Pattern[str], dict[str, int]]:
    """A pattern of ``lang``'s acronyms, with an article before them, and each acronym's row."""
    rows = {row[lang][1]: k for k, row in enumerate(ACRONYMS)}
    if lang == "en":
        rows["U.N."] = 0
    names = "|".join(map(re.escape, sorted(rows, key=len, reverse=True)))
    return re.compile(rf"(?<![\w.-])(?:(?P<article>(?i:{_ARTICLES[lang]})) )?(?P<acronym>{names})"
                      rf"(?![\w-])"), rows  # fmt: skip


def _stand_ins(row: int, source: str, target: str | None) -> list[tuple[str, str]]:
    """The nouns that may be given in place of acronym ``row``, as ``source`` and ``target``
    write them; none for a pair without them."""
    if (source, target) == ("en", "fr"):
        article, _, gender = ACRONYMS[row]["fr"]
        return _STAND_INS[source, target, article, gender]
    if (source, target) == ("es", "en"):
        gender = "f" if ACRONYMS[row]["es"][0] in ("la", "una") else "m"
        return _STAND_INS[source, target, gender]
    return []


def _holds(text: str, word: str) -> bool:
    return re.search(rf"\b{re.escape(word)}\b", text) is not None


_SOURCE = {lang: _source_pattern(lang) for lang in ("en", "es")}
_TWO_CAPITALS = re.compile(r"[A-Z]{2}")  # what a text with an acronym holds
_WORDS = {"en": {"who"}}  # acronyms that are words of the language too


def find_acronyms(text: str, source: str | None, target: str | None) -> list[tuple[Span, Acronym]]:
    """Where ``text`` writes one of ``ACRONYMS`` the ``source`` way (with the article before
    it, in English), and what to give the model in its place; none for a pair without
    stand-ins (``_STAND_INS``)."""
    if source not in _SOURCE or not _TWO_CAPITALS.search(text):
        return []
    capitals = text.upper() == text
    pattern, rows = _SOURCE[source]
    found = []
    lowered = text.lower()
    for m in pattern.finditer(text):
        row = rows[m["acronym"]]
        if capitals and m["acronym"].lower() in _WORDS.get(source, ()) and not m["article"]:
            continue  # "WHO ARE YOU?"; "THE WHO" is the organisation
        if source == "en" and ACRONYMS[row]["en"][0] and not m["article"]:
            continue  # "UN troops": a modifier, which the noun would make a word of its own
        stand_ins = _stand_ins(row, source, target)
        if not stand_ins:
            return []
        taken = {a.noun for _, a in found}  # by another acronym, or in the text already
        free = [(g, n) for g, n in stand_ins if n not in taken and not _holds(lowered, g)]
        if not free:
            continue
        given, noun = free[0]
        if source == "en":  # "the UN" -> "the school"; "NATO" -> "the school"; "an NGO"
            article = m["article"]
            said = article or ("a" if ACRONYMS[row]["en"][0] == "an" else "the")
            given = f"{'a' if said.lower() in ('a', 'an') else said} {given}"
            start = m.start()
            if article and article[0].isupper() or not article and m.start() == 0:
                given = given[0].upper() + given[1:]
        else:  # "la ONU" -> "la escuela": the article stays the source's
            start = m.start("acronym")
        given = given.upper() if capitals else given  # "THE SCHOOL", read in lower case
        found.append(((start, m.end()), Acronym(row, given, noun)))
    return found
