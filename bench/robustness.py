"""Real input: how well the bundled models translate names, numbers, capitals, casual typing,
paragraphs and long sentences, measured on variants of the same dev sentences (issue 29, part 1).

    python bench/robustness.py                        # both bundled models, 300 sentences each
    python bench/robustness.py --sentences 0 --json bench/results/robustness.json --examples
    python bench/robustness.py --model DIR --data dev.tsv --src de --tgt en

Only the dev split is read (the model's config.json names it; ``--data`` for another), each
source once with its first reference. One seeded sample of ``--sentences`` dev sentences (0: all)
is the clean input and, transformed, caps, title and casual; names and numbers sample as many of
the pairs that have a slot (there may be fewer); paragraphs and long sentences are drawn until
they hold that many dev sentences. Every input goes through ``Translator.translate(beam_size=4)``
as a user calls it, so whatever the Translator learns to do (segmenting, casing) is measured too.

Variants (source and reference change together unless said):
- names: a span of capitalised words that is identical on both sides and never lowercase in the
  dev data, not only ever sentence-initial (Tatoeba's "Tom", "Mary", "Boston", "San Diego"), is
  replaced on both sides by an unseen name: a first name, a full name or, for a span that follows
  a place word (PLACE_CUES: "in", "to", "from", "en" ...) in at least a quarter of its uses on
  either side, a city. One name per pair (the first). Names come from Faker's locale-aware providers
  for many languages (LOCALES; Japanese and Chinese romanised), Latin script only, seeded with
  20261205 (``--seed``; the training augmentation seeds Faker with the run's seed), and none holds
  a word of the model's training text (when config.json names a readable one). French elision
  follows the new name ("de Tom" -> "d'Ana").
- numbers: a slot is a number that reads the same on both sides (digits, with each language's
  separators) or a number word 2-12 in both languages (English, Spanish, French). Each slot gets
  new numbers of the kinds that fit it, one item each: a quantity a 1-4 digit integer and a
  decimal ("7,50" in Spanish or French, "7.50" in English), a year a year, a clock time ("a las
  nueve", "at nine o'clock", "8:45") a time ("8:45"; a French output may also write "8h45").
  Number words thus become digits: Tatoeba's dev sets hold only about a dozen digit numbers.
- caps / title: the source in ALL CAPS / with every word capitalised.
- casual: the source lowercased, accents removed (tilde and cedilla kept: ñ and ç have keys of
  their own), final punctuation and Spanish ¿ ¡ dropped.
- paragraphs: 2-6 consecutive dev sentences on one line; the reference is theirs joined by spaces.
- long: statements (ending in ".") drawn at random and joined as one sentence of 40-80 source
  words: ", " between them, " and " / " y " / " et " before the last, later parts lowercased
  unless they start with a name; the reference is joined the same way.
- numbers 2-3: two or three items of the numbers variant, from distinct dev pairs, joined as one
  sentence the way long sentences are (source and reference); every one of the numbers must come
  back. Drawn after every other variant, so adding it left their items as they were.
- names read: as names, but people's names (first and full, no cities: the training text
  translates many of those, "London" -> "Londres") every word of which the training text has,
  capitalised ("Pedro", "Lucía", "Grace"): what a user writes as often as an unseen name. A name
  the model writes another way ("Juan" -> "John", as Tatoeba does) is not copied.
- women: the dev pairs with Tatoeba's woman, "Mary", on both sides, given another woman's first
  name from Faker's lists of every locale (read in training or not, "Alice", "Carmen", "Yetunde"):
  the words that agree with her must stay feminine ("Mary est fatiguée." -> "Alice est
  fatiguée.", "Mary lost her book." -> "Carmen lost her book."), which the BLEU ratio shows. Up to
  three items a pair (both bundled dev sets have a few dozen such pairs). "women": names the
  training text lacks; "women read": names it has ("Alice", "Helen"), which a model reads as
  names, and may read as a man's. Drawn last.
- british: the dev pairs whose English source has a word that British English spells otherwise
  (breame's tables: "favorite" -> "favourite", "apologize" -> "apologise"), the source so
  respelt, each such pair once (41 of en -> fr's 2,365; the first ``--sentences`` of them); none
  for a source in another language. Drawn without the shared random draws.

Figures: case-insensitive corpus BLEU (sacrebleu, lowercase) of each variant and the clean input's
on the same sentences: each sentence translated alone, for paragraphs and long sentences the
translations joined as the references are; the table gives the ratio. Names and numbers: the share
of items whose substituted name or number appears in the translation exactly (word-bounded, as
often as in the reference; numbers with the target language's decimal separator).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
import unicodedata
import zlib
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEED = 20261205
STATEMENT = re.compile(r"[^?!;:\"«»]+\.")  # one statement, no quotes
BUNDLED = ("es-en", "en-fr")
LOCALES = (  # Faker locales of many languages; only Latin-script outputs are kept
    "es_ES", "es_MX", "en_US", "en_GB", "fr_FR", "de_DE", "it_IT", "pt_BR", "pl_PL", "tr_TR",
    "nl_NL", "vi_VN", "ja_JP", "zh_CN", "tw_GH", "en_NG", "yo_NG", "ig_NG", "ha_NG", "en_KE",
    "sw", "zu_ZA", "id_ID", "en_IN", "fi_FI", "cs_CZ", "hu_HU", "ro_RO", "sv_SE",
)  # fmt: skip
DECIMAL_SEPARATOR = {"en": ".", "es": ",", "fr": ",", "de": ",", "it": ",", "pt": ","}
AND = {"en": "and", "es": "y", "fr": "et"}
PLACE_CUES = {  # a name after one of these words at least a quarter of the time is a place
    "en": {"in", "to", "from", "visit", "visited"},
    "es": {"en", "desde"},
    "fr": {"en", "depuis"},
}
NUMBER_WORDS = {  # 2-12; "one" is left out (un, une, uno, una are also articles)
    "en": "two three four five six seven eight nine ten eleven twelve",
    "es": "dos tres cuatro cinco seis siete ocho nueve diez once doce",
    "fr": "deux trois quatre cinq six sept huit neuf dix onze douze",
}
WORD = re.compile(r"\w+(?:[-']\w+)*")
NAME_SPAN = re.compile(r"[A-Z]\w*(?: [A-Z]\w*)*")  # runs of capitalised words
DIGITS = re.compile(r"(?<![\w.,:])(\d{1,2}:\d\d|\d+(?:[.,]\d+)*)(?!\w|[.,:]\d)")
CLOCK_AFTER = re.compile(r"\s*(?:o'clock|h)\b")  # "nine o'clock", "23 h"
CLOCK_BEFORE = re.compile(r"\b(?:(?:a|hasta|desde|para) las|à)\s*$", re.I)  # "a las nueve"
HOURS_AFTER = re.compile(r"\s*heures?\b")  # "à neuf heures" (not "pendant trois heures")
PART_OF_HOUR = re.compile(r"\b(?:cuarto|media|quarter|half|quart|demie)\b", re.I)
FINAL_PUNCTUATION = re.compile(r"[\s.!?…]+$")
ELISION = {"de": "d'", "que": "qu'"}  # French, before a vowel
WOMAN = "Mary"  # Tatoeba's woman, written so on both sides of the dev pairs


@dataclass(frozen=True)
class Pair:
    src: str
    tgt: str


@dataclass
class Item:
    """One input of a variant. ``parts``: the dev pairs it is made of, whose clean translations,
    joined as ``ref`` is, give the clean figure against ``clean_ref``. ``expect``: for names and
    numbers, each accepted spelling of what must be copied and how often it appears in ``ref``."""

    src: str
    ref: str
    parts: list[int]
    clean_ref: str
    expect: list[str] = field(default_factory=list)
    count: int = 0
    kind: str = ""
    each: list[list[str]] = field(default_factory=list)  # several numbers: every one must come


# --- data ------------------------------------------------------------------------------------


def read_pairs(tsv: Path, columns: list[str], src: str, tgt: str) -> list[Pair]:
    """The dev pairs in file order, each source once (with its first reference)."""
    pairs, seen = [], set()
    for line in tsv.read_text(encoding="utf-8").splitlines():
        fields = dict(zip(columns, line.split("\t"), strict=False))
        if fields.get(src, "").strip() and fields.get(tgt, "").strip() and fields[src] not in seen:
            seen.add(fields[src])
            pairs.append(Pair(fields[src].strip(), fields[tgt].strip()))
    return pairs


def sample(n_items: int, n: int, rng: random.Random) -> list[int]:
    return sorted(rng.sample(range(n_items), n)) if 0 < n < n_items else list(range(n_items))


# --- names -----------------------------------------------------------------------------------


def is_latin_name(name: str) -> bool:
    letters = [c for c in name if c.isalpha()]
    return (
        bool(letters) and name[0].isupper() and set(name) - {" ", "-", "'"} == set(letters)
        and all("LATIN" in unicodedata.name(c, "") for c in letters)
    )  # fmt: skip


def draw_name(fake, kind: str) -> str | None:
    """A first name, a first and last name (no titles such as "Dr"), or a city; Japanese and
    Chinese names romanised (their cities have no romanisation: None)."""
    if hasattr(fake, "first_romanized_name"):
        romanised = {"first": fake.first_romanized_name, "full": fake.romanized_name}
        return romanised[kind]() if kind in romanised else None
    if kind == "full":
        return f"{fake.first_name()} {fake.last_name()}"
    if kind == "first":
        return fake.first_name()
    listed = [p.cities for p in fake.get_providers() if isinstance(getattr(p, "cities", 0), list)]
    # sorted: Faker 40's it_IT cities are a list made from a set, ordered by PYTHONHASHSEED
    return fake.random_element(sorted(listed[0])) if listed else fake.city()


def name_pool(
    seed: int, unseen_in: set[str], per_locale: int = 60, *, read: bool = False
) -> dict[str, list[str]]:
    """First names, full names and cities drawn from every locale with a seed of its own; Latin
    script only, none with a word from ``unseen_in``; with ``read``, people's names only, every
    word of them in ``unseen_in`` (the training text's)."""
    from faker import Faker

    pool: dict[str, list[str]] = {"first": [], "full": [], "city": []}
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed ^ zlib.crc32(locale.encode()))
        for kind in ("first", "full") if read else pool:
            for _ in range(per_locale * (10 if read else 1)):  # few are read: draw more
                name = draw_name(fake, kind)
                words = WORD.findall(name or "")
                unseen = name and not any(w in unseen_in for w in words)
                wanted = name and all(w in unseen_in for w in words) if read else unseen
                if wanted and is_latin_name(name) and name not in pool[kind]:
                    pool[kind].append(name)
    return pool


