"""Typographic characters a vocabulary lacks, given to the model as the plain ones it knows.

Tatoeba writes straight quotes and hyphens; text from the web, a word processor or a phone
writes curly quotes and dashes. The bundled models' vocabularies lack some of them (es -> en:
“ ” –; en -> fr: “ ”), read them as unknown pieces, and garble the words around them: "She said
“hello, friend”." gave "Elle a dit à  ⁇ hellojour." and "Ella dijo: “Hola, amigo”." gave "She
said,  ⁇ ola Hola.". Such a character is given to the model as its plain equivalent ("“" as
'"'), one character for one, so that every offset holds (``heedful.real_input``); where the
source's curly double quotes were replaced, the translation's straight ones are curled again,
in pairs (``curl``). A character the vocabulary knows stays as it is: the en -> fr model knows
« and », and writes them.
"""

from __future__ import annotations

from collections.abc import Callable

# each typographic character and the plain one a model may know instead
EQUIVALENTS = {
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    "\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2015": "-", "\u2212": "-",
}  # fmt: skip


def plain(text: str, unknown: Callable[[str], bool]) -> str:
    """``text`` with each character that is ``unknown`` to the model, and has a plain
    equivalent that is not, replaced by that equivalent (as long as ``text``)."""
    return "".join(
        EQUIVALENTS[c] if c in EQUIVALENTS and unknown(c) and not unknown(EQUIVALENTS[c]) else c
        for c in text
    )


def replaced_quotes(text: str, given: str) -> tuple[str, str] | None:
    """The pair of double quotes (opening, closing) that ``given`` (``plain(text)``) made
    straight, if it made a pair straight: "“" and "”" -> ("“", "”"), "«" and "»" -> ("«", "»")."""
    changed = [c for c, g in zip(text, given, strict=True) if c != g and g == '"']
    if not changed:
        return None
    closing = next((c for c in changed[1:] if c != changed[0]), None)
    return None if closing is None else (changed[0], closing)


def curl(text: str, quotes: tuple[str, str]) -> str:
    """``text`` with its straight double quotes made ``quotes``, opening and closing in turn,
    if they pair up (an even number of them); else as it is."""
    if text.count('"') % 2:
        return text
    out, opening = [], True
    for c in text:
        if c == '"':
            out.append(quotes[0] if opening else quotes[1])
            opening = not opening
        else:
            out.append(c)
    return "".join(out)
