"""Asides in parentheses or between dashes, translated apart from their sentence and put back
where it aligns.

Tatoeba has hardly any parentheses, and the bundled models garble a sentence with an aside:
"Tom (my brother) is here." gave "Tom Łmy est dans l'esprit.", "Tom (mi hermano) está aquí."
"Tom certainly is here.". So a sentence with asides is given to the model as two kinds of
sentences, each of which it translates well:

    "Tom (my brother) is here."
    -> the sentence without them, "Tom is here.", and each aside, "my brother"
    -> translated in one batch with the rest ("Tom est ici.", "mon frère")
    -> each aside's translation, in its parentheses, after the translation of the last word
       before it, as the model's own word links say ("Tom" -> "Tom"): "Tom (mon frère) est ici."

An aside is a parenthesis neither nested nor holding a parenthesis, or words between two dashes
after a space ("The meeting — if there is one — starts at 10.", "La reunión —si la hay— empieza
a las diez."; the model gave "Le rendez-vous à l'étranger s'il y a un départ à 10 heures."), put
back between the same marks, or words after one such dash to the sentence's end ("He finally
arrived — three hours late." gave "Il est finalement arrivé à Ú trois heures en retard."), put
back after one at the translation's end; one with no letter ("(2019)",
"(1)", which the model garbled too: "Le livre de la casse 2019lt") is copied, not translated,
and one opening its sentence ("(Nota) Es importante.") opens the translation. An aside's
translation keeps its lower-case opening and lack of a full stop ("mi hermano" -> "my brother",
not "My brother."). Where the words before an aside are linked to nothing, it follows the
translation's word at the same relative place.

A label before a colon opening a sentence ("Warning: do not open this door.") is an aside too,
put back before the colon: ``heedful.labels``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace

from heedful.casing import is_all_caps
from heedful.dates import MONTHS, WEEKDAYS
from heedful.explain.alignment_spans import WordLink, copied
from heedful.labels import colon, find_label, label_kinds, translate_labels
from heedful.names import written_titles
from heedful.protect import find_phone_numbers, find_spans
from heedful.textmap import Span

# " (my brother)": the space before it, and its inside; " — if there is one —", " —si la hay—"
# (an em or en dash after a space, words with a letter, the same dash before a space or a mark);
# " — three hours late." (one em dash, then a letter, to the sentence's end; not an en dash's
# "Paris – Lyon leaves at 8." nor "pages 10 — 20 are missing")
_ASIDE = re.compile(
    r"[ \t]*\((?P<inside>[^()\n]+)\)"
    r"|[ \t]+(?P<dash>[—–])[ \t]?(?P<dashed>[^—–()\n]*?[^\W\d_][^—–()\n]*?)[ \t]?(?P=dash)"
    r"(?=[ \t,;:.!?]|$)"
    r"|[ \t]+—[ \t]?(?P<tail>[^\W\d_][^—–()\n]*?)(?=[.!?…]*[ \t]*$)"
)
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
_LETTER = re.compile(r"[^\W\d_]")


@dataclass
class Asides:
    """A sentence's asides taken out: ``main`` is the sentence without them; each aside's
    ``cut`` (its span in the sentence, with the space before it, or after it where it opens
    the sentence), ``inside`` (the span of its text) and ``at`` (where it was cut out of
    ``main``); ``marks``: the marks around each, as written ("(", ")"; "— ", " —").
    """

    sentence: str
    main: str
    cuts: list[Span]
    insides: list[Span]
    at: list[int]
    marks: list[tuple[str, str]]
    # the first is a label before a colon (heedful.labels): "framed" or "copied"
    label: str | None = None

    @property
    def texts(self) -> list[str]:
        """Each aside's text."""
        return [self.sentence[a:b] for a, b in self.insides]

    @property
    def to_translate(self) -> list[int]:
        """The asides with a letter, to translate; the others ("2019", "1") are copied."""
        copied = {0} if self.label == "copied" else set()  # "Q:"
        return [k for k, text in enumerate(self.texts) if _LETTER.search(text) and k not in copied]

    def main_to_sentence(self, offset: int, end: bool = False) -> int:
        """An offset into ``main`` as an offset into the sentence (an ``end`` offset at an
        aside's place stays before it)."""
        shift = 0
        for (a, b), at in zip(self.cuts, self.at, strict=True):
            if at < offset or at == offset and not end:
                shift += b - a
        return offset + shift


