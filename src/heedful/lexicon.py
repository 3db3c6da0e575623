"""The words a model read in training, and what they tell about the words of new input.

A model directory may hold ``source-words.txt``: every word of the training sources, one a line,
the most frequent first (``heedful train`` writes it; ``Lexicon.count``), in lower case unless
the training text usually writes it otherwise inside a sentence ("Lisboa", "Tom", "I"), and
after a tab how many times it was read (older lists have no counts). Six
uses follow:

* **Usual case.** An ALL CAPS or Title Case sentence is given to the model as usually written
  (heedful.casing): "MI HERMANA VIVE EN LISBOA." as "Mi hermana vive en Lisboa.", since the
  training text writes "Lisboa" so; without a word list, the vocabulary guesses.
* **Unseen names.** A capitalised word the model never read is almost always a name, and a name
  it never read it garbles ("Callum" -> "Rumitude", "Ismael aprende" -> "Ismaholics"). Such a
  word, with the capitalised words next to it ("Port Muhima", "Simon Sykes"), is a span for
  heedful.protect to keep from the model. Without a word list, heedful.names.rare_names
  guesses from how many pieces the vocabulary cuts a word into, and leaves a lone first word
  alone (it may be a rare verb); with one, the first word is judged like any other. So is a
  person's name (Faker's lists: heedful.names.people) that the model read too seldom to know as
  one: at most ``RARE`` times ("Pedro", once in Tatoeba's Spanish, in "como Pedro por su casa":
  "Mi hermano se llama Pedro." gave "My brother is called a ring."), or only as a common word
  ("Lucía", the verb: "Me llamo Lucía" lost the name) where it is capitalised inside a
  sentence; and a first name with a last name ("Dale Lee"). In ALL CAPS, a person's name the
  model never read is one ("MI PERRO SE LLAMA MAX." gave "MY DOG IS CALLED A MAGIC."); any
  other word it never read is a rare word, not a name ("NO TE ALEJES"). Typed in lower case, a
  person's name the model never read or read too seldom ("mi hermano se llama pedro" gave "My
  brother is called."), but not one the training text writes in lower case ("rosa").
* **Accents typed without.** "donde esta el bano": a word the model never read that, with its
  accents, is a word it did ("bano" -> "baño"; the most frequent if several) is given to the
  model with them. A word it read ("esta", "el") is left as typed: which one the writer meant is
  the model's to judge from the sentence.
* **Spellings of another English.** "My favourite colour": an English word the model read at
  most ``RARE`` times whose other spelling (British or American, from breame's tables) it read
  more than ``RARE`` times and ten times as often is given in that spelling ("favourite", read
  once in Tatoeba's English, gave "Ma couleur de favite est bleue."; "favorite", 197 times,
  gives "Ma couleur préférée est bleue."). A word the model read often in either spelling is
  left as typed.
* **Chat abbreviations.** "idk where he is": an English abbreviation of contractions' slang list
  that the model read at most ``RARE`` times, every word of whose spelling it read more, is given
  spelt out ("I do not know where he is"; "thx" -> "thanks", "ASAP" -> "as soon as possible").
* **Apostrophes typed without.** "i dont know": an English word the model never read that is a
  word it read and a clitic ("don" + "t", "i" + "m") gets its apostrophe back ("don't", "I'm").
"""

from __future__ import annotations

import bisect
import os
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable
from functools import cache, cached_property
from pathlib import Path

from heedful.dates import MONTHS, WEEKDAYS
from heedful.names import People, first_letter, name_runs, next_to, roman_numeral
from heedful.names import people as people_of
from heedful.textmap import Span

FILE = "source-words.txt"
RARE = 5  # a person's name read this few times is protected as if never read ("Pedro": once)
_PART = re.compile(r"[^\W\d_]+")  # the letters of a word; "S'fiso", "Nimrat-Cola" have two
_OPENING = ".!?¡¿:;\"'«»“”„—–-(…"  # after these a word may open a sentence, or a quotation
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019-][^\W\d_]+)*")
_CAPITALS = re.compile(r"(?<![\w'’-])[A-ZÀ-ÖØ-Þ]{2,6}(?![\w'’-])")  # Latin capitals


