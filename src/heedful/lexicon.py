"""The words a model read in training, and what they tell about the words of new input.

A model directory may hold ``source-words.txt``: every word of the training sources, one a line,
the most frequent first (``heedful train`` writes it; ``Lexicon.count``), in lower case unless
the training text usually writes it otherwise inside a sentence ("Lisboa", "Tom", "I"). Three
uses follow:

* **Usual case.** An ALL CAPS or Title Case sentence is given to the model as usually written
  (heedful.casing): "MI HERMANA VIVE EN LISBOA." as "Mi hermana vive en Lisboa.", since the
  training text writes "Lisboa" so; without a word list, the vocabulary guesses.
* **Unseen names.** A capitalised word the model never read is almost always a name, and a name
  it never read it garbles ("Callum" -> "Rumitude", "Ismael aprende" -> "Ismaholics"). Such a
  word, with the capitalised words next to it ("Port Muhima", "Simon Sykes"), is a span for
  heedful.protect to keep from the model. Without a word list, heedful.names.rare_names
  guesses from how many pieces the vocabulary cuts a word into, and leaves a lone first word
  alone (it may be a rare verb); with one, the first word is judged like any other.
* **Accents typed without.** "donde esta el bano": a word the model never read that, with its
  accents, is a word it did ("bano" -> "baño"; the most frequent if several) is given to the
  model with them. A word it read ("esta", "el") is left as typed: which one the writer meant is
  the model's to judge from the sentence.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from heedful.names import first_letter, name_runs
from heedful.textmap import Span

FILE = "source-words.txt"
_PART = re.compile(r"[^\W\d_]+")  # the letters of a word; "S'fiso", "Nimrat-Cola" have two
_OPENING = ".!?¡¿:;\"'«»“”„—–-(…"  # after these a word may open a sentence, or a quotation
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")


class Lexicon:
    """Words, most frequent first: ``words`` in lower case, ``forms`` as usually written."""

    def __init__(self, forms: Iterable[str]):
        self.forms = list(forms)
        self.words = [form.lower() for form in self.forms]
        self._known = set(self.words)
        self._usual = {form.lower(): form for form in self.forms if not form.islower()}
        self._accented: dict[str, str] = {}  # the word without accents -> the most frequent
        for word in self.words:
            bare = strip_accents(word)
            if bare != word:
                self._accented.setdefault(bare, word)

    @classmethod
    def count(cls, sentences: Iterable[str]) -> Lexicon:
        """The words of ``sentences``, most frequent first (ties in alphabetical order), each in
        its commonest form where it does not open a sentence or a quotation ("Lisboa", "I");
        lower case if that form is, or if the word only ever opens one."""
        counts: Counter[str] = Counter()
        inside: Counter[str] = Counter()  # the forms written after a sentence's first word
        for sentence in sentences:
            for match in _PART.finditer(sentence):
                word = match.group()
                counts[word.lower()] += 1
                if _inside(sentence, match.start()):
                    inside[word] += 1
        usual: dict[str, tuple[int, str]] = {}
        for form, n in inside.items():
            low = form.lower()
            if (n, form) > usual.get(low, (0, "")):
                usual[low] = (n, form)
        ranked = sorted(counts, key=lambda w: (-counts[w], w))
        return cls(usual.get(w, (0, w))[1] for w in ranked)

    @classmethod
    def load(cls, directory: str | Path) -> Lexicon | None:
        """A model directory's word list; None if it has none."""
        path = Path(directory) / FILE
        if not path.is_file():
            return None
        return cls(path.read_text(encoding="utf-8").split())

    def write(self, directory: str | Path) -> None:
        """Into a model directory, whole or not at all."""
        path = Path(directory) / FILE
        partial = path.with_name(f".{FILE}.partial")
        partial.write_text("".join(f"{w}\n" for w in self.forms), encoding="utf-8")
        os.replace(partial, path)

    def __len__(self) -> int:
        return len(self.words)

    def knows(self, word: str, *, accents: bool = True) -> bool:
        """Whether every part of ``word`` longer than a letter was read, in any case, and, with
        ``accents``, typed without accents it has ("tambien")."""
        parts = [p for p in _PART.findall(word.lower()) if len(p) > 1]
        return all(p in self._known or accents and p in self._accented for p in parts)

    def usual_case(self, word: str) -> str | None:
        """``word`` as the training text usually writes it ("LISBOA" -> "Lisboa", "CASA" ->
        "casa"); None for a word it never read."""
        low = word.lower()
        return self._usual.get(low, low) if low in self._known else None

    def unseen_names(self, text: str) -> list[Span]:
        """Runs of capitalised words, next to one another, with a word the model never read:
        "Habibu", "Port Muhima", "Vladimíra Němečková". A known first word of the sentence
        ("Ayer Kwame vino.") is not part of the name, nor is a lone capital ("I")."""
        words = [m for m in _WORD.finditer(text) if m.group()[0].isupper()]
        opening = first_letter(text)
        joins = [
            len(m.group()) > 1 and not (m.start() == opening and self.knows(m.group()))
            for m in words
        ]
        seeds = [not self.knows(m.group(), accents=False) for m in words]  # "Vera", not "verá"
        return name_runs(text, words, seeds, joins, lone_opening=True)

    def restore_accents(self, text: str) -> str:
        """``text`` with each lower-case word the model never read, typed without accents,
        given the accents of the word it did read ("bano" -> "baño"; a capitalised "Vera" may
        be a name); as long as ``text`` either way."""

        def restored(match: re.Match) -> str:
            word = match.group()
            if word in self._known or not word.islower() or strip_accents(word) != word:
                return word
            found = self._accented.get(word)
            return word if found is None or len(found) != len(word) else found

        return _PART.sub(restored, text)


def _inside(sentence: str, start: int) -> bool:
    """Whether the word at ``start`` goes on a sentence: it does not open the sentence or a
    quotation (after ". ", "¿", "«"...); the part after an apostrophe ("don't") goes on."""
    if start >= 2 and sentence[start - 1] in "'’" and sentence[start - 2].isalpha():
        return True
    i = start - 1
    while i >= 0 and sentence[i].isspace():
        i -= 1
    return i >= 0 and sentence[i] not in _OPENING


def strip_accents(word: str) -> str:
    """``word`` without its accents, letter for letter ("baño" -> "bano"); a letter that does
    not come apart into a letter and marks is kept."""
    out = []
    for letter in word:
        bare = "".join(
            c for c in unicodedata.normalize("NFD", letter) if not unicodedata.combining(c)
        )
        out.append(bare if len(bare) == 1 else letter)
    return "".join(out)
