"""Words a model cannot read, carried into the translation as they are.

A source word made only of characters outside the model's vocabulary (an emoji, a name in a
script the model never saw: "😀", "王") reaches the model as unknown pieces, which it never met
in training and which can derail the whole sentence: the bundled es -> en model turns "Hola,
¿qué tal? 😀" into "Hi, what is the hitches?". Such words are taken out of the source, the rest
is translated, and each word is put back next to the translation of the source word before it,
found by word alignment from cross-attention (``heedful.explain.align``; Garg et al., 2019, take
the penultimate layer). A word at the start or the end of the source goes at the start or the
end. Punctuation that follows such characters in a word ("❤️.", "😀!") stays in the source, at
the end of the word before ("Te quiero ❤️." is translated as "Te quiero."). Words that mix known
letters or digits with unknown characters ("Tiên") stay in the source as they are: the model
reads part of them. A pictograph typed against a word is cut from it first ("pizza😀." ->
"pizza", "😀."): "Me encanta la pizza😀." gave "I love pizza.", the emoji lost.

On the bundled es -> en model: "El gato 🐈 duerme en el jardín." gave "The cat blows sleeping in
the garden." and now gives "The cat 🐈 sleeps in the garden."; "Hola, ¿qué tal? 😀" gave "Hi, what
is the hitches?" and now "Hi, what is it? 😀"; "Te quiero ❤️." gave "I love you." and now "I love
you. ❤️"; "Me encanta 🍕." gave "I love rainfall." and now "I love it. 🍕". ``translator.
carry_unreadable = False`` (or ``"generation": {"carry_unreadable": false}`` in a model's
config.json) turns it off, and imported Marian models have it off, to translate as HF and
CTranslate2 do, unknown pieces included.

An emoticon typed in ASCII (":)", ";-)", ":D": emot's list, whole words only) is made of
characters the model reads, as punctuation it cannot make sense of, and is carried the same way:
"Thanks a lot for your help :)" gave "Merci beaucoup pour votre aide, les noyages." (en -> fr)
and "Muchas gracias por tu ayuda :)" "Thank you very much for your help." (the face lost); now
"Merci beaucoup pour votre aide :)" and "Thank you very much for your help :)". Letters alone
("XD") stay with the model; so does the ":3" of "8:30".

A line of nothing but such characters ("🙂🙂", "中文" for the es -> en model) gives an empty
translation and a warning, not a hallucinated sentence; ``heedful attend``, ``heedful align`` and
the server's ``/attention`` refuse such a source (there is no translation to show the attention
of) unless a target is given to force one. They (and so the server's page) show what the model
does with the source exactly as given, unknown pieces included, so that their word indices are the
source's own: there the emoji sentence above still reads "The cat blows sleeping in the garden.".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from heedful.explain.align import Link

Span = tuple[int, int]  # [start, end) in a text


@dataclass
class Unreadable:
    """A source split into the words the model reads and those it cannot."""

    readable: list[str]  # the words to translate, in order
    words: list[str]  # the words carried as they are, in order
    after: list[int]  # for each carried word, the readable word before it (-1: none)
    spans: list[Span] = field(default_factory=list)  # where each carried word was, if known

    @property
    def text(self) -> str:
        """What the model translates: the readable words."""
        return " ".join(self.readable)


def split_unreadable(
    text: str, unknown: Callable[[str], bool], whole: Callable[[str], bool] = lambda word: False
) -> Unreadable | None:
    """``text``'s words (split at whitespace) sorted into those to translate and those to carry,
    given which characters are ``unknown`` to the model; None when there is nothing to carry, or
    nothing else (then there is nothing to translate either).

    A word is carried when it has unknown characters and no known letter or digit: its unknown
    characters are carried, and what else it has (punctuation) stays in the source, appended to
    the word before when it follows them, else as a word of its own (before the carried word
    unless it follows it). A word ``whole`` says is carried whole (an emoticon: ``is_emoticon``)."""
    split = Unreadable([], [], [])
    for start, word in _words(text, unknown):
        if whole(word):
            split.words.append(word)
            split.after.append(len(split.readable) - 1)
            split.spans.append((start, start + len(word)))
            continue
        flags = [unknown(c) for c in word]
        rest = "".join(c for c, u in zip(word, flags, strict=True) if not u)
        if not any(flags) or any(c.isalnum() for c in rest):
            split.readable.append(word)
            continue
        # rest is punctuation now
        trailing = flags == sorted(flags, reverse=True)  # "😀.": the punctuation comes last
        if rest and not trailing:  # "¡😀": a word of its own, before what is carried
            split.readable.append(rest)
        split.words.append("".join(c for c, u in zip(word, flags, strict=True) if u))
        split.after.append(len(split.readable) - 1)
        first, last = flags.index(True), len(flags) - flags[::-1].index(True)
        split.spans.append((start + first, start + last))
        if rest and trailing:  # the end of the word before, or a word of its own
            if split.readable:
                split.readable[-1] += rest
            else:
                split.readable.append(rest)
    return split if split.words and split.readable else None


def is_emoticon(word: str) -> bool:
    """Whether ``word`` is an emoticon typed in ASCII and the like (emot's list: ":)", ";-)",
    "^_^"), not letters alone ("XD", "QQ" may be words)."""
    return word in _emoticons()


def is_laughter(word: str, language: str | None) -> bool:
    """Whether ``word`` is laughter typed in ``language``'s chat ("jajaja", "jeje"; "hahaha",
    "lol"; "mdr"), perhaps with marks after it ("jaja,"): carried as an emoticon is. The
    bundled models read "jajaja qué bueno!!" as "Check out what good!!" and "hahaha that is so
    funny" as "Le hahaha est si drôle."."""
    pattern = _LAUGHTER.get(language or "")
    return pattern is not None and pattern.fullmatch(word) is not None