def find_asides(
    sentence: str,
    keep_whole: Collection[Span] = (),
    label_kind: Callable[[str], str | None] | None = None,
) -> Asides | None:
    """``sentence``'s asides, if it has any and a word outside them; none inside or across a
    span of ``keep_whole`` (a phone number's "(555)", a URL's). ``label_kind``: what a word
    opening the sentence before a colon is, "framed" or "copied" (a label: module docstring) or
    None; no ``label_kind``: no labels."""
    cuts, insides, at, main, marks, last = [], [], [], [], [], 0
    label, kind = find_label(sentence, label_kind) if label_kind is not None else (None, None)
    if label is not None:
        main.append("")
        at.append(0)
        cuts.append(label.span())
        insides.append(label.span("label"))
        marks.append(("", ":"))
        last = label.end()
    for match in _ASIDE.finditer(sentence, last):
        start, end = match.span()
        group = next(g for g in ("inside", "dashed", "tail") if match.group(g) is not None)
        if group == "tail" and re.search(r"\s[—–]", sentence[:start]):
            continue  # a dash before it: "A — 3 — B." has no aside
        inside = match.span(group)
        edges = (inside[0] - 1, match.end() - 1)  # "(" and ")", or the dashes
        if any(a <= edge < b for a, b in keep_whole for edge in edges):
            continue  # part of a span: "+1 (555) 123-4567" (not "(2019)", a number inside)
        if not sentence[:start].strip():  # opening the sentence: the space after it goes too
            end += len(sentence[end:]) - len(sentence[end:].lstrip())
        main.append(sentence[last:start])
        at.append(sum(map(len, main)))
        cuts.append((start, end))
        insides.append(inside)
        opening = sentence[start : inside[0]].lstrip(" \t")
        marks.append((opening, sentence[inside[1] : match.end()]))
        last = end
    if not cuts:
        return None
    main.append(sentence[last:])
    text = "".join(main)
    if not _WORD.search(text):
        return None
    return Asides(sentence, text, cuts, insides, at, marks, label=kind if last > 0 else None)


def as_aside(
    source: str, translation: str, target: str | None = None, *, ended: bool = False
) -> str:
    """An aside's translation as the aside was written: without the full stop the model ended
    it with, or the capital it opened it with, where the aside has neither ("mi hermano" gave
    "My brother.": "my brother"); a word the ``target`` language always capitalises keeps its
    capital ("lunes" -> "Monday", "I"). ``ended``: the model's full stop stays (a sentence
    going on after a pause, heedful.real_input)."""
    if not translation:
        return source
    if not ended and not source.rstrip().endswith((".", "!", "?", "…")):
        translation = _ADDED_END.sub("", translation)
    first = _WORD.match(translation)
    always = {"I", *MONTHS.get(target or "", ()), *WEEKDAYS.get(target or "", ())}
    always |= written_titles(target)  # "señora García" -> "Mrs. García"
    capital = first is not None and (first.group() in always or first.group().split("'")[0] == "I")
    # "I", "Monday", "May" open a sentence going on as they do any ("Dear Mr. Smith, I am
    # writing ..." gave "Cher M. Smith, J'écris ...")
    opens_small = source[:1].islower() or _ALWAYS_CAPITALISED.match(source) is not None
    rest = first.group()[1:] if first else ""  # not an acronym's ("USA"): "S'il" -> "s'il"
    acronym = rest != "" and rest == rest.upper()  # "À la gare" is none: "à la gare"
    if opens_small and not capital and translation[:1].isupper() and not acronym:
        translation = translation[0].lower() + translation[1:]
    return translation


_ALWAYS_CAPITALISED = re.compile(rf"(?:I|{'|'.join(MONTHS['en'] + WEEKDAYS['en'])})\b(?!\.)")
# a mark the model ended an aside with, after a word, a number's sign or unit ("50%.")
_ADDED_END = re.compile(r"(?<=[^\W_]|[%°€$£¥])\s?[.!?]$")


@dataclass
class Put:
    """A translation with its asides put back: ``text``; per aside, ``points`` (where it was
    inserted in the main sentence's translation), ``inserted`` (the text inserted there, its
    parentheses and the space before them) and ``starts`` (where its translation starts in
    ``text``)."""

    text: str
    points: list[int]
    inserted: list[str]
    starts: list[int]

    def moved(self, offset: int, end: bool = False) -> int:
        """An offset into the main sentence's translation as an offset into ``text``."""
        return offset + sum(
            len(text)
            for point, text in zip(self.points, self.inserted, strict=True)
            if point < offset or point == offset and not end
        )