def name_candidates(pairs: list[Pair], src: str, tgt: str) -> tuple[set[str], set[str]]:
    """Spans of capitalised words that look like names in these pairs (identical on both sides,
    never lowercase anywhere, somewhere not sentence-initial), and which of them are places."""
    lowercase, spans, inner = set(), set(), set()
    for pair in pairs:
        for text in (pair.src, pair.tgt):
            lowercase |= {w.lower() for w in WORD.findall(text) if not w[0].isupper()}
    for pair in pairs:
        for m in NAME_SPAN.finditer(pair.src):
            start, span = m.start(), m.group()
            if not WORD.search(pair.src[:start]) and " " in span:  # "Ask Tom": try "Tom"
                start, span = start + span.index(" ") + 1, span.split(" ", 1)[1]
            if re.search(rf"(?<!\w){re.escape(span)}(?!\w)", pair.tgt):
                spans.add(span)
                if WORD.search(pair.src[:start]):
                    inner.add(span)
    names = {
        s for s in spans & inner
        if all(len(w) > 1 and w[1:].islower() and w.lower() not in lowercase for w in s.split())
    }  # fmt: skip
    uses = dict.fromkeys(names, 0)
    cued = dict.fromkeys(names, 0)
    for pair in pairs:
        for text, lang in ((pair.src, src), (pair.tgt, tgt)):
            for name in names:
                for m in re.finditer(rf"(?<!\w){re.escape(name)}(?!\w)", text):
                    before = WORD.findall(text[: m.start()])
                    uses[name] += 1
                    cued[name] += bool(before) and before[-1].lower() in PLACE_CUES.get(lang, ())
    return names, {name for name in names if cued[name] >= 0.25 * uses[name]}