def laughter_in(word: str, source: str | None, target: str | None) -> str:
    """Laughter ``word`` written the ``target`` language's way, as long as it was ("jajaja" ->
    "hahaha", "lol" -> "mdr"); any other word as it is."""
    if not is_laughter(word, source) or source == target:
        return word
    if source == "es":
        return word.translate(_J_TO_H)
    if target == "es":
        return word.translate(_H_TO_J) if word.lower()[:1] == "h" else word
    swapped = _LOL_MDR.get((source, target))
    if swapped and word[:3].lower() in ("lol", "mdr"):
        return (swapped.upper() if word[:3].isupper() else swapped) + word[3:]
    return word


def laughter_line(line: str, source: str | None, target: str | None) -> str | None:
    """A line of nothing but laughter ("Jajaja.", "JAJAJA"), written the ``target`` way; None
    for any other. The bundled es -> en model wrote "Jaja." and "Go away"."""
    words = line.split()
    if not words or not all(is_laughter(word, source) for word in words):
        return None
    return " ".join(laughter_in(word, source, target) for word in words)


# the same syllable twice or more ("jaja", "jejeje", "hihi"; not "Jojo", a name), or chat's word
_LAUGHTER = {
    "es": re.compile(r"(?i)j([aei])(?:j\1)+j?[,.!?]*"),
    "en": re.compile(r"(?i)(?:h([aei])(?:h\1)+h?|lol)[,.!?]*"),
    "fr": re.compile(r"(?i)(?:h([aei])(?:h\1)+h?|mdr|ptdr)[,.!?]*"),
}
_J_TO_H, _H_TO_J = str.maketrans("jJ", "hH"), str.maketrans("hH", "jJ")
_LOL_MDR = {("en", "fr"): "mdr", ("fr", "en"): "lol"}


@cache
def _emoticons() -> frozenset[str]:
    from emot.emo_unicode import EMOTICONS_EMO

    # emot writes some hyphens as U+2011, where people type "-" (":‑)")
    faces = {face.replace("\u2011", "-") for face in EMOTICONS_EMO}
    return frozenset(face for face in faces if not face.isalnum() and " " not in face)


def _words(text: str, unknown: Callable[[str], bool]) -> list[tuple[int, str]]:
    """``text``'s words (split at whitespace) and where each starts, with the pictographs the
    model cannot read cut from the letters they are typed against ("pizza😀." -> "pizza",
    "😀."): the bundled es -> en model turned "Me encanta la pizza😀." into "I love pizza.",
    the emoji lost."""
    out = []
    for match in re.finditer(r"\S+", text):
        word, at = match.group(), 0
        for k in range(1, len(word)):
            if _pictograph(word[k], unknown) != _pictograph(word[k - 1], unknown) and (
                word[k].isalnum() or word[k - 1].isalnum()
            ):
                out.append((match.start() + at, word[at:k]))
                at = k
        out.append((match.start() + at, word[at:]))
    return out


def _pictograph(char: str, unknown: Callable[[str], bool]) -> bool:
    return unicodedata.category(char) == "So" and unknown(char)


def put_back(split: Unreadable, translation: str, links: set[Link] | None) -> str:
    """``translation`` (of ``split.text``) with the carried words put back: after the last
    target word aligned to the readable words up to the one before each (``links``), or, when
    none is, before the first one aligned to the word after it; without either, at the same
    relative place."""
    return put_back_spans(split, translation, links)[0]


def put_back_spans(
    split: Unreadable, translation: str, links: set[Link] | None
) -> tuple[str, list[Span]]:
    """``put_back``, and where each carried word went in the text it returns."""
    target = translation.split()
    n = len(split.readable)
    places: dict[int, list[int]] = {}  # target position -> carried words to put before it
    for k, (_, before) in enumerate(zip(split.words, split.after, strict=True)):
        if before < 0:
            place = 0
        elif before == n - 1:
            place = len(target)
        else:
            place = _place_between(before, len(target), n, links or set())
        places.setdefault(place, []).append(k)
    out: list[str] = []
    spans: list[Span] = [(0, 0)] * len(split.words)
    at = 0  # where the next word starts in " ".join(out)
    for position in range(len(target) + 1):
        for k in places.get(position, []):
            spans[k] = (at, at + len(split.words[k]))
            out.append(split.words[k])
            at += len(split.words[k]) + 1
        for word in target[position : position + 1]:
            out.append(word)
            at += len(word) + 1
    return " ".join(out), spans


def _place_between(before: int, n_target: int, n_source: int, links: set[Link]) -> int:
    """Where a word between readable words ``before`` and ``before + 1`` goes in the target:
    after every target word aligned to a readable word up to ``before`` (not only the nearest
    aligned one: "Nos vemos el domingo a las 12" read as "See you at 12" has "vemos" on "See"
    and "Nos" on "you", and the date went "See Monday the 12th you at 12"), else before those
    of the nearest one after it, else at its relative place."""
    if aligned := [j for k, j in links if k <= before]:
        return max(aligned) + 1
    for i in range(before + 1, n_source):
        if aligned := [j for k, j in links if k == i]:
            return min(aligned)
    return round(n_target * (before + 1) / n_source)
