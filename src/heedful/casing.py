"""ALL CAPS and Title Case sentences, translated from an ordinarily cased form.

Tatoeba writes almost nothing in capitals, so a model trained on it reads "TENGO UN PERRO." as
a string of rare pieces ("TNEOFO."), and "Tengo Un Perro Grande." as names ("I have a Pergle.").
``Translator.translate`` gives the model such a sentence as it would have been written: each word
lowered, or capitalised where the tokenizer's vocabulary suggests a name ("PARIS" -> "Paris"), the
first letter capitalised. It writes the translation of an ALL CAPS sentence in capitals, so that
casing round-trips ("I LOVE PARIS." -> "J'ADORE PARIS."); that of a Title Case one as the model
gives it (titles are cased differently from language to language: French capitalises the first
word only). On 300 dev sentences of each bundled model, case-insensitive BLEU of the ALL CAPS
variant went from 0.2% of the clean input's to 99% (es -> en) and 97% (en -> fr), where lowering
all but the first letter reached 95% and 87%; Title Case went from 27% and 14% to 99% and 97%.

Which form of a word is usual, the model's word list tells, if its directory has one
(heedful.lexicon: the training text's own form, "Lisboa"). Otherwise the vocabulary guesses:
sentencepiece keeps a frequent word whole and breaks a rare one, so the form in fewer pieces
wins ("▁Paris" against "▁par" "is"), and, between two single pieces, the one with the higher
score (a unigram model's log-probability, or BPE's earlier merge: "▁I" against "▁i").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

MIN_LETTERS = 4  # fewer cased letters ("OK.", "USA") may well be an abbreviation
MIN_TITLE_WORDS = 3  # fewer capitalised words ("Tom Jackson") may well be a name
_WORD = re.compile(r"[^\W\d_]+")  # a run of letters
_CONTRACTED = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")  # "It's", "l'homme" one word


def is_all_caps(text: str, ignore: Collection[str] = (), *, short: bool = False) -> bool:
    """Whether every cased letter of ``text`` is upper case, in at least two words and
    ``MIN_LETTERS`` letters, or, if ``short`` (a sentence of a paragraph in capitals: "¿Y TÚ?"),
    in any; words in ``ignore`` (placeholders) are not looked at."""
    # and the words of one of several not in capitals ("United States", not "FELIZ CUMPLEAÑOS")
    parts = {w for placeholder in ignore for w in _WORD.findall(placeholder) if not w.isupper()}
    ignored = {*ignore, *parts}
    words = [w for w in _WORD.findall(text) if w not in ignored and w.lower() != w.upper()]
    enough = short or len(words) >= 2 and sum(map(len, words)) >= MIN_LETTERS
    return bool(words) and enough and all(w.isupper() for w in words)


def is_title_case(
    text: str,
    ignore: Collection[str] = (),
    usual: Callable[[str], str | None] | None = None,
) -> bool:
    """Whether every word of ``text`` with cased letters is capitalised ("Tengo Un Perro.",
    "It's Too Early.": a contraction is one word), at least ``MIN_TITLE_WORDS`` of them, or
    two of them where ``usual`` (heedful.lexicon's word list) writes a word after the first in
    lower case ("Hug Me.", "Tom Lied.", not "Tom Jackson."); words in ``ignore``
    (placeholders) are not looked at."""
    words = [w for w in _CONTRACTED.findall(text) if w not in ignore and w.lower() != w.upper()]
    if len(words) < 2 or not all(w[0].isupper() for w in words):
        return False
    if len(words) >= MIN_TITLE_WORDS:
        return True
    return usual is not None and any((form := usual(w)) and form.islower() for w in words[1:])


def uncapitalise(
    text: str,
    cost: Callable[[str], tuple[float, ...]],
    keep: Collection[str] = (),
    usual: Callable[[str], str | None] | None = None,
) -> str:
    """``text`` (ALL CAPS or Title Case) as ordinarily written: each word that is in capitals or
    capitalised as ``usual`` writes it, if it knows the word (the training text's own form,
    heedful.lexicon: "LISBOA" -> "Lisboa"), else lowered, or capitalised where ``cost`` (lower
    is commoner) prefers that; the first word capitalised unless a number or a placeholder
    stands before it ("100 fueron", not "100 Fueron": the model read that as a name). Words in
    ``keep`` (placeholders) stay as they are."""

    def choose(match: re.Match[str]) -> str:
        word = match.group()
        if (
            word in keep
            or not word[0].isupper()
            or word[1:] not in (word[1:].lower(), word[1:].upper())
        ):
            return word  # a placeholder, a lower-case word, or "McDonald"
        form = None if usual is None else usual(word)
        if form is not None:
            return form
        return min((word.lower(), word.capitalize()), key=cost)

    out = _WORD.sub(choose, text)
    first = _WORD.search(out)
    if first is None or any(c.isalnum() for c in out[: first.start()]):
        return out
    return out[: first.start()] + out[first.start()].upper() + out[first.start() + 1 :]


def capitalise(text: str, keep: Collection[str] = ()) -> str:
    """``text`` in capitals, but for the words in ``keep`` (placeholders, put back later)."""
    if not keep:
        return text.upper()
    pattern = "|".join(rf"(?<!\w){re.escape(word)}(?!\w)" for word in keep)
    parts = re.split(f"({pattern})", text)
    return "".join(part if k % 2 else part.upper() for k, part in enumerate(parts))


# what may stand before a sentence's first word: opening marks and spaces ("¿", "«", "(")
_OPENING = re.compile(r"""[\s¿¡«“„"'(\[]*""")


def opens_capitalised(text: str) -> bool:
    """Whether ``text``'s first word, after opening marks, starts with a capital letter."""
    first = _OPENING.match(text).end()
    return first < len(text) and text[first].isupper()


def capitalise_first(text: str) -> str:
    """``text`` with its first word capitalised, if nothing but opening marks stands before it
    and it is a word in lower case ("visit Madrid." -> "Visit Madrid."; "« » est", "iPhone"
    and "https://x.org" as they are)."""
    first = _OPENING.match(text).end()
    word = _WORD.match(text, first)
    if word is None or not word.group().islower() or not _WORD_END.match(text, word.end()):
        return text
    return text[:first] + text[first].upper() + text[first + 1 :]


_WORD_END = re.compile(r"""$|[\s,;!?…»”"')]|\.(?!\w)""")  # not "https:", "ejemplo.es"