def replace_name(text: str, old: str, new: str, lang: str) -> str:
    """Every word-bounded ``old`` in ``text`` replaced by ``new`` (French elision follows)."""
    out = re.sub(rf"(?<!\w){re.escape(old)}(?!\w)", new, text)
    if lang == "fr":
        vowel = new[0] in "AEIOUYÀÂÉÈÊÎÔÛH"
        for full, short in ELISION.items():
            if vowel:
                out = re.sub(rf"\b({full}) {re.escape(new)}\b", rf"{short}{new}", out, flags=re.I)
            else:
                out = re.sub(rf"\b{short[:-1]}'{re.escape(new)}\b", f"{full} {new}", out)
    return out


def name_items(pairs, src, tgt, rng, n, pool, names, places) -> list[Item]:
    slots = []  # (pair index, span)
    for i, pair in enumerate(pairs):
        found = {
            m.start(): s
            for s in names
            for m in re.finditer(rf"(?<!\w){re.escape(s)}(?!\w)", pair.src)
        }
        found = {
            at: s for at, s in found.items() if not any(s != o and s in o for o in found.values())
        }
        slots += [(i, found[min(found)])] if found else []  # the first name (the longest span)
    if not pool["city"]:  # people's names only: no places to put them in
        slots = [(i, span) for i, span in slots if span not in places]
    items = []
    for i, span in [slots[k] for k in sample(len(slots), n, rng)]:
        kind = "city" if span in places else rng.choice(["first", "first", "full"])
        new = rng.choice(pool[kind])
        ref = replace_name(pairs[i].tgt, span, new, tgt)
        count = len(re.findall(rf"(?<!\w){re.escape(new)}(?!\w)", ref))
        src_text = replace_name(pairs[i].src, span, new, src)
        items.append(Item(src_text, ref, [i], pairs[i].tgt, [new], count, kind))
    return items


