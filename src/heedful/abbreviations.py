"""Abbreviations that the training text never wrote, given to the model spelt out.

Tatoeba writes none of "e.g.", "i.e." and "p. ej.", and "Ud." / "Uds." three times in 200,000
Spanish sentences. The bundled models read their full stops as the end of a sentence and
garbled the rest: "Buy fruit, e.g. apples." gave "Achetez des fruits, les pommes !", "Buy fruit,
i.e. apples and pears." "Achète des fruits, je m'en prie. Les pommes et des poires.", "Uds.
pueden entrar." "You use. You can come in." and "Vive en EE. UU. desde 2010." "He lives in
America. I use from 2010.". Spelt out ("for example", "ustedes", "Estados Unidos") they are
words the models read thousands of times. Each spelling is the abbreviation's one meaning;
abbreviations with several ("St." for "Saint" or "Street") are left as written.
"""

from __future__ import annotations

import re

# each abbreviation as usually written -> spelt out
SPELT_OUT = {
    "en": {
        "e.g.": "for example",
        "i.e.": "that is",
        "a.k.a.": "also known as",
        "max.": "maximum",
        "approx.": "approximately",
    },
    "es": {
        "Ud.": "usted",
        "Uds.": "ustedes",
        "Vd.": "usted",
        "Vds.": "ustedes",
        "p. ej.": "por ejemplo",
        "p.ej.": "por ejemplo",
        "EE. UU.": "Estados Unidos",
        "EE.UU.": "Estados Unidos",
        "máx.": "máximo",
        "mín.": "mínimo",
        "aprox.": "aproximadamente",
        "n.º": "número",
        "núm.": "número",
        "pág.": "página",
    },
    "fr": {
        "p. ex.": "par exemple",
        "p.ex.": "par exemple",
        "c.-à-d.": "c'est-à-dire",
        "max.": "maximum",
        "env.": "environ",
    },
}
_USUAL = {lang: {a.lower(): a for a in table} for lang, table in SPELT_OUT.items()}
_FOUND = {
    lang: re.compile(
        rf"(?<![\w.])(?:{'|'.join(map(re.escape, sorted(table, key=len, reverse=True)))})"
        r"(?!\w)",
        re.IGNORECASE,
    )
    for lang, table in SPELT_OUT.items()
}


def find_abbreviations(text: str, language: str | None) -> list[tuple[int, int]]:
    """Where ``text`` holds abbreviations of ``SPELT_OUT[language]`` ("max." is no name)."""
    found = _FOUND.get(language or "")
    if found is None or "." not in text:
        return []
    return [m.span() for m in found.finditer(text) if _abbreviation(m.group(), language)]


def _abbreviation(written: str, language: str) -> bool:
    """Whether ``written`` is the abbreviation: a word of one part capitalised where it is
    written in lower case is a name or a sentence's end ("I met Max. 25 came.")."""
    usual = _USUAL[language][written.lower()]
    return not (written.istitle() and usual.islower() and written.count(".") == 1)


def spell_out(text: str, language: str | None) -> str:
    """``text`` with each abbreviation of ``SPELT_OUT[language]`` spelt out: capitalised where
    it opens the text, in capitals where it was written so and is not usually ("E.G.", "UD.";
    not "EE. UU."), followed by a full stop where it ended the text with its own ("Se lo doy a
    Ud." -> "Se lo doy a usted.")."""
    found = _FOUND.get(language or "")
    if found is None or "." not in text:
        return text

    def spelt(match: re.Match) -> str:
        written = match.group()
        if not _abbreviation(written, language):
            return written
        usual = _USUAL[language][written.lower()]
        out = SPELT_OUT[language][usual]
        if not re.search(r"\w", text[: match.start()]):
            out = out[0].upper() + out[1:]
        if written.isupper() and not usual.isupper():
            out = out.upper()
        return out + ("." if not text[match.end() :].strip() else "")

    return found.sub(spelt, text)
