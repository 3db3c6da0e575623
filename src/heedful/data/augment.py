"""Training pairs that teach what Tatoeba does not: unseen names, numbers, capitals, casual typing
and several sentences on one line. Each kind adds new pairs made from training pairs (the
original pairs all stay), as a share of the training split's size (``Augmentation``):

    names    a proper noun written the same on both sides ("Tom", "Boston") -> a name or a place
             from Faker's locale-aware providers, many languages, on both sides
    numbers  a number on both sides, in digits ("3", "7,50", "2:30") or in words ("dos" / "two",
             from num2words) -> another number in digits, each side with its language's decimal
             separator: integers of 1-4 digits, decimals, years
    caps     the source in ALL CAPS (the target as it was)
    title    the source in Title Case
    casual   the source as typed in a hurry: lowercase, no accents, no ¿ ¡, no final punctuation
    concat   2-4 pairs joined into one, sentences after one another on both sides

Names, numbers and ``concat`` change both sides; the other kinds only the source, so the model
learns to give the clean translation. Everything is drawn from one ``random.Random(seed)``
(names from Faker's locale data, sorted): the same seed gives the same pairs in any process, so
a resumed run rebuilds its corpus exactly. Which words are proper nouns is learned from the
corpus itself: capitalised words seen inside sentences and (almost) never in lower case.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from heedful.data.readers import ParallelText

# Faker locales whose names and cities are written in Latin letters, from many languages (ja_JP
# and zh_CN through their romanised names). Which provider gives what is ``_draw_name``.
LOCALES = (
    "en_US", "en_GB", "en_IN", "en_NG", "en_KE", "es_ES", "es_MX", "es_AR", "fr_FR", "fr_CA",
    "de_DE", "it_IT", "pt_BR", "pt_PT", "pl_PL", "nl_NL", "tr_TR", "sv_SE", "cs_CZ", "hu_HU",
    "fi_FI", "ro_RO", "hr_HR", "id_ID", "vi_VN", "tw_GH", "yo_NG", "zu_ZA", "sw", "fil_PH",
    "ga_IE", "ja_JP", "zh_CN",
)  # fmt: skip
DECIMAL_SEPARATOR = {"en": ".", "de": ",", "es": ",", "fr": ",", "it": ",", "pt": ","}
_ROMANISED = {"ja_JP": ("first_romanized_names", "last_romanized_names"),
              "zh_CN": ("first_romanized_names", "last_romanized_names")}  # fmt: skip
_NUMBER = re.compile(r"(?<![\w.,:])\d{1,4}(?:[.,:]\d{1,2})?(?![\w]|[.,:]\d)")


@dataclass(frozen=True)
class Augmentation:
    """How many pairs of each kind to add, as a share of the training pairs (0: none). It is
    also a run config's ``augment:`` section; the pairs are drawn with ``train.seed``."""

    names: float = 0.0  # a proper noun on both sides -> an unseen name or place (Faker)
    numbers: float = 0.0  # a number on both sides -> another (digits, decimals, years, times)
    caps: float = 0.0  # the source in ALL CAPS
    title: float = 0.0  # the source in Title Case
    casual: float = 0.0  # the source lowercased, without accents or final punctuation
    concat: float = 0.0  # 2-4 pairs joined into one

    def any(self) -> bool:
        return any(getattr(self, k) for k in self.__dataclass_fields__)


def augment(
    text: ParallelText, plan: Augmentation, *, src: str, tgt: str, seed: int
) -> tuple[ParallelText, dict[str, int]]:
    """``text`` (normalised pairs) followed by the added pairs; and how many of each kind."""
    rng = random.Random(seed)
    pairs = list(zip(text.sources, text.targets, strict=True))
    n = len(pairs)
    added: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    makers: dict[str, Callable[[], tuple[str, str] | None]] = {}
    if plan.names:
        makers["names"] = _NameSwapper(pairs, rng).make
    if plan.numbers:
        makers["numbers"] = _NumberSwapper(pairs, rng, src, tgt).make
    for kind, change in (("caps", str.upper), ("title", title_case), ("casual", casual)):
        if getattr(plan, kind):
            makers[kind] = _source_changer(pairs, rng, change)
    if plan.concat:
        makers["concat"] = lambda: _concat(pairs, rng)
    for kind, make in makers.items():
        wanted = round(getattr(plan, kind) * n)
        made = [pair for pair in (make() for _ in range(wanted)) if pair is not None]
        counts[kind] = len(made)
        added += made
    sources = text.sources + [s for s, _ in added]
    targets = text.targets + [t for _, t in added]
    return ParallelText(sources, targets, text.origin), counts