def women_pool(seed: int, seen: set[str], per_locale: int = 20, *, read: bool = False) -> list[str]:
    """Women's first names from every locale (Latin script, "Mary" aside), a seed per locale:
    those the training text has (``seen``) with ``read``, else those it has not."""
    from faker import Faker

    pool = []
    for locale in LOCALES:
        fake = Faker(locale)
        fake.seed_instance(seed ^ zlib.crc32(f"women {locale}".encode()))
        for _ in range(per_locale * (10 if read else 1)):  # few are read: draw more
            name = fake.first_name_female()
            wanted = is_latin_name(name) and " " not in name and name != WOMAN
            if wanted and (name in seen) == read and name not in pool:
                pool.append(name)
    return pool


def women_items(pairs, src, tgt, rng, n, pool) -> list[Item]:
    """Tatoeba's woman ("Mary", on both sides) given another woman's first name: the words that
    agree with her must stay feminine ("Mary est fatiguée" -> "Alice est fatiguée")."""
    mary = re.compile(rf"(?<!\w){WOMAN}(?!\w)")
    slots = [i for i, pair in enumerate(pairs) if mary.search(pair.src) and mary.search(pair.tgt)]
    items = []
    if not pool:  # no such names (a small dev set, or none read)
        return items
    for _ in range(min(n or 3 * len(slots), 3 * len(slots))):
        i, new = rng.choice(slots), rng.choice(pool)
        ref = replace_name(pairs[i].tgt, WOMAN, new, tgt)
        count = len(re.findall(rf"(?<!\w){re.escape(new)}(?!\w)", ref))
        src_text = replace_name(pairs[i].src, WOMAN, new, src)
        items.append(Item(src_text, ref, [i], pairs[i].tgt, [new], count, "woman"))
    return items


# --- numbers ---------------------------------------------------------------------------------


def number_value(token: str, lang: str) -> float | tuple[int, int] | None:
    """What a digit token says in ``lang``: a number, an (hour, minute) time, or None."""
    if ":" in token:
        hour, minute = token.split(":")
        return (int(hour), int(minute))
    decimal = DECIMAL_SEPARATOR.get(lang, ".")
    thousands = "," if decimal == "." else "."
    whole, _, fraction = token.replace(thousands, "").partition(decimal)
    if decimal in fraction or not whole:
        return None
    return float(f"{whole}.{fraction}" if fraction else whole)


def format_number(kind: str, value, lang: str, role: str = "target") -> list[str]:
    """The spellings of ``value`` written in ``lang``: the first is the source's, all of them are
    accepted in a translation. ``value``: int, (whole, fraction digits) or (hour, minute)."""
    if kind == "time":
        hour, minute = value
        spellings = [f"{hour}:{minute:02d}"]
        if lang == "fr" and role == "target":
            spellings += [f"{hour}h{minute:02d}", f"{hour} h {minute:02d}"]
        return spellings
    if kind == "decimal":
        whole, fraction = value
        return [f"{whole}{DECIMAL_SEPARATOR.get(lang, '.')}{fraction}"]
    return [str(value)]