class Lexicon:
    """Words, most frequent first: ``words`` in lower case, ``forms`` as usually written."""

    def __init__(self, forms: Iterable[str], counts: Iterable[int] | None = None):
        self.forms = list(forms)
        self.words = [form.lower() for form in self.forms]
        # how many times each word was read, in any case; None for a list without counts
        self.counts = None if counts is None else dict(zip(self.words, counts, strict=True))
        self._known = set(self.words)
        self._usual = {form.lower(): form for form in self.forms if not form.islower()}
        self._most_read: tuple[int, frozenset[str]] = (0, frozenset())
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
        return cls([usual.get(w, (0, w))[1] for w in ranked], [counts[w] for w in ranked])

    @classmethod
    def load(cls, directory: str | Path) -> Lexicon | None:
        """A model directory's word list; None if it has none."""
        path = Path(directory) / FILE
        if not path.is_file():
            return None
        lines = [line.split("\t") for line in path.read_text(encoding="utf-8").split("\n") if line]
        counts = [int(line[1]) for line in lines] if all(len(ln) == 2 for ln in lines) else None
        return cls([line[0].strip() for line in lines], counts)

    def write(self, directory: str | Path) -> None:
        """Into a model directory, whole or not at all."""
        path = Path(directory) / FILE
        partial = path.with_name(f".{FILE}.partial")
        if self.counts is None:
            lines = [f"{form}\n" for form in self.forms]
        else:
            counts = [self.counts[word] for word in self.words]
            lines = [f"{form}\t{n}\n" for form, n in zip(self.forms, counts, strict=True)]
        partial.write_text("".join(lines), encoding="utf-8")
        os.replace(partial, path)

    def __len__(self) -> int:
        return len(self.words)

    def most_read(self, n: int) -> frozenset[str]:
        """The ``n`` words read most, in lower case (heedful.dropped watches the others)."""
        if self._most_read[0] != n:
            self._most_read = (n, frozenset(self.words[:n]))
        return self._most_read[1]

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

    def unseen_names(
        self,
        text: str,
        people: People | None = None,
        *,
        capitals: bool = False,
        places: Collection[str] = (),
    ) -> list[Span]:
        """Runs of capitalised words, next to one another, with a name the model cannot read:
        a word it never read ("Habibu", "Port Muhima", "Vladimíra Němečková"); a name of
        ``people`` (heedful.names.people) that it read at most ``RARE`` times ("Pedro"), or a
        first name that, inside the sentence, it read only as a common word ("Lucía"); a first
        name and a last name ("Dale Lee", "John Johnson": the model kept one of the two),
        unless it reads both as names ("Tom French", of "I taught Tom French"). A known first
        word of the sentence ("Ayer Kwame vino.") is not part of the name, nor is a lone
        capital ("I"). With ``capitals`` (an ALL CAPS sentence), where a word the model never
        read is mostly a rare word ("ALEJES"), a name must be one of ``people`` ("MAX"), and
        only the words the training text writes capitalised join it. A word of ``places``
        written capitalised inside a sentence that the model read at most ``RARE`` times, in
        lower case, is a place's name too ("Lagos" of "Soy de Lagos.", read as "lagos": "I'm from
        Lakes.")."""
        words = [m for m in _WORD.finditer(text) if m.group()[0].isupper()]
        opening = first_letter(text)
        people = people or People()
        seeds, joins = [], []
        for m in words:
            word, inside = m.group(), m.start() != opening
            if roman_numeral(word) and not (word == "I" and self._read_capitalised(word)):
                # "XVI" is a number; "Carlos V", "Henry VIII", "HENRY VIII": with the name just
                # before it (not English's "I", which the model reads as the word)
                seeds.append(False)
                joins.append(bool(joins) and next_to(text, words[len(joins) - 1], m))
            elif capitals:  # "ROSA" may be the colour: only a rare name counts
                name = word.capitalize()
                never = not self.knows(word) and name in people.names
                seeds.append(never or self._person(name, people))
                usual = self.usual_case(word) or "x"
                joins.append(len(word) > 1 and (seeds[-1] or not usual.islower()))
            else:
                person = self._person(word, people, inside) or self._place(word, places, inside)
                never = not self.knows(word, accents=False) and not self._contracted(word)
                # a sentence's first word, no person's, that shares its stem with a word the
                # model read is a form of that word ("Tardamos tres horas": "tardar", "tarda")
                never = never and (inside or word in people.names or not self._inflected(word))
                never = never and self.usual_words(word, "en") == word  # not "Theatre", "Thx"
                never = never and self.usual_words(word, "es") == word  # not "Porfa"
                seeds.append(never or person)  # "Vera", not "verá"; "Im" is "I'm"
                joins.append(len(word) > 1 and (inside or seeds[-1] or not self.knows(word)))
        full_names = [] if capitals else reversed(range(len(words) - 1))  # from the right
        for k in full_names:  # "Dale Lee"; "María" of "María Teresa Puente" once "Teresa" is in
            first, last = words[k].group(), words[k + 1].group()
            full = first in people.first and last in people.names
            read = self._read_capitalised(first) and self._read_capitalised(last)
            if full and (not read or seeds[k + 1]) and next_to(text, words[k], words[k + 1]):
                seeds[k] = seeds[k + 1] = joins[k] = joins[k + 1] = True
        runs = name_runs(text, words, seeds, joins, lone_opening=True)
        found = [span for run in runs if (span := self._trimmed(text, run, people, places))]
        if capitals:
            return found
        return sorted(found + self._typed_in_lower_case(text, people))

    def unread_acronyms(self, text: str) -> list[Span]:
        """Words of two to six capitals that the model read at most ``RARE`` times, in a text
        not in capitals: acronyms outside heedful.acronyms' table, copied as written. The
        bundled es -> en model wrote "Trabajo para la NASA." as "I work for NásA." and "La NASA
        es grande." as "Number is big."; "TV", "OK", "FBI" and "UFO" ("OVNI"), which the
        training text has often, stay with it, as do common words written in capitals for
        emphasis ("NO", "MUY"), Roman numerals and what chat types for words ("ASAP")."""
        out = []
        for match in _CAPITALS.finditer(text):
            word = match.group()
            if roman_numeral(word):
                continue
            if self.usual_words(word, "en") != word or self.usual_words(word, "es") != word:
                continue  # typed for words ("ASAP", "TQM"): spelt out for the model
            if self.counts is None:
                unread = not self.knows(word)
            else:
                unread = self.counts.get(word.lower(), 0) <= RARE
            if unread:
                out.append(match.span())
        return out

    def women_read(self, text: str, people: People, places: Collection[str] = ()) -> list[Span]:
        """Women's first names (``people.women``) that the model read: the training text
        writes them capitalised, more than ``RARE`` times ("Alice", "Carmen"), or has them at
        most ``RARE`` times ("Helen", read 3 times, each opening a sentence). Each is
        given to the model as its woman's placeholder (heedful.protect: "Mary"), the only
        woman's name the bundled models agree with: "Alice is tired." gave "Alice est fatigué.",
        "Carmen perdió su libro." "Carmen lost his book.". A name alone, or with a last name
        after it ("Alice Smith"); not a place (``places``: "Virginia", "India"), a month, nor a
        word the training text writes in lower case ("Rose", "Lucía" of the verb); in capitals
        ("ALICE"), the same judged on the word capitalised."""
        out: list[Span] = []
        if not any(c.isupper() for c in text):
            return out  # most sentences: one look
        words = list(_WORD.finditer(text))
        for k, m in enumerate(words):
            word = m.group()
            name = word.capitalize() if word.isupper() and len(word) > 1 else word
            if name not in people.women or name == WOMAN_PLACEHOLDER:
                continue  # Mary is her own placeholder
            if self.usual_case(name) is None:
                continue  # a name never read is unseen_names's
            # read capitalised, or so seldom that it may be a name read only opening sentences
            rare = self.counts is not None and self.counts.get(name.lower(), 0) <= RARE
            read = self._read_capitalised(name) or rare
            place = name in places or strip_accents(name) in places  # "África"
            woman = name in people.women and name in people.first and not place
            capitals = name != word  # in capitals every word looks like a name's: "ALICE IS"
            if not (read and woman) or (k > 0 and _joined(text, words[k - 1], m) and not capitals):
                continue  # "Madison" of "Madison Square", "Lee" of "Dale Lee"
            end = m.end()
            if k + 1 < len(words) and _joined(text, m, words[k + 1]):
                after = words[k + 1].group()
                if (after.capitalize() if capitals else after) in people.names:
                    end = words[k + 1].end()  # "Alice Smith"
                elif not capitals:
                    continue  # "Alice Springs", "Victoria Station"
            out.append((m.start(), end))
        return out

    def _typed_in_lower_case(self, text: str, people: People) -> list[Span]:
        """Names of ``people`` typed in lower case ("mi hermano se llama pedro") that the model
        cannot read as names: a first name never read ("kwame"; not a word that is only a last
        name: "stock", "guay"), or a name read capitalised at most ``RARE`` times ("pedro");
        not a name the training text writes in lower case ("rosa"), a word it has with accents
        ("frances", read once as "Frances", is "francés": "I want to study Tom."), nor chat's
        word that ``usual_words`` spells out ("curro", Francisco's, is Spain's "trabajo")."""
        out, first = [], _unaccented(people.first)
        for m in _WORD.finditer(text):
            word = m.group()
            if not word.islower() or len(word) < 2:
                continue
            name = word.capitalize()
            if name not in people.names and name not in first:
                continue  # no name: most words
            if word in self._accented:
                continue  # a word typed without its accents: "frances" is "francés"
            never = not self.knows(word) and name in first  # "jurgen"
            if word in self._spanish or word in self._english:
                continue  # chat's, spelt out by usual_words: "curro" is "trabajo", "ty" "thank you"
            if (never or self._person(name, people)) and not self._contracted(word):
                out.append(m.span())  # not "cant": "can't"
        return out

    def _trimmed(
        self, text: str, run: Span, people: People, places: Collection[str] = ()
    ) -> Span | None:
        """``run`` without the words at its ends that are neither names (of ``people``, or
        places read as rare words: ``_place``) nor read capitalised, if the model read every
        word of it: "Reagan" of "President Reagan" (a name it read seldom), where "Kwame" of
        "Port Kwame" keeps "Port"."""
        words = list(_WORD.finditer(text, *run))
        if any(not self.knows(m.group(), accents=False) for m in words):
            return run

        def kept(m: re.Match) -> bool:
            usual = self.usual_case(m.group()) or ""
            name = m.group().capitalize() in people.names or self._place(m.group(), places, True)
            return name or not usual.islower()

        while words and not kept(words[0]):
            words.pop(0)
        while words and not kept(words[-1]):
            words.pop()
        return (words[0].start(), words[-1].end()) if words else None

    def common_word(self, word: str) -> bool:
        """Whether the training text has ``word`` (any case) written in lower case as usual:
        "cuba" (a vat), "chile" (a pepper); not "Perú", nor a word it never read."""
        usual = self.usual_case(word)
        return usual is not None and usual.islower()

    def may_be_name(self, word: str) -> bool:
        """Whether the training text writes ``word`` capitalised, or never read it: in capitals,
        a word of a name ("GARCÍA"), not a common word ("LLEGÓ" is "llegó")."""
        usual = self.usual_case(word)
        return usual is None or not usual.islower()

    def _read_capitalised(self, word: str) -> bool:
        """Whether the training text usually writes ``word`` capitalised and has it more than
        ``RARE`` times: the model reads it ("Tom", "French" of "I taught Tom French")."""
        usual = self.usual_case(word)
        if usual is None or usual.islower():
            return False
        return self.counts is None or self.counts.get(word.lower(), 0) > RARE

    def _person(self, word: str, people: People, inside: bool = False) -> bool:
        """Whether ``word`` is a name of ``people`` that the model cannot be trusted to read as
        one: read at most ``RARE`` times and usually capitalised, or a first name that, written
        ``inside`` a sentence, the training text usually writes in lower case (a common word:
        "Lucía", "Rosa"; not a month: "May")."""
        usual = self.usual_case(word)
        if usual is None or usual.islower():
            return inside and word in people.first
        rare = self.counts is not None and self.counts.get(word.lower(), 0) <= RARE
        return rare and word in people.names

    def _place(self, word: str, places: Collection[str], inside: bool) -> bool:
        """Whether ``word``, written ``inside`` a sentence, is a place's name that the model
        read only as a rare common word (``unseen_names``)."""
        if not inside or word not in places or self.counts is None:
            return False
        return self.common_word(word) and self.counts.get(word.lower(), 0) <= RARE

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

    def usual_capitals(self, text: str) -> str:
        """A ``text`` typed all in lower case with each word the training text writes
        capitalised (a place, a language, a weekday) and read more than ``RARE`` times, given
        so ("quiero ir a japón" -> "quiero ir a Japón"): the bundled es -> en model read
        "japón" in lower case as another word ("I want to go to Hirosón."). As long as
        ``text`` either way; any other text as it is."""
        if self.counts is None or any(c.isupper() for c in text):
            return text

        def cased(match: re.Match) -> str:
            word = match.group()
            usual = self._usual.get(word)
            if usual is None or not usual.istitle() or len(usual) != len(word) or len(word) < 3:
                return word  # not a letter, nor chat's "ur" ("U", "Ur")
            if word in _CALENDAR:  # read in lower case as well: "see you on Monday" gave
                return word  # "Voyez-vous le lundi.", "see you on monday" "On se voit lundi."
            if ARTICLE_BEFORE.search(text, 0, match.start()):
                return word  # a noun: "una cuba de vino" (a vat), not "Cuba"
            return usual if self.counts.get(word, 0) > RARE else word

        return _PART.sub(cased, text)

    def usual_words(self, text: str, language: str | None) -> str:
        """``text`` with each English or Spanish word the model hardly read in the form it read
        far more often: the other English's spelling ("favourite" -> "favorite", "CENTRE" ->
        "CENTER", in the case typed) or a chat abbreviation spelt out ("idk" -> "I do not know",
        "Thx" -> "Thanks", "ASAP" -> "as soon as possible"; "tqm" -> "te quiero mucho"); in
        any language, a word typed with a letter held ("Sooo", "holaaa") as the word the model
        read (``unheld``); the text as it is for another language or a list without counts."""
        if self.counts is not None and _HELD.search(text):
            text = _HELD_WORD.sub(lambda m: self.unheld(m.group()), text)
        forms = {"en": self._english, "es": self._spanish}.get(language or "", {})
        if not forms or forms.keys().isdisjoint(_PART.findall(text.lower())):
            return text  # most texts

        def usual(match: re.Match) -> str:
            word = match.group()
            form = forms.get(word.lower())
            if form is None or len(word) == 1 and not _chat_letter(text, match):
                return word
            if word.istitle() and word in people_of(language).first:
                return word  # "Curro" is a name, "curro" Spain's "trabajo"
            if form == "porque" and text.rstrip().endswith("?"):  # "xq no viniste?"
                form = "por qué"
            if word.isupper() and len(word) > 1:  # "CENTRE" -> "CENTER", "ASAP" -> "as soon ..."
                return form if " " in form else form.upper()
            return form[0].upper() + form[1:] if word[0].isupper() else form

        return _PART.sub(usual, text)

    def unheld(self, word: str) -> str:
        """``word`` with the letters held in it (three or more alike: "Sooo", "graciasss") let
        go, to two or one, as the model read it more than ``RARE`` times ("So", "gracias";
        "coool" -> "cool"); as it is if it has none, or the model read it, or neither form."""
        if self.counts is None or self.knows(word) or not _HELD.search(word):
            return word
        for letters in (2, 1):
            form = _HELD.sub(r"\1" * letters, word)
            if self.counts.get(form.lower(), 0) > RARE:
                return form
        return word

    @cached_property
    def _english(self) -> dict[str, str]:
        """The English words ``usual_words`` changes for this model, in lower case, and what
        into: each read at most ``RARE`` times, its other spelling read more than ``RARE`` times
        and ten times as often, or every word of its spelling out read more than ``RARE`` times."""
        if self.counts is None:
            return {}
        read = lambda word: self.counts.get(word.lower(), 0)  # noqa: E731
        forms = self._spelt_out({**_slang(), **ENGLISH_CHAT})  # ours where both have a word
        forms |= {
            word: other
            for word, other in _other_spellings().items()
            if read(word) <= RARE < read(other) and read(other) >= 10 * read(word)
        }
        return forms

    @cached_property
    def _spanish(self) -> dict[str, str]:
        """The Spanish chat abbreviations (``SPANISH_CHAT``) ``usual_words`` spells out for
        this model (``_spelt_out``)."""
        return {} if self.counts is None else self._spelt_out(SPANISH_CHAT)

    def _spelt_out(self, table: dict[str, str]) -> dict[str, str]:
        """The abbreviations of ``table`` (-> spelt out) this model read at most ``RARE`` times
        (a letter alone whatever its count, mostly initials' and abbreviations': "U.S."), every
        word of whose spelling out it read more."""
        read = lambda word: self.counts.get(word.lower(), 0)  # noqa: E731
        return {
            word: full
            for word, full in table.items()
            if (read(word) <= RARE or len(word) == 1)
            and all(read(part) > RARE for part in _PART.findall(full))
        }

    def restore_apostrophes(self, text: str, language: str | None) -> str:
        """``text`` with the apostrophe put back in each word the model never read that is a
        word and a clitic of ``language`` (``contraction``: "dont" -> "don't", "im" -> "I'm")."""
        if not CLITICS.get(language or ""):
            return text
        if language == "en" and "ill " in text:  # a word the model read: "I'll" by its place
            text = _ILL.sub("I'll", text)
        return _PART.sub(lambda m: self.contraction(m.group(), language) or m.group(), text)

    def contraction(self, word: str, language: str | None) -> str | None:
        """``word``, never read, as a word and a clitic of ``language`` that the model read
        ("dont" -> "don't", "youre" -> "you're", "Im" -> "I'm"): a negation ("n" + "t"), or a
        word of ``CLITIC_HEADS`` before the clitic, so that "hive" does not become "hi've" nor
        "Andre" "and're"; None if it is not one."""
        low = word.lower()
        if low in self._known or low in self._accented or not (word.islower() or word.istitle()):
            return None
        heads = CLITIC_HEADS.get(language or "", ())
        for clitic in CLITICS.get(language or "", ()):
            head = low[: -len(clitic)]
            if not low.endswith(clitic) or head not in self._known:
                continue
            if head in heads or clitic == "t" and head.endswith("n"):
                head = self._usual.get(head, head)  # "i" -> "I"
                head = head[0].upper() + head[1:] if word[0].isupper() else head
                return f"{head}'{clitic}"
        return None

    def _inflected(self, word: str) -> bool:
        """Whether ``word`` (six letters or more) is, by its first letters, another form of a
        word the model read: one that opens with all of ``word`` but its last three letters, and
        at least five ("tardamos": "tarda"; not "Habibu": no word opens with "habib"), accents
        aside and with up to two Spanish pronouns after a verb left out ("Apúntate": "apunta",
        "Cómpratelo": "compra")."""
        low = strip_accents(word.lower())
        if len(low) < 6 or not low.isalpha():
            return False
        forms = [low]  # "compratelo", "comprate", "compra"
        for _ in range(2):
            pronoun = next((p for p in _ENCLITICS if forms[-1].endswith(p)), None)
            if pronoun is None:
                break
            forms.append(forms[-1][: -len(pronoun)])
        return any(self._opens_a_word(f[: max(5, len(f) - 3)]) for f in forms if len(f) >= 5)

    def _opens_a_word(self, stem: str) -> bool:
        at = bisect.bisect_left(self._bare_sorted, stem)
        return at < len(self._bare_sorted) and self._bare_sorted[at].startswith(stem)

    @cached_property
    def _bare_sorted(self) -> list[str]:
        """The words read, without their accents, in order."""
        return sorted({strip_accents(w) for w in self._known})

    def _contracted(self, word: str) -> bool:
        """Whether ``word`` is a contraction typed without its apostrophe in a language of
        ``CLITICS`` ("Im", "cant"): no name."""
        return any(self.contraction(word, language) for language in CLITICS)