def put_asides(
    asides: Asides, translation: str, links: list[WordLink], translated: list[str]
) -> Put:
    """``translation`` of ``asides.main`` with each aside's translation (``translated``) in
    its marks after the target word linked to the last source word before it (``links``:
    the main sentence's word links, spans of ``asides.main`` and ``translation``)."""
    points = [_place(asides, k, translation, links) for k in range(len(translated))]
    inserted = [
        f"{opening}{text}{closing} " if not point else f" {opening}{text}{closing}"
        for point, text, (opening, closing) in zip(points, translated, asides.marks, strict=True)
    ]
    put = Put("", points, inserted, [0] * len(translated))
    out, at = [], 0
    for k in sorted(range(len(translated)), key=lambda k: (points[k], k)):
        out.append(translation[at : points[k]])
        opening = asides.marks[k][0]
        put.starts[k] = sum(map(len, out)) + len(opening) + (1 if points[k] else 0)
        out.append(inserted[k])
        at = points[k]
    out.append(translation[at:])
    put.text = "".join(out)
    return put


def _place(asides: Asides, k: int, translation: str, links: list[WordLink]) -> int:
    """Where aside ``k`` goes in ``translation``: after the target words linked to the
    nearest source word before it that has links; else at its relative place, after a word."""
    cut = asides.at[k]
    before = [m for m in _WORD.finditer(asides.main) if m.end() <= cut]
    if not before:
        return 0  # it opened the sentence
    if not _WORD.search(asides.main, cut):  # it ended the sentence: so it ends the translation
        return len(_ENDING.sub("", translation))
    for word in reversed(before):
        ends = [link.target[1] for link in links if link.source[0] == word.start()]
        if ends:
            return _closed(translation, _word_end(translation, max(ends)))
    share = cut / max(len(asides.main), 1)
    return _closed(translation, _word_end(translation, round(share * len(translation))))


def _closed(text: str, offset: int) -> int:
    """``offset``, after the quotes or brackets that close there ('"La Petite Maison" (near the
    station)': the aside after the closing quote, not before it)."""
    found = _CLOSING.match(text, offset)
    return found.end() if found else offset


_ENDING = re.compile(r"[\s.!?…]*$")
_CLOSING = re.compile(r"(?:[\"”’»)\]]|\s»)+")


def _word_end(text: str, offset: int) -> int:
    """The end of the word at or before ``offset`` in ``text`` (0 if none)."""
    words = [m.end() for m in _WORD.finditer(text) if m.start() < max(offset, 1)]
    return words[-1] if words else 0


# a sentence that is one aside in parentheses, perhaps with its end after them: "My password is
# Summer2024! (don't tell anyone)" gave "... ! Údon ne le dit à personne l'échec."; a word of
# two letters at least: "(b)" is a list's marker, kept as it is
_WHOLE = re.compile(r"\((?P<inside>[^()\n]*[^\W\d_]{2}[^()\n]*)\)(?P<end>[.!?…]*)")


def bracketed(sentence: str) -> re.Match[str] | None:
    """``sentence`` as one aside in parentheses (with a word), if it is one: its inside is
    translated as a sentence and put back in them (``in_brackets``)."""
    return _WHOLE.fullmatch(sentence) if sentence.startswith("(") else None


def in_brackets(bracket: re.Match[str], found, target: str | None = None):
    """``found``, the ``Translation`` of ``bracket``'s inside, as its sentence was written: in
    its parentheses, as an aside (heedful.real_input's ``Translation``)."""
    inside = as_aside(bracket["inside"], found.text, target)
    text = f"({inside}){bracket['end']}"
    links = found.alignment
    if links is not None:  # the target's words as written now ("Ne" -> "ne")
        links = [k.shifted(1, 1) for k in links if k.target[1] <= len(inside)]
        links = [k._replace(target_word=text[k.target[0] : k.target[1]]) for k in links]
    return replace(found, text=text, alignment=links)


def sentence_asides(translator, sentence: str) -> Asides | None:
    """A sentence's asides in parentheses (heedful.asides), where the translator cuts texts
    into sentences; none inside the spans it keeps (a phone number's "(555)")."""
    if not translator.split_sentences or not any(mark in sentence for mark in "(—–:"):
        return None
    keep = []
    if translator.protect_spans:
        keep = find_spans(sentence) + find_phone_numbers(sentence, translator.source_language)
    return find_asides(sentence, keep, label_kinds(translator) if ":" in sentence else None)