def draw_number(kind: str, rng: random.Random):
    if kind == "time":
        return (rng.randint(0, 23), rng.randrange(0, 60))
    if kind == "decimal":
        return (
            rng.randint(0, 999),
            rng.choice([f"{rng.randint(1, 9)}", f"{rng.randint(1, 99):02d}"]),
        )
    if kind == "year":
        return rng.randint(1500, 2099)
    digits = rng.randint(1, 4)
    return rng.randint(max(2, 10 ** (digits - 1)), 10**digits - 1)


def number_slots(pair: Pair, src: str, tgt: str) -> list[tuple[tuple[int, int], ...]]:
    """Where one number reads the same on both sides: (source span, target span, kind). A number
    on a clock ("a las nueve", "at nine o'clock", "à neuf heures", not "in two hours") is a
    time, its clock word in its span."""
    found: list[dict] = [{}, {}]  # per side: value -> [(span, digits or None, on a clock)]
    for side, (text, lang) in enumerate([(pair.src, src), (pair.tgt, tgt)]):
        words = NUMBER_WORDS.get(lang, "").split()
        numbers = [(m, number_value(m.group(), lang)) for m in DIGITS.finditer(text)]
        numbers += [(m, words.index(m[0].lower()) + 2) for m in WORD.finditer(text)
                    if m[0].lower() in words]  # fmt: skip
        for m, value in numbers:
            before = CLOCK_BEFORE.search(text[: m.start()])
            after = CLOCK_AFTER.match(text, m.end()) or (
                before and HOURS_AFTER.match(text, m.end())
            )
            on_clock = bool(before and before[0].strip() != "à" or after)
            end = after.end() if after else m.end()
            digits = m[0] if m[0][0].isdigit() else None
            found[side].setdefault(value, []).append(((m.start(), end), digits, on_clock))
    slots = []
    for value, here in found[0].items():
        there = found[1].get(value, [])
        if value is None or len(here) != 1 or len(there) != 1:
            continue
        (span, digits, on_clock), (target_span, _, clock_there) = here[0], there[0]
        if isinstance(value, tuple) or on_clock or clock_there:
            if PART_OF_HOUR.search(pair.src + " " + pair.tgt):
                continue  # "a las tres y cuarto": no room for minutes
            kind = "time"
        elif digits and re.fullmatch(r"1\d{3}|20\d\d", digits):
            kind = "year"
        else:
            kind = "quantity"
        slots.append((span, target_span, kind))
    return slots


def number_items(pairs, src, tgt, rng, n) -> list[Item]:
    kinds = {"quantity": ["integer", "decimal"], "year": ["year"], "time": ["time"]}
    slots = []  # (pair index, source span, target span, kind of number to put there)
    for i, pair in enumerate(pairs):
        for s_span, t_span, slot in number_slots(pair, src, tgt)[:1]:
            slots += [(i, s_span, t_span, kind) for kind in kinds[slot]]
    items = []
    for i, (s0, s1), (t0, t1), kind in [slots[k] for k in sample(len(slots), n, rng)]:
        value = draw_number(kind, rng)
        source = format_number(kind, value, src, "source")[0]
        target = format_number(kind, value, tgt)
        p = pairs[i]
        ref = p.tgt[:t0] + target[0] + p.tgt[t1:]
        item_src = p.src[:s0] + source + p.src[s1:]
        items.append(Item(item_src, ref, [i], p.tgt, target, 1, kind))
    return items


def several_number_items(pairs, src, tgt, rng, n, names) -> list[Item]:
    """Sentences of 2-3 numbers: as many one-number items (``number_items``, of distinct dev
    pairs that are statements) joined into one sentence as ``long_items`` joins them
    (``join_long``); every number must come back."""
    singles = [it for it in number_items(pairs, src, tgt, rng, 3 * n)
               if is_statement(pairs[it.parts[0]])]  # fmt: skip
    items, k = [], 0
    while len(items) < n and k < len(singles):
        group, seen = [], set()
        for it in singles[k : k + rng.randint(2, 3)]:
            if it.parts[0] not in seen:
                group.append(it)
                seen.add(it.parts[0])
        k += len(group) or 1
        if len(group) < 2:
            continue
        ref = join_long([it.ref for it in group], tgt, names)
        clean = join_long([pairs[it.parts[0]].tgt for it in group], tgt, names)
        items.append(Item(
            join_long([it.src for it in group], src, names), ref, [it.parts[0] for it in group],
            clean, kind="+".join(it.kind for it in group), each=[it.expect for it in group],
        ))  # fmt: skip
    return items