# the pronouns Spanish writes after an imperative, an infinitive or a gerund, longest first
_ENCLITICS = ("nos", "los", "las", "les", "me", "te", "se", "lo", "la", "le", "os")
# the woman's placeholder (heedful.protect.WOMEN's first), which stands for herself
WOMAN_PLACEHOLDER = "Mary"
# the clitics a language writes after an apostrophe, that casual typing leaves it out of, and
# the words they follow but for a negation's "n't" ("don't", "isn't")
CLITICS = {"en": ("t", "s", "m", "re", "ll", "ve", "d")}
CLITIC_HEADS = {
    "en": {"i", "you", "he", "she", "it", "we", "they", "that", "what", "there", "here", "who",
           "where", "how", "let"},
}  # fmt: skip


@cache
def _slang() -> dict[str, str]:
    """contractions' list of English chat abbreviations, in lower case -> spelt out ("idk" -> "I
    do not know"); only the list, not its contractions ("I'm" -> "I am"), which the model reads."""
    import json
    from importlib.util import find_spec

    (folder,) = find_spec("contractions").submodule_search_locations
    path = Path(folder) / "data" / "slang_dict.json"
    found = {k.strip().lower(): v.strip() for k, v in json.loads(path.read_text("utf-8")).items()}
    return {k: v for k, v in found.items() if k not in _AMBIGUOUS}