# --- source-side changes ------------------------------------------------------------------------


def title_case(text: str) -> str:
    """Every word's first letter in upper case ("don't" stays one word: "Don't")."""
    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))


def casual(text: str) -> str:
    """Lowercase, accents and ¿ ¡ removed, no final punctuation: "¿Dónde está?" -> "donde esta"."""
    plain = unicodedata.normalize("NFD", text.lower())
    plain = "".join(c for c in plain if unicodedata.category(c) != "Mn")
    plain = unicodedata.normalize("NFC", plain).replace("¿", "").replace("¡", "")
    return re.sub(r"[\s.!?…]+$", "", plain).strip()


def _source_changer(pairs, rng: random.Random, change: Callable[[str], str]):
    def make() -> tuple[str, str] | None:
        s, t = pairs[rng.randrange(len(pairs))]
        changed = change(s)
        return (changed, t) if changed and changed != s else None

    return make


def _concat(pairs, rng: random.Random) -> tuple[str, str]:
    chosen = [pairs[rng.randrange(len(pairs))] for _ in range(rng.randint(2, 4))]
    return " ".join(s for s, _ in chosen), " ".join(t for _, t in chosen)


# --- names ----------------------------------------------------------------------------------------


def proper_nouns(texts: list[str], *, min_count: int = 3, lower_share: float = 0.05) -> set[str]:
    """Capitalised words seen at least ``min_count`` times inside sentences (not first) whose
    lower-case form is rarer than ``lower_share`` of that: "Tom", "Boston", not "The"."""
    inside, lower = Counter(), Counter()
    for text in texts:
        for k, word in enumerate(re.findall(r"\w+", text)):
            if word.islower():
                lower[word] += 1
            elif k and word[0].isupper() and (len(word) == 1 or word[1:].islower()):
                inside[word] += 1
    return {w for w, c in inside.items() if c >= min_count and lower[w.lower()] < lower_share * c}


class _NameSwapper:
    """Pairs with a proper noun written the same on both sides; each call rewrites one of them
    with a name (first, or first and last) or a city drawn from a random locale."""

    def __init__(self, pairs, rng: random.Random):
        nouns = proper_nouns([s for s, _ in pairs] + [t for _, t in pairs])
        self.pairs, self.rng = pairs, rng
        self.candidates = []
        for index, (s, t) in enumerate(pairs):
            shared = sorted(set(re.findall(r"\w+", s)) & set(re.findall(r"\w+", t)) & nouns)
            shared = [w for w in shared if _count(w, s) == _count(w, t)]
            if shared:
                self.candidates.append((index, shared))
        self.pools = [pools for pools in map(_name_pools, LOCALES) if pools[0]]

    def make(self) -> tuple[str, str] | None:
        if not self.candidates:
            return None
        index, shared = self.candidates[self.rng.randrange(len(self.candidates))]
        s, t = self.pairs[index]
        for word in shared:
            name = self._draw_name()
            pattern = re.compile(rf"\b{re.escape(word)}\b")
            s, t = pattern.sub(name, s), pattern.sub(name, t)
        return s, t

    def _draw_name(self) -> str:
        firsts, lasts, cities = self.pools[self.rng.randrange(len(self.pools))]
        kind = self.rng.random()
        if kind < 0.15 and cities:
            return self.rng.choice(cities)
        first = self.rng.choice(firsts)
        if kind < 0.6 or not lasts:
            return first
        return f"{first} {self.rng.choice(lasts)}"