def copies(hypothesis: str, item: Item) -> bool:
    """Whether the translation holds what the item expects, as often as the reference does
    (with several numbers: each of them)."""
    if item.each:
        return all(copies(hypothesis, Item("", "", [], "", each, 1)) for each in item.each)
    if item.kind in ("first", "full", "city"):
        found = sum(
            len(re.findall(rf"(?<!\w){re.escape(e)}(?!\w)", hypothesis)) for e in item.expect
        )
    else:  # a number must not be part of a longer one ("70,50" does not hold "0,50")
        found = sum(
            len(re.findall(rf"(?<![\w.,:]){re.escape(e)}(?!\w|[.,:]\d)", hypothesis))
            for e in item.expect
        )
    return found >= max(item.count, 1)


# --- casing, casual typing, paragraphs, long sentences ---------------------------------------


def title_case(text: str) -> str:
    return re.sub(r"(^|\s)([^\w\s]*)(\w)", lambda m: m[1] + m[2] + m[3].upper(), text)


def casual(text: str) -> str:
    """Lowercase, no accents (ñ and ç kept), no final punctuation, no ¿ ¡."""
    kept = {"\u0303", "\u0327"}  # combining tilde, cedilla
    decomposed = unicodedata.normalize("NFD", text.lower().replace("¿", "").replace("¡", ""))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c) or c in kept)
    return FINAL_PUNCTUATION.sub("", unicodedata.normalize("NFC", plain)).strip()


def join_long(parts: list[str], lang: str, names: set[str]) -> str:
    """Sentences joined as one: ", " between them, the language's "and" before the last."""
    pieces = []
    for k, text in enumerate(parts):
        text = FINAL_PUNCTUATION.sub("", text.strip())
        first = re.match(r"\w*", text).group()
        if k and first not in names and first != "I":
            text = text[:1].lower() + text[1:]
        pieces.append(text)
    if len(pieces) == 1:
        return pieces[0] + "."
    conjunction = AND.get(lang)
    if conjunction is None:
        return ", ".join(pieces) + "."
    if lang == "es" and re.match(r"h?i(?!e)", pieces[-1], re.I):
        conjunction = "e"  # "y" becomes "e" before an i sound
    return f"{', '.join(pieces[:-1])} {conjunction} {pieces[-1]}."


def british(text: str) -> str:
    """``text`` with each word that British English spells otherwise so spelt, in its case."""
    from breame.data.spelling_constants import AMERICAN_ENGLISH_SPELLINGS

    def respelt(match: re.Match) -> str:
        word = match.group()
        other = AMERICAN_ENGLISH_SPELLINGS.get(word.lower())
        if other is None:
            return word
        return other[0].upper() + other[1:] if word[0].isupper() else other

    return re.sub(r"[A-Za-z]+", respelt, text)


def british_items(pairs, src, n) -> list[Item]:
    if src != "en":
        return []
    items = [Item(british(p.src), p.tgt, [i], p.tgt) for i, p in enumerate(pairs)]
    items = [it for it, p in zip(items, pairs, strict=True) if it.src != p.src]
    return items[:n] if n > 0 else items


def paragraph_items(pairs, rng, n) -> list[Item]:
    items, covered, target = [], 0, n if n > 0 else len(pairs)
    while covered < target:
        k = rng.randint(2, 6)
        start = rng.randrange(0, len(pairs) - k + 1)
        parts = list(range(start, start + k))
        ref = " ".join(pairs[i].tgt for i in parts)
        items.append(Item(" ".join(pairs[i].src for i in parts), ref, parts, ref))
        covered += k
    return items


def is_statement(pair: Pair) -> bool:
    """One statement on both sides, no quotes: what joins into one sentence."""
    return bool(STATEMENT.fullmatch(pair.src) and STATEMENT.fullmatch(pair.tgt))


def long_items(pairs, src, tgt, rng, n, names) -> list[Item]:
    statements = [i for i, p in enumerate(pairs) if is_statement(p)]
    items, covered, target = [], 0, n if n > 0 else len(pairs)
    while covered < target:
        parts, words, tries = [], 0, 0
        while words < 40 and tries < 100:
            i, tries = rng.choice(statements), tries + 1
            length = len(pairs[i].src.split())
            if i not in parts and words + length <= 80:
                parts, words = parts + [i], words + length
        ref = join_long([pairs[i].tgt for i in parts], tgt, names)
        items.append(Item(join_long([pairs[i].src for i in parts], src, names), ref, parts, ref))
        covered += len(parts)
    return items