# a letter held, three or more times alike ("sooo", "¡holaaa!"), and a word that holds one
_HELD = re.compile(r"([^\W\d_])\1{2,}")
# an article just before a word: the word is a noun, not a name ("una cuba", "the turkey"; not
# "a", Spanish's preposition too: "voy a japón")
ARTICLE_BEFORE = re.compile(r"(?<![\w'’])(?:un|una|unos|unas|el|la|los|las|an|the|une|le|les) $")
# weekdays and months, in lower case (``usual_capitals`` leaves them)
_CALENDAR = {name.lower() for names in (*WEEKDAYS.values(), *MONTHS.values()) for name in names}
_HELD_WORD = re.compile(r"[^\W\d_]*([^\W\d_])\1{2,}[^\W\d_]*")


def _chat_letter(text: str, match: re.Match) -> bool:
    """Whether a letter alone is chat's word ("r u ok": "are you", "q haces": "que haces"), not
    an initial, a key, a unit or a letter named ("John R. Smith", "Press R", "U.S.", "5 k", "the
    letter u"): in lower case, no full stop or apostrophe next to it, no number or "letter"
    before it."""
    start, end = match.span()
    beside = text[end : end + 1] in (".", "'", "’", "-") or text[start - 1 : start] in (".", "-")
    named = re.search(r"(?:\d|\bletter|\bletra|\blettre) ?$", text[:start], re.IGNORECASE)
    return match.group().islower() and not beside and not named