def _name_pools(locale: str) -> tuple[list[str], list[str], list[str]]:
    """A Faker locale's first names, last names and cities (its providers' own lists, sorted:
    some are built from sets, whose order changes between processes), Latin script only."""
    from faker import Faker  # only for runs that augment names

    first, last = _ROMANISED.get(locale, ("first_names", "last_names"))
    found: dict[str, list[str]] = {}
    for provider in Faker(locale).factories[0].providers:
        for key, attribute in (("first", first), ("last", last), ("city", "cities")):
            if key not in found and hasattr(provider, attribute):
                names = {" ".join(str(n).split()) for n in getattr(provider, attribute)}
                found[key] = sorted(n for n in names if n and _latin(n))
    return found.get("first", []), found.get("last", []), found.get("city", [])


def _count(word: str, text: str) -> int:
    return len(re.findall(rf"\b{re.escape(word)}\b", text))


def _latin(text: str) -> bool:
    return all(c in " -'." or (c.isalpha() and "LATIN" in unicodedata.name(c, "")) for c in text)


# --- numbers -----------------------------------------------------------------------------------


class _NumberSwapper:
    """Pairs with a number on both sides (digits, or the same number in words); each call puts
    another number in its place on both sides."""

    def __init__(self, pairs, rng: random.Random, src: str, tgt: str):
        from num2words import num2words  # only for runs that augment numbers

        self.pairs, self.rng, self.src, self.tgt = pairs, rng, src, tgt
        words = {}
        for number in range(2, 101):  # not 1: "one", "un", "una" are also words of other kinds
            try:
                words[number] = (num2words(number, lang=src), num2words(number, lang=tgt))
            except NotImplementedError:
                break
        self.candidates = []
        for index, (s, t) in enumerate(pairs):
            spans = self._shared_numbers(s, t, words)
            if spans:
                self.candidates.append((index, spans))

    def _shared_numbers(self, s: str, t: str, words) -> list[tuple[str, str]]:
        """(source text, target text) of numbers found once on each side."""
        found = []
        for number in sorted(set(_NUMBER.findall(s))):
            there = _in_target_language(number, self.src, self.tgt)
            if _NUMBER.findall(s).count(number) == 1 and _NUMBER.findall(t).count(there) == 1:
                found.append((number, there))
        for a, b in words.values():
            if _count(a, s.lower()) == 1 and _count(b, t.lower()) == 1:
                found.append((a, b))
        return found

    def make(self) -> tuple[str, str] | None:
        if not self.candidates:
            return None
        index, spans = self.candidates[self.rng.randrange(len(self.candidates))]
        s, t = self.pairs[index]
        old_s, old_t = spans[self.rng.randrange(len(spans))]
        new_s, new_t = self._draw_number(time=":" in old_s)
        s = _replace_word(s, old_s, new_s)
        t = _replace_word(t, old_t, new_t)
        return s, t

    def _draw_number(self, *, time: bool) -> tuple[str, str]:
        r = self.rng
        if time:
            text = f"{r.randint(1, 12)}:{r.randrange(60):02d}"
            return text, text
        kind = r.random()
        if kind < 0.65:  # 1 to 4 digits, each length about as likely
            digits = r.randint(1, 4)
            text = str(r.randint(10 ** (digits - 1) if digits > 1 else 0, 10**digits - 1))
            return text, text
        if kind < 0.8:
            text = str(r.randint(1900, 2035))
            return text, text
        whole, cents = r.randint(0, 999), r.randrange(100)
        return (
            f"{whole}{DECIMAL_SEPARATOR.get(self.src, '.')}{cents:02d}",
            f"{whole}{DECIMAL_SEPARATOR.get(self.tgt, '.')}{cents:02d}",
        )


def _in_target_language(number: str, src: str, tgt: str) -> str:
    """A decimal's separator as the target language writes it ("7,50" -> "7.50" for English)."""
    a, b = DECIMAL_SEPARATOR.get(src, "."), DECIMAL_SEPARATOR.get(tgt, ".")
    if a != b and re.fullmatch(rf"\d+{re.escape(a)}\d{{1,2}}", number):
        return number.replace(a, b)
    return number


def _replace_word(text: str, old: str, new: str) -> str:
    """``old`` (a number, or a number's words in any case) -> ``new``, once, as a whole word."""
    pattern = re.compile(rf"(?<![\w.,:]){re.escape(old)}(?![\w]|[.,:]\d)", re.IGNORECASE)
    return pattern.sub(new, text, count=1)
