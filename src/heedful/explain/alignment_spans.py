"""A translation's word alignment as character spans of the texts the user sees.

The model aligns its own two texts: the source as it was given to the model (placeholders for
URLs, capitals lowered, unreadable words taken out) and its raw translation. Once a batch is
decoded, one teacher-forced pass over its (source, final translation) pairs gives the links by
the model's alignment method (``model_links``; ``heedful.explain.alignment_methods``; erasure
runs its own passes), so they hold under beam search too. Each link of two model words is then
carried through every edit between the model's texts and the user's (``heedful.textmap``,
``Edits``) to a ``WordLink`` (``user_links``): the source word's span in the text given, the
target word's in the translation returned (``heedful.translation_links`` ties this to
``heedful.real_input``).

A word is a run of the text without whitespace, as the model's pieces group into words
(``heedful.explain.words``); a link's span leaves out punctuation at either end of a word
("¿Dónde" -> "Dónde", "perro." -> "perro") unless the word is nothing else. Two kinds of links
do not come from the model: a placeholder links to itself, so a URL, e-mail address or number
links to the same span in the translation; and a word carried past the model (an emoji, a
placeholder the model dropped) links to where it was put back.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import product
from typing import NamedTuple

from torch import Tensor

from heedful.explain.align import Link, format_links
from heedful.explain.alignment_choice import align_ids
from heedful.explain.alignment_methods import AlignmentMethod, source_words, target_words
from heedful.protect import written_forms
from heedful.textmap import Span, TextMap, through
from heedful.tokenizer import normalize

Endpoint = tuple[int, Span]  # (stage, a span of that stage's text)
_WORD = re.compile(r"\S+")
_EDGE = set(".,;:!?¡¿…\"'。、，．！？；：")  # punctuation a link's span leaves out


class WordLink(NamedTuple):
    """A source word aligned to a target word: ``text[start:end]`` of each is the word."""

    source: Span  # in the source text
    target: Span  # in the translation
    source_word: str
    target_word: str

    def shifted(self, source: int, target: int) -> WordLink:
        """The same link with its spans moved by ``source`` and ``target`` characters."""
        return WordLink((self.source[0] + source, self.source[1] + source),
                        (self.target[0] + target, self.target[1] + target),
                        self.source_word, self.target_word)  # fmt: skip

    def record(self) -> dict:
        """As ``heedful translate --json`` writes it."""
        return {
            "source": list(self.source),
            "target": list(self.target),
            "source_word": self.source_word,
            "target_word": self.target_word,
        }


@dataclass
class Side:
    """One side of a sentence pair, from the model's text to the user's: the text at each
    stage (the model's first, the user's last) and the map from each stage to the next."""

    stages: list[str]
    maps: list[TextMap]

    def to_user(self, span: Span, stage: int = 0) -> Span:
        return through(self.maps[stage:], span)


@dataclass
class ModelPair:
    """One translation as the model aligns it: the ids it read and produced (both ending with
    end-of-sentence), its two texts, and the placeholders in them (linked to themselves only)."""

    src_ids: list[int]
    tgt_ids: list[int]
    source_text: str
    target_text: str
    placeholders: Sequence[str] = ()
    # each placeholder as the translation holds it, where it differs (a date's weekday, which
    # the model translates: heedful.dates); matched regardless of case
    translated: Sequence[str] = ()


class ModelLinks(NamedTuple):
    """A pair's links between the model's words, where those words are in the model's texts
    (None: not found), and which of them are placeholders (word index, placeholder). Tuples of
    numbers and strings only, which Python's garbage collector stops tracking: a batch's links
    wait for their translations to be finished without making every collection longer."""

    links: tuple[Link, ...]
    source: tuple[Span | None, ...]
    target: tuple[Span | None, ...]
    source_kept: tuple[tuple[int, str], ...]
    target_kept: tuple[tuple[int, str], ...]


@dataclass
class Edits:
    """How a pair's texts became the user's (each side from the model's text, stage 0), and
    the links made apart from the model: words carried past it, to where they were put back."""

    source: Side
    target: Side
    carried: list[tuple[Endpoint, Endpoint]] = field(default_factory=list)


def model_links(
    translator,
    pairs: Sequence[ModelPair],
    method: AlignmentMethod,
    memories: list[Tensor] | None = None,
    weights: list[Tensor | None] | None = None,
    seconds: list[Tensor | None] | None = None,
) -> list[ModelLinks]:
    """Each pair's links by a method resolved for the model (``align_ids``: one batched forced
    pass; ``memories``: each pair's encoder output [S, d_model] if decoding kept it;
    ``weights``: each pair's aligning weights [T, S] if decoding kept them, ``seconds`` its
    blended method's second reading's), its placeholders left out of the scores."""
    tokenizer = translator.tokenizer
    source_pieces = getattr(tokenizer, "source_pieces", tokenizer.pieces)
    pieces = [(source_pieces(p.src_ids), tokenizer.pieces(p.tgt_ids)) for p in pairs]
    words = []
    for pair, (src_pieces, tgt_pieces) in zip(pairs, pieces, strict=True):
        source = model_words(pair.source_text, src_pieces, source_words(src_pieces))
        target = model_words(pair.target_text, tgt_pieces, target_words(tgt_pieces))
        source_kept = _placeholders(pair.source_text, source, pair.placeholders)
        target_kept = _placeholders(pair.target_text, target, pair.placeholders, pair.translated)
        words.append((source, target, source_kept, target_kept))
    ids = [(p.src_ids, p.tgt_ids) for p in pairs]
    apart = [(source_kept, target_kept) for _, _, source_kept, target_kept in words]
    links = align_ids(translator, ids, method, memories, apart, pieces, weights, seconds)
    return [
        ModelLinks(tuple(found), tuple(source), tuple(target), tuple(source_kept.items()),
                   tuple(target_kept.items()))
        for found, (source, target, source_kept, target_kept) in zip(links, words, strict=True)
    ]  # fmt: skip


def user_links(found: ModelLinks, edits: Edits) -> list[WordLink]:
    """The model's word links (and the carried words') as spans of the user's texts: a
    placeholder linked to the same placeholder only."""
    source, target = edits.source, edits.target
    src_words, tgt_words = found.source, found.target
    src_kept, tgt_kept = dict(found.source_kept), dict(found.target_kept)
    given, translation = source.stages[-1], target.stages[-1]
    spans: set[tuple[Span, Span]] = set()

    def add(from_source: Endpoint, from_target: Endpoint) -> None:
        # the model's words were trimmed in its texts: a placeholder becomes its whole span
        s = source.to_user(from_source[1], from_source[0])
        t = target.to_user(from_target[1], from_target[0])
        if s[0] < s[1] and t[0] < t[1]:
            spans.add((s, t))

    for i, j in found.links:
        if i in src_kept or j in tgt_kept or i >= len(src_words) or j >= len(tgt_words):
            continue
        if src_words[i] is not None and tgt_words[j] is not None:
            add((0, src_words[i]), (0, tgt_words[j]))
    for i, name in src_kept.items():
        for j in (j for j, other in tgt_kept.items() if other == name):
            s, t = source.to_user(src_words[i], 0), target.to_user(tgt_words[j], 0)
            if s[0] < s[1] and t[0] < t[1]:
                spans.update(_word_by_word(given, s, translation, t))
    for from_source, from_target in edits.carried:
        add(from_source, from_target)
    return [WordLink(s, t, given[s[0] : s[1]], translation[t[0] : t[1]]) for s, t in sorted(spans)]


def _word_by_word(source: str, s: Span, target: str, t: Span) -> list[tuple[Span, Span]]:
    """A placeholder's link on the user's texts: one, if it is copied as it is ("Kwame Mensah",
    "612 345 678"); else its last words one by one where both sides end in the same words, the
    words before them as one, if the target has one word there ("Mr. Smith" - "M. Smith":
    "Mr." - "M." and "Smith" - "Smith"; "el Sr. García" - "Mr. García": "el Sr." - "Mr."; not
    "3 de mayo de 1990" - "May 3, 1990"), so markup around part of a name stays around that
    part."""
    if source[s[0] : s[1]] == target[t[0] : t[1]]:
        return [(s, t)]
    a, b = list(_WORD.finditer(source, *s)), list(_WORD.finditer(target, *t))
    if not a or not b:
        return []  # no word on one side: a placeholder the translation wrote once too often
    pairs = []
    while len(a) > 1 and len(b) > 1 and a[-1].group().lower() == b[-1].group().lower():
        pairs.append((a.pop().span(), b.pop().span()))
    if len(b) > 1:  # not a title before the same words: "3 de mayo de 1990" - "May 3, 1990"
        return [(s, t)]
    return [((a[0].start(), a[-1].end()), (b[0].start(), b[-1].end())), *pairs]


def model_words(text: str, pieces: list[str], groups: list[list[int]]) -> list[Span | None]:
    """Where each of the model's words (``groups`` of ``pieces``) is in ``text``, punctuation at
    either end left out; None for a word not found. The words are the whitespace-separated words
    of the normalised text when there are as many, else found by their pieces' characters."""
    normal = normalize(text)
    spans: list[Span | None] = [m.span() for m in _WORD.finditer(normal)]
    if len(spans) != len(groups):
        surfaces = ["".join(pieces[k] for k in g).replace("\u2581", " ").strip() for g in groups]
        spans = _by_surface(normal, surfaces)
    back = TextMap.diff(normal, text)
    return [None if s is None else back.map(trim(normal, s)) for s in spans]