# Spanish chat's abbreviations, spelt out (common in messages, unambiguous but "xq": "porque",
# "por qué" in a question; "x" for "por" is left alone: "3 x 4"); no library lists them
SPANISH_CHAT = {
    "q": "que", "k": "que", "xq": "porque", "pq": "porque", "tb": "también", "tmb": "también",
    "porfa": "por favor", "xfa": "por favor", "finde": "fin de semana", "peli": "película",
    "pelis": "películas", "tqm": "te quiero mucho", "bn": "bien", "msj": "mensaje",
    "dnd": "donde", "ntp": "no te preocupes", "tq": "te quiero", "tkm": "te quiero mucho",
    # Spain's word for work, which Tatoeba never writes: "liado con el curro" gave "with curro",
    # "tengo que currar" "I have to run away"
    "curro": "trabajo", "currar": "trabajar", "currando": "trabajando", "curras": "trabajas",
    "curra": "trabaja",
}  # fmt: skip


# English chat's abbreviations that contractions' list lacks, spelt out: "I'll call you back in
# 5 mins." gave "dans 5 miners" ("OMG" spelt out gave "Remettez mon Dieu que ...": left out)
ENGLISH_CHAT = {
    "pls": "please", "plz": "please", "ty": "thank you", "np": "no problem", "mins": "minutes",
    "hrs": "hours", "secs": "seconds", "imo": "in my opinion", "brb": "be right back",
    "cuz": "because", "jk": "just kidding", "idc": "I do not care", "pic": "picture",
    "pics": "pictures",
    # "omw, be there in 5" gave "5 là-bas en 5.", "sry i missed ur call" "sèche que ...", "ok cool
    # see ya" "L'huile s'est calmé dans le ya." (contractions' own "cya" is "see ya")
    "omw": "on my way", "sry": "sorry", "ya": "you", "cya": "see you", "ttyl": "talk to you later",
}  # fmt: skip