def make_variants(
    pairs: list[Pair],
    src: str,
    tgt: str,
    n: int,
    seed: int,
    pool,
    names,
    places,
    read_pool,
    seen: set[str] = frozenset(),
):
    """Every variant's items (variant -> list of Item); the same for the same arguments."""
    rng = random.Random(seed)
    base = [Item(pairs[i].src, pairs[i].tgt, [i], pairs[i].tgt) for i in sample(len(pairs), n, rng)]
    return {
        "clean": base,
        "names": name_items(pairs, src, tgt, rng, n, pool, names, places),
        "numbers": number_items(pairs, src, tgt, rng, n),
        "caps": [Item(it.src.upper(), it.ref, it.parts, it.ref) for it in base],
        "title": [Item(title_case(it.src), it.ref, it.parts, it.ref) for it in base],
        "casual": [Item(casual(it.src), it.ref, it.parts, it.ref) for it in base],
        "paragraphs": paragraph_items(pairs, rng, n),
        "long": long_items(pairs, src, tgt, rng, n, names),
        "numbers 2-3": several_number_items(pairs, src, tgt, rng, n, names),  # then: as before
        "names read": name_items(pairs, src, tgt, rng, n, read_pool, names, places),
        "women": women_items(pairs, src, tgt, rng, n, women_pool(seed, seen)),  # drawn last
        "women read": women_items(pairs, src, tgt, rng, n, women_pool(seed, seen, read=True)),
        "british": british_items(pairs, src, n),  # no random draw
    }


# --- measuring -------------------------------------------------------------------------------


def bleu(hypotheses: list[str], references: list[str]) -> float:
    import sacrebleu

    return sacrebleu.corpus_bleu(hypotheses, [references], lowercase=True).score


def score_variant(name: str, items: list[Item], hyp: dict, pairs, tgt, names) -> dict:
    """BLEU of the variant and of the clean input on the same sentences; copies of names and
    numbers; a few examples and every failed copy."""
    hypotheses = [hyp[it.src] for it in items]
    clean = [[hyp[pairs[i].src] for i in it.parts] for it in items]
    if name in ("long", "numbers 2-3"):
        clean_joined = [join_long(c, tgt, names) for c in clean]
    else:
        clean_joined = [" ".join(c) for c in clean]
    result = {"items": len(items)}
    if not items:
        return result
    result["bleu"] = bleu(hypotheses, [it.ref for it in items])
    result["clean_bleu"] = bleu(clean_joined, [it.clean_ref for it in items])
    result["ratio"] = result["bleu"] / result["clean_bleu"] if result["clean_bleu"] else None
    show = lambda it, h: {"src": it.src, "ref": it.ref, "hyp": h, "expect": it.expect}  # noqa: E731
    if name in ("names", "numbers", "numbers 2-3", "names read", "women", "women read"):
        copied = [copies(h, it) for it, h in zip(items, hypotheses, strict=True)]
        result["copied"] = sum(copied) / len(items)
        by_kind = {}
        for it, ok in zip(items, copied, strict=True):
            by_kind.setdefault(it.kind, []).append(ok)
        result["copied_by_kind"] = {
            k: {"items": len(v), "copied": sum(v) / len(v)} for k, v in by_kind.items()
        }
        result["failures"] = [
            show(it, h) for it, h, ok in zip(items, hypotheses, copied, strict=True) if not ok
        ]
    result["examples"] = [
        show(it, h) | {"clean_hyp": c}
        for it, h, c in list(zip(items, hypotheses, clean_joined, strict=True))[:5]
    ]
    return result


def model_data(model: Path, data: Path | None, src: str | None, tgt: str | None):
    meta = json.loads((model / "config.json").read_text()).get("data", {})
    src, tgt = src or meta.get("src"), tgt or meta.get("tgt")
    if not (src and tgt):
        sys.exit(f"{model}/config.json names no data.src / data.tgt: give --src and --tgt")
    root = Path(meta.get("root") or REPO.parent / "shared" / "data")  # new models: no root
    if not root.is_dir():
        root = REPO.parent / "shared" / "data"
    columns = meta.get("columns") or [src, tgt]
    if data is None:
        if "dev" not in meta:
            sys.exit(f"{model}/config.json names no dev split: give --data TSV")
        data = root / meta["dev"]
    elif not {src, tgt} <= set(columns):
        columns = [src, tgt]  # another file: read as source<TAB>target
    named = meta.get("train") or []
    names = [named] if isinstance(named, str) else list(named)
    readable = [n for n in names if "{lang}" in n or (root / n).is_file()]
    train_columns = tuple(meta["columns"]) if meta.get("columns") else None
    return data, columns, src, tgt, TrainingText(root, readable, train_columns, src, tgt)


