"""Acronyms of institutions and common terms that each language writes its own way ("la ONU",
"the UN", "l'ONU"), kept from the model as a noun it translates well and written as the target
language writes them.

Tatoeba spells out few acronyms: the bundled models wrote "La ONU celebró su reunión anual." as
"The U.NA celebrated ...", "the WHO" as "celle qui", "the UN" as "l'avion", "el IVA" as "IVA" and
"the EU" as "EU". So an acronym goes to the model as a noun of the same gender and article in the
target ("the school" for "the UN": French writes "l'école" as it writes "l'ONU", "de l'école" as
"de l'ONU"; "el gobierno" for "el IVA"), and that noun in the translation becomes the acronym,
the model's article kept in French ("à l'OMS", "du PIB") and written the English way in English
("the UN", "NATO", "an NGO"). A sentence in capitals keeps its words to the model ("WHO ARE YOU?").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from heedful.textmap import Span

# each acronym as each language writes it, with its article where the language gives it one
# (English: "the UN" but "NATO"; Spanish: its gender; French: its article and gender, which the
# stand-in shares)
ACRONYMS = [
    {"en": "the UN", "es": "la ONU", "fr": ("l'ONU", "f")},
    {"en": "the WHO", "es": "la OMS", "fr": ("l'OMS", "f")},
    {"en": "the EU", "es": "la UE", "fr": ("l'UE", "f")},
    {"en": "NATO", "es": "la OTAN", "fr": ("l'OTAN", "f")},
    {"en": "the IMF", "es": "el FMI", "fr": ("le FMI", "m")},
    {"en": "VAT", "es": "el IVA", "fr": ("la TVA", "f")},
    {"en": "GDP", "es": "el PIB", "fr": ("le PIB", "m")},
    {"en": "DNA", "es": "el ADN", "fr": ("l'ADN", "m")},
    {"en": "an NGO", "es": "una ONG", "fr": ("une ONG", "f")},
]
# the noun given in an acronym's place, by the target's article and gender: each is read well by
# the bundled models ("She works for the school." -> "Elle travaille pour l'école.")
_STAND_INS = {
    ("en", "fr", "l'", "f"): ("school", "école"),
    ("en", "fr", "l'", "m"): ("hospital", "hôpital"),
    ("en", "fr", "le", "m"): ("government", "gouvernement"),
    ("en", "fr", "la", "f"): ("car", "voiture"),
    ("en", "fr", "une", "f"): ("school", "école"),
    ("es", "en", "f"): ("escuela", "school"),
    ("es", "en", "m"): ("gobierno", "government"),
}
_ARTICLES = {"en": r"the|a|an", "es": r"el|la|los|las|un|una|del|al", "fr": r"le|la|les|l'|un|une"}


def _bare(written: str) -> str:
    """An acronym without its article: "UN" of "the UN", "ONU" of "l'ONU"."""
    return re.sub(r"^(?:the |an? |el |la |una? |le |l'|une )", "", written)


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
        """The acronym as ``target`` writes it, in place of the noun; in English with the
        article the language gives it (the model's ``article`` for its own "a" or "the")."""
        form = ACRONYMS[self.row][target]
        written = form if isinstance(form, str) else form[0]
        if target != "en":
            return _bare(written)
        bare = _bare(written)
        if written.startswith(("a ", "an ")) and article and article.lower() == "the":
            return f"the {bare}"
        return written


def _source_pattern(lang: str) -> tuple[re.Pattern[str], dict[str, int]]:
    forms = {}
    for k, row in enumerate(ACRONYMS):
        written = row[lang] if isinstance(row[lang], str) else row[lang][0]
        forms[_bare(written)] = k
    if lang == "en":
        forms["U.N."] = 0
    names = "|".join(map(re.escape, sorted(forms, key=len, reverse=True)))
    return re.compile(rf"(?<![\w.-])(?:(?P<article>(?i:{_ARTICLES[lang]})) )?(?P<acronym>{names})"
                      rf"(?![\w-])"), forms  # fmt: skip


_SOURCE = {lang: _source_pattern(lang) for lang in ("en", "es")}
_TWO_CAPITALS = re.compile(r"[A-Z]{2}")  # what a text with an acronym holds


def find_acronyms(text: str, source: str | None, target: str | None) -> list[tuple[Span, Acronym]]:
    """Where ``text`` writes one of ``ACRONYMS`` the ``source`` way (with the article before
    it, in English), and what to give the model in its place; none for a pair without
    stand-ins (``_STAND_INS``) or a text in capitals."""
    if source not in _SOURCE or not _TWO_CAPITALS.search(text) or text.upper() == text:
        return []
    pattern, rows = _SOURCE[source]
    found = []
    lowered = text.lower()
    for m in pattern.finditer(text):
        row = rows[m["acronym"]]
        if source == "en" and target == "fr":
            written, gender = ACRONYMS[row]["fr"]
            key = ("en", "fr", written.split("'")[0] + "'" if "'" in written else
                   written.split()[0], gender)  # fmt: skip
        elif source == "es" and target == "en":
            key = ("es", "en", "f" if ACRONYMS[row]["es"].split()[0] in ("la", "una") else "m")
        else:
            continue
        given, noun = _STAND_INS[key]
        if re.search(rf"\b{given}\b", lowered) or any(a.noun == noun for _, a in found):
            continue  # the text has the noun already, or another acronym stands as it
        if source == "en":  # "the UN" -> "the school"; "NATO" -> "the school"; "an NGO"
            article = m["article"]
            said = article or ("the" if key[2] != "une" else "a")
            given = f"{'a' if said.lower() in ('a', 'an') else said} {given}"
            start = m.start()
            if article and article[0].isupper() or not article and m.start() == 0:
                given = given[0].upper() + given[1:]
        else:  # "la ONU" -> "la escuela": the article stays the source's
            start = m.start("acronym")
        found.append(((start, m.end()), Acronym(row, given, noun)))
    return found