# "ill" opening a clause before a word in lower case is "I'll" typed without its apostrophe
# ("not sure i can make it, ill let u know later" gave "malade vous le faire savoir"): the
# adjective follows a verb or an adverb ("I feel ill", "fell ill", "very ill")
_ILL = re.compile(
    r"(?:^|(?<=[,;.!?] )|"
    + "|".join(rf"(?<=\b{w} )" for w in "and but so then ok okay yeah yes maybe".split())
    + r")ill(?= [a-z])"
)


# the list's "ur" is "you are", but chat writes "your" with it as often: "ur car is nice" gave
# "Vous êtes sympathique." spelt out, "La voiture de ur est sympa." as typed
_AMBIGUOUS = {"ur"}


@cache
def _other_spellings() -> dict[str, str]:
    """Each English word with a British and an American spelling, in lower case, -> the other
    spelling (breame's tables: "colour" -> "color", "color" -> "colour")."""
    from breame.data.spelling_constants import (
        AMERICAN_ENGLISH_SPELLINGS,
        BRITISH_ENGLISH_SPELLINGS,
    )

    return {**AMERICAN_ENGLISH_SPELLINGS, **BRITISH_ENGLISH_SPELLINGS}


def _joined(text: str, left: re.Match, right: re.Match) -> bool:
    """Whether ``left`` and ``right`` are capitalised words one space apart: parts of a name."""
    return next_to(text, left, right) and left.group()[0].isupper() and right.group()[0].isupper()


def _inside(sentence: str, start: int) -> bool:
    """Whether the word at ``start`` goes on a sentence: it does not open the sentence or a
    quotation (after ". ", "¿", "«"...); the part after an apostrophe ("don't") goes on."""
    if start >= 2 and sentence[start - 1] in "'’" and sentence[start - 2].isalpha():
        return True
    i = start - 1
    while i >= 0 and sentence[i].isspace():
        i -= 1
    return i >= 0 and sentence[i] not in _OPENING


@cache
def _unaccented(names: frozenset[str]) -> frozenset[str]:
    """``names``, and each typed without its accents ("Jurgen" of "Jürgen")."""
    return names | {strip_accents(name) for name in names}


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