@dataclass
class TrainingText:
    """The model's training split as its config.json names it (the files this machine has)."""

    root: Path
    names: list[str]
    columns: tuple[str, str] | None
    src: str
    tgt: str

    def words(self) -> set[str]:
        if not self.names:
            return set()
        from heedful.data import read_split

        text = read_split(self.root, self.names, self.src, self.tgt, self.columns)
        return {w for line in text.sources + text.targets for w in WORD.findall(line)}


def run_model(model: Path, data, src, tgt, n: int, seed: int, beam_size: int = 4) -> dict:
    from heedful import Translator

    tsv, columns, src, tgt, train = model_data(model, data, src, tgt)
    pairs = read_pairs(tsv, columns, src, tgt)
    seen = train.words()
    pool = name_pool(seed, seen)
    read_pool = name_pool(seed, seen, read=True)
    names, places = name_candidates(pairs, src, tgt)
    variants = make_variants(pairs, src, tgt, n, seed, pool, names, places, read_pool, seen)
    sources = {it.src for items in variants.values() for it in items}
    sources |= {pairs[i].src for items in variants.values() for it in items for i in it.parts}
    sources = sorted(sources)
    started = time.perf_counter()
    hyp = dict(
        zip(sources, Translator.load(model).translate(sources, beam_size=beam_size), strict=True)
    )
    scores = {
        name: score_variant(name, items, hyp, pairs, tgt, names) for name, items in variants.items()
    }
    return {
        "model": str(model), "data": str(tsv), "src": src, "tgt": tgt, "seed": seed,
        "sentences": n, "beam_size": beam_size, "dev_pairs": len(pairs),
        "names_checked_unseen_in": " + ".join(train.names) or None,
        "name_pool": {k: len(v) for k, v in pool.items()},
        "read_name_pool": {k: len(v) for k, v in read_pool.items()}, "translated": len(sources),
        "translate_seconds": time.perf_counter() - started, "variants": scores,
    }  # fmt: skip


def table(results: list[dict]) -> str:
    columns = ["caps", "title", "casual", "paragraphs", "long", "women", "women read", "british"]
    pct = lambda x: "n/a" if x is None else f"{100 * x:.0f}%"  # noqa: E731
    lines = [
        "| model | names copied | numbers copied | 2-3 numbers copied | names read copied | "
        + " | ".join(columns)
        + " | clean BLEU |",
        "| --- " * (len(columns) + 6) + "|",
    ]
    for r in results:
        v = r["variants"]
        copied = ("names", "numbers", "numbers 2-3", "names read")
        cells = [pct(v[k].get("copied")) + f" ({v[k]['items']})" for k in copied if k in v]
        cells += [pct(v[k].get("ratio")) for k in columns]
        name = f"{r['src']} → {r['tgt']}"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {v['clean'].get('bleu', 0):.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, action="append", help="model directory (repeatable)")
    parser.add_argument("--data", type=Path, help="dev TSV (default: the model config's dev)")
    parser.add_argument("--src", help="source language (default: config.json data.src)")
    parser.add_argument("--tgt", help="target language (default: config.json data.tgt)")
    parser.add_argument("--sentences", type=int, default=300, help="per variant; 0: all")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write every figure, example and failed copy")
    parser.add_argument("--examples", action="store_true", help="print inputs and outputs")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    models = args.model or [REPO / "models" / name for name in BUNDLED]
    started, results = time.perf_counter(), []
    for model in models:
        results.append(run_model(model, args.data, args.src, args.tgt, args.sentences, args.seed))
        print(f"{model}: {results[-1]['translated']} inputs translated in "
              f"{results[-1]['translate_seconds']:.0f} s", file=sys.stderr)  # fmt: skip
        if args.examples:
            for name, v in results[-1]["variants"].items():
                for ex in (v.get("failures") or v.get("examples", []))[:3]:
                    print(f"[{name}] {ex['src']}\n  ref: {ex['ref']}\n  hyp: {ex['hyp']}")
    print(table(results))
    print(f"\n{time.perf_counter() - started:.0f} s, seed {args.seed}, "
          f"{args.sentences or 'all'} sentences per variant, beam 4")  # fmt: skip
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