def _by_surface(text: str, surfaces: list[str]) -> list[Span | None]:
    """Each surface found in order in ``text``, after nothing but whitespace (or anywhere after
    a word not found)."""
    out: list[Span | None] = []
    at, lost = 0, False
    for surface in surfaces:
        found = text.find(surface, at) if surface else -1
        if found >= 0 and (lost or not text[at:found].strip()):
            out.append((found, found + len(surface)))
            at, lost = found + len(surface), False
        else:
            out.append(None)
            lost = True
    return out


def _placeholders(
    text: str, words: list[Span | None], names: Sequence[str], shown: Sequence[str] = ()
) -> dict[int, str]:
    """The words that are placeholders: word index -> placeholder. ``shown``: each placeholder
    as ``text`` holds it, if not as itself (a translated weekday: any case); a person's may be
    written the target language's way ("Marie" for "Mary": heedful.protect.written_forms)."""
    forms = {form: name for name in names for form in written_forms(name)}
    for form, name in zip(shown, names, strict=True) if shown else ():
        if form != name:
            forms[form.lower()] = name
    kept = {}
    for k, span in enumerate(words):
        word = span and text[span[0] : span[1]]
        if word and (word in forms or word.lower() in forms):
            kept[k] = forms.get(word) or forms[word.lower()]
    return kept