def translate_asides(translator, sentences: list[str], in_capitals: list[bool],
                     asides: list[Asides | None], options, alignments: bool,
                     translate_sentences: Callable) -> list[list]:  # fmt: skip
    """``translate_sentences`` (heedful.real_input's) for sentences some of which have asides:
    the other sentences and the asides in one batch, the sentences without their asides in
    another, with the links that tell where each aside goes back; each sentence's n best
    ``Translation``s."""
    plain = [i for i, found in enumerate(asides) if found is None]
    apart = [i for i, found in enumerate(asides) if found is not None]
    inside = [(i, asides[i].texts[k]) for i in apart for k in asides[i].to_translate
              if k or asides[i].label is None]  # fmt: skip
    capitals = [in_capitals[i] or is_all_caps(sentences[i]) for i, _ in inside]
    first = translate_sentences(
        translator, [sentences[i] for i in plain] + [text for _, text in inside],
        [in_capitals[i] for i in plain] + capitals, options, alignments,
    )  # fmt: skip
    mains = translate_sentences(
        translator, [asides[i].main for i in apart], [in_capitals[i] for i in apart], options, True
    )
    labelled = [i for i in apart if asides[i].label == "framed"]
    found = translate_labels(
        translator, [asides[i].texts[0] for i in labelled], options, translate_sentences
    )
    labels = dict(zip(labelled, found, strict=True))
    target = translator.target_language
    out: list[list] = [[] for _ in sentences]
    for k, i in enumerate(plain):
        out[i] = first[k]
    translated = iter(first[len(plain) :])
    for i, options_ in zip(apart, mains, strict=True):
        texts, wanted = asides[i].texts, asides[i].to_translate
        best = [
            labels[i] if k == 0 and i in labels else next(translated)[0] if k in wanted else None
            for k in range(len(texts))
        ]
        out[i] = [with_asides(asides[i], o, best, alignments, target) for o in options_]
    return out


def with_asides(asides: Asides, main, best: list, alignments: bool, target: str | None = None):
    """The ``Translation`` of a sentence from its main part's and its asides' (``best``; None
    for one copied: "2019")."""
    texts = [
        text if b is None else as_aside(text, b.text, target)
        for b, text in zip(best, asides.texts, strict=True)
    ]
    if asides.label:  # "Rappel : la bibliothèque ferme", after the label as the source has it
        asides = replace(asides, marks=[("", colon(target)), *asides.marks[1:]])
        # English capitalises "I", months and weekdays anywhere: they say nothing of the opening
        rest = asides.main
        rest = rest[0].lower() + rest[1:] if _ALWAYS_CAPITALISED.match(rest) else rest
        text = as_aside(rest, main.text, target)
        words = [k._replace(target_word=text[slice(*k.target)]) for k in main.alignment or []]
        main = replace(main, text=text, alignment=words if main.alignment is not None else None)
    put = put_asides(asides, main.text, main.alignment or [], texts)
    translated = [b for b in best if b is not None]
    tokens = main.tokens + [t for b in translated for t in b.tokens]
    score = main.score + sum(b.score for b in translated)
    links = None
    if alignments:
        to_source, to_target = asides.main_to_sentence, put.moved
        links = [
            WordLink(
                (to_source(k.source[0]), to_source(k.source[1], end=True)),
                (to_target(k.target[0]), to_target(k.target[1], end=True)),
                k.source_word,
                k.target_word,
            )  # fmt: skip
            for k in main.alignment or []
        ]
        for (start, end), at, b, text in zip(asides.insides, put.starts, best, texts, strict=True):
            if b is None:  # copied: each word linked to itself
                links += [k.shifted(start, at) for k in copied(asides.sentence[start:end])]
            else:  # the words the aside's translation kept, as written there ("my", not "My")
                kept = [k.shifted(start, at) for k in b.alignment or [] if k.target[1] <= len(text)]
                links += [k._replace(target_word=put.text[slice(*k.target)]) for k in kept]
        links.sort(key=lambda k: (k.source, k.target))
    notes = main.warnings + [note for b in translated for note in b.warnings]
    return replace(main, text=put.text, score=score, tokens=tokens, alignment=links, warnings=notes)
