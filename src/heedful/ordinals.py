"""Small English ordinals before a noun, given to the model as words ("the 3rd floor" -> "the
third floor").

heedful.protect keeps a number from the model, and an ordinal written with digits goes to it as
a number ("3rd" as "12", written "3e" after). The bundled en -> fr model then makes the words
around it agree with a plural or leaves it out of place: "The 3rd floor is closed for
renovation." gave "Les 3e étage sont fermées ...", "It's my 5th visit to Paris." "C'est ma
visite à Paris 5e.", "Open the 2nd door on the left." "Ouvrez la porte de 2e sur la gauche.".
It translates the words well: "Le troisième étage est fermé ...", "C'est ma cinquième visite à
Paris.", "Ouvrez la deuxième porte sur la gauche.". So an English ordinal from 1st to 10th
before a noun (not in a date, heedful.dates, nor a name: "5th Avenue", unless the text is in
Title Case) goes to the model as its word (num2words), and the translation is kept where it
holds the target language's ordinal for each, in any gender (``holds``); a sentence where it
does not is translated again with the digits, as before ("The 2nd floor is closed." gave "Le
premier étage est fermé." as a word, "Le 2e étage est fermé." with the digits). On 16
sentences of my own (/root/heedful-runs/s31/ordinals.py), the ordinal and its noun came out
right in 12 (3 with the digits alone). ``heedful attend`` shows the model's reading of the
digits.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

from heedful.casing import is_title_case
from heedful.dates import find_dates
from heedful.explain.alignment_spans import WordLink
from heedful.textmap import TextMap
from heedful.written import BEFORE_A_NOUN, english_suffix

_SMALL = re.compile(r"\b(10|[1-9])(st|nd|rd|th)\b", re.IGNORECASE)
LANGUAGES = ("fr", "es", "en")  # targets whose ordinals num2words writes and ``holds`` reads


@dataclass
class Worded:
    """A text with its small ordinals as words: ``text``; ``numbers``: each ordinal's number, in
    order; ``to_text``: offsets in ``text`` -> offsets in the text as given."""

    text: str
    numbers: list[int]
    to_text: TextMap


def worded(text: str, source: str | None, target: str | None) -> Worded | None:
    """``text`` with each English ordinal from 1st to 10th before a noun as its word; None if it
    has none, or the languages are others."""
    if source != "en" or target not in LANGUAGES or not _SMALL.search(text):
        return None  # most texts: nothing to look for
    dates = [span for span, _ in find_dates(text, source)]
    title_case = is_title_case(_SMALL.sub("", text))
    replacements, numbers = [], []
    for match in _SMALL.finditer(text):
        number = int(match[1])
        suffix = match[2].lower()
        noun = BEFORE_A_NOUN.match(text, match.end())
        if suffix != english_suffix(number) or not noun:
            continue  # "3th"; "finished 2nd in the race"
        capital = noun.group()[-1].isupper()
        if match[2] == suffix and capital and not title_case:
            continue  # a name: "5th Avenue", "3rd Street"
        if any(a <= match.start() < b for a, b in dates):
            continue  # "May 3rd, 2024"
        word = _word(number, "en")
        if match[2] != suffix:  # "THE 3RD FLOOR"
            word = word.upper()
        elif title_case:  # "The 3rd Floor Is Closed."
            word = word.capitalize()
        replacements.append((match.span(), word))
        numbers.append(number)
    if not replacements:
        return None
    given, to_given = TextMap.replacing(text, replacements)
    return Worded(given, numbers, to_given.inverse())


def holds(translation: str, numbers: list[int], target: str | None) -> bool:
    """Whether ``translation`` holds the ``target`` language's ordinal of each of ``numbers``
    ("troisième"; "premier" or "première", "deuxième" or "second"; "tercero", "tercer" or
    "tercera")."""
    return all(_pattern(number, target or "").search(translation) for number in numbers)


@cache
def _pattern(number: int, target: str) -> re.Pattern[str]:
    word = _word(number, target)
    stems = [{"fr": word.removesuffix("er"), "es": word[:-1]}.get(target, word)]
    if target == "fr" and number == 2:
        stems.append("second")
    return re.compile(r"\b(?:" + "|".join(map(re.escape, stems)) + r")\w*", re.IGNORECASE)


def _word(number: int, language: str) -> str:
    from num2words import num2words

    return num2words(number, lang=language, to="ordinal")


def translate_worded(translator, texts: list[str], options, alignments: bool,
                     translate: Callable) -> list[list]:  # fmt: skip
    """``translate`` (heedful.real_input's, for texts) with small English ordinals before a
    noun given to the model as words where it translates them so, else with their digits; the
    links index the texts as given. Each text's n best ``Translation``s."""
    source, target = translator.source_language, translator.target_language
    found_words = [worded(text, source, target) if translator.protect_spans else None
                   for text in texts]  # fmt: skip
    if not any(found_words):
        return translate(translator, texts, options, alignments)
    given = [text if w is None else w.text for text, w in zip(texts, found_words, strict=True)]
    found = translate(translator, given, options, alignments)
    again = [
        i for i, w in enumerate(found_words)
        if w is not None and not holds(found[i][0].text, w.numbers, target)
    ]  # fmt: skip
    redone = translate(translator, [texts[i] for i in again], options, alignments)
    for i, options_ in zip(again, redone, strict=True):
        found[i], found_words[i] = options_, None
    for i, w in enumerate(found_words):
        if w is not None and alignments:
            found[i] = [replace(o, alignment=_links_to(o.alignment, w.to_text, texts[i]))
                        for o in found[i]]  # fmt: skip
    return found


def _links_to(links: list[WordLink], to_text: TextMap, text: str) -> list[WordLink]:
    """``links`` with their source spans mapped by ``to_text`` into ``text``."""
    out = []
    for link in links:
        source = to_text.map(link.source)
        out.append(link._replace(source=source, source_word=text[slice(*source)]))
    return out