def trim(text: str, span: Span) -> Span:
    """``span`` without the punctuation at its ends (brackets, quotes, ``.,;:!?¡¿…`` and the
    like; not ``/``, ``#``, ``%``, which URLs and numbers end with), unless it is nothing else."""
    start, end = span
    if start < end and text[start].isalnum() and text[end - 1].isalnum():  # most words
        return span
    while start < end and _is_edge(text[start]):
        start += 1
    while end > start and _is_edge(text[end - 1]):
        end -= 1
    return (start, end) if start < end else span


def _is_edge(char: str) -> bool:
    return char in _EDGE or unicodedata.category(char) in ("Ps", "Pe", "Pi", "Pf")


def copied(text: str) -> list[WordLink]:
    """The links of a text kept as it is (a sentence left untranslated): each word to itself."""
    return in_order(text, text)


def in_order(text: str, copy: str) -> list[WordLink]:
    """The links of a text kept with its words in order (a number written the target language's
    way: "3,5" -> "3.5"): each word of ``text`` to the word of ``copy`` in its place."""
    words, copies = _WORD.finditer(text), _WORD.finditer(copy)
    out = []
    for word, same in zip(words, copies, strict=False):
        s, t = trim(text, word.span()), trim(copy, same.span())
        out.append(WordLink(s, t, text[s[0] : s[1]], copy[t[0] : t[1]]))
    return out


def utf16_links(links: Sequence[WordLink], source: str, target: str) -> list[WordLink]:
    """The same links with offsets counted in UTF-16 code units, as JavaScript's strings count
    them (a character beyond U+FFFF, such as most emoji, counts 2)."""
    source_units, target_units = _utf16_offsets(source), _utf16_offsets(target)
    return [
        WordLink((source_units[s], source_units[e]), (target_units[a], target_units[b]),
                 link.source_word, link.target_word)
        for link in links
        for (s, e), (a, b) in [(link.source, link.target)]
    ]  # fmt: skip


def _utf16_offsets(text: str) -> list[int]:
    """For each code point offset of ``text`` (and its end), the UTF-16 offset."""
    out = [0]
    for char in text:
        out.append(out[-1] + (2 if ord(char) > 0xFFFF else 1))
    return out


def word_links(links: Sequence[WordLink], source: str, target: str) -> list[Link]:
    """Links as (source word, target word), words being the whitespace-separated words of each
    text counted from 0 (Pharaoh format's ``i-j``), sorted. A span of several words links word
    by word to a span of as many (a name copied), else each of its words to each of the other's
    ("3 de mayo de 1990" -> "May 3, 1990")."""
    src_words = [m.span() for m in _WORD.finditer(source)]
    tgt_words = [m.span() for m in _WORD.finditer(target)]

    def covered(words: list[Span], span: Span) -> list[int]:
        inside = [k for k, (a, b) in enumerate(words) if a < span[1] and span[0] < b]
        return inside or [max(0, bisect_right([a for a, _ in words], span[0]) - 1)]

    found = set()
    for link in links:
        here, there = covered(src_words, link.source), covered(tgt_words, link.target)
        same = len(here) == len(there)
        found |= set(zip(here, there, strict=True)) if same else set(product(here, there))
    return sorted(found)


def pharaoh(links: Sequence[WordLink], source: str, target: str) -> str:
    """``word_links`` written as Pharaoh's ``i-j`` pairs: ``0-0 1-2 ...``."""
    return format_links(set(word_links(links, source, target)))
