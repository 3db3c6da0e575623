"""Real input: texts as people write them, made into sentences a model translates, and back.

    texts -> paragraphs cut into sentences (heedful.segment)
          -> a sentence with asides in parentheses given as the sentence without them and
             each aside (heedful.asides), put back together where its word links say
          -> each sentence prepared: URLs, e-mail addresses, long numbers, hashtags and words
             with symbols the vocabulary lacks replaced by placeholders (heedful.protect), ALL
             CAPS and Title Case cased (heedful.casing), curly quotes it lacks read straight
             (heedful.typography), words the model cannot read set aside
             (heedful.unknown_words)
          -> a sentence with no word left beside its placeholders ("123", "3,5", "!!!", a URL)
             kept as it is, its numbers written the target way: given to the model, such lines
             came back as made-up sentences ("123" -> "I 123.", "..." -> "Say it.")
          -> every other sentence of every text in one ``Translator.generate``, the unknown
             piece banned (with ``alignments``, each batch's word links found as it ends:
             heedful.translation_links)
          -> each translation finished: the words set aside put back, capitals, the spans,
             curly quotes
             (with ``alignments``, its links carried to the text given and the translation)
          -> a paragraph's n best from its sentences' by summed score (links moved to the
             paragraph's places)

A Translator turns each step on or off (``split_sentences``, ``protect_spans``,
``uncapitalise``, ``carry_unreadable``); imported Marian models have them off, to translate as
their own tools do.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from heedful import dropped, ordinals, wrong_language
from heedful.abbreviations import find_abbreviations, spell_out
from heedful.asides import bracketed, in_brackets, sentence_asides, translate_asides
from heedful.casing import (
    capitalise,
    capitalise_first,
    is_all_caps,
    is_title_case,
    opens_capitalised,
    uncapitalise,
)
from heedful.countries import find_countries, names_countries
from heedful.dates import kept_weekdays
from heedful.decoding import DecodingOptions
from heedful.emphasis import find_emphasis, with_emphasis
from heedful.explain.alignment_choice import align_pair
from heedful.explain.alignment_spans import WordLink, copied, in_order
from heedful.explain.words import STANDALONE, to_words
from heedful.formulas import bare_hey, letter_formula
from heedful.names import (
    full_names,
    mixed_case,
    people,
    places,
    quoted_titles,
    rare_names,
    street_names,
    titled_names,
    unreadable_letters,
    with_initials,
)
from heedful.pauses import MARKS as PAUSE_MARKS
from heedful.pauses import going_on, opened, pauses
from heedful.protect import PEOPLE, Protected, find_spans, protect
from heedful.sayings import how_was, turning_age
from heedful.segment import Paragraph, is_marker, titles
from heedful.textmap import Span, overlap
from heedful.typography import (
    EQUIVALENTS,
    after_quoted_speech,
    aged,
    at_a_city,
    closed_quote,
    curl,
    elided,
    exclaimed,
    plain,
    replaced_quotes,
    stated,
    undoubled,
    unended,
    unreadable_symbols,
)
from heedful.unknown_words import (
    Unreadable,
    is_emoticon,
    is_laughter,
    laughter_in,
    laughter_line,
    put_back_spans,
    split_unreadable,
)
from heedful.written import spaced_compounds, spanish_hours


@dataclass
class Translation:
    """One of a source's n best translations. A source of several sentences is translated
    sentence by sentence: its score is the sum of theirs, its tokens theirs one after the other."""

    text: str
    score: float
    tokens: list[int]  # generated ids, ending with end-of-sentence unless cut at max_length
    alignment: list[WordLink] | None = None  # with alignments=True: spans of the source text
    # given and of ``text``, sorted by source then target
    # what may be wrong with it, each naming its sentence ("'We need to buy milk, eggs and
    # bread.': may leave out 'eggs'"): the warnings a call raises, by text (the APIs' answers)
    warnings: list[str] = field(default_factory=list)


@dataclass
class Prepared:
    """A sentence as the model is given it: cased if it was in capitals or Title Case
    (heedful.casing, ``caps``: it was in capitals), its URLs, e-mail addresses and long numbers
    replaced by placeholders (heedful.protect)."""

    sentence: str  # as given
    text: str
    protected: Protected | None
    caps: bool
    quotes: tuple[str, str] | None = None  # the curly quotes made straight (heedful.typography)


@dataclass
class Finished:
    """A translation on its way from the model to the user, stage by stage."""

    model: str  # the model's translation
    mended: str  # with the numbers it miscopied mended to their placeholders (heedful.protect)
    split: Unreadable  # the words set aside (placeholders the model dropped among them)
    put_back: str  # with them put back
    carried: list[Span]  # where each of split.words is in put_back
    cased: str  # in capitals if the source was
    text: str  # with the placeholders' spans: the translation


def translate_texts(
    translator, texts: list[str], options: DecodingOptions, *, alignments: bool = False
) -> list[list[Translation]]:
    """``Translator.translate_n_best``: each text's ``options.n_best`` translations, best first.
    All sentences of all texts go to the model in one ``translator.generate``; Markdown's
    emphasis is taken out first and put back by the word links (heedful.emphasis)."""
    if isinstance(texts, str):
        raise TypeError("translate takes a list of texts; wrap a single text in a list")
    marked = [find_emphasis(text) if translator.protect_spans else None for text in texts]
    if not any(marked):
        return ordinals.translate_worded(translator, texts, options, alignments, _translate_plain)
    plain = [text if m is None else m.plain for text, m in zip(texts, marked, strict=True)]
    found = ordinals.translate_worded(translator, plain, options, True, _translate_plain)
    return [
        [with_emphasis(m, o, alignments) if m else o if alignments else replace(o, alignment=None)
         for o in options_]
        for m, options_ in zip(marked, found, strict=True)
    ]  # fmt: skip


def _translate_plain(
    translator, texts: list[str], options: DecodingOptions, alignments: bool
) -> list[list[Translation]]:
    paragraphs = [paragraph(translator, text) for text in texts]
    in_capitals = [paragraph_in_capitals(translator, p) for p in paragraphs for _ in p.spans]
    sentences = [s for p in paragraphs for s in p.sentences]
    # a line ending with "," or ":" (a letter's greeting: "Hi Sarah,") goes to the model ended
    # with a full stop, which Tatoeba's sentences all have ("Salut Sarah, Sarah." before)
    ends = [_open_end(translator, s) for s in sentences]
    # "oye" cut from "oye q haces" ends with the comma it lacks, and the sentence goes on
    ends = [
        (s + ".", ",") if bare_hey(s, translator.source_language) and going else end
        for s, end, going in zip(sentences, ends, _followed_on_line(paragraphs), strict=True)
    ]
    # opening marks given once ("¡¡Qué guay!!" as "¡Qué guay!"): the links move by the rest
    lead = [
        0 if end is None else _opening(s) - _opening(end[0])
        for s, end in zip(sentences, ends, strict=True)
    ]
    marks = [None if end is None else end[1] for end in ends]
    sentences = [s if end is None else end[0] for s, end in zip(sentences, ends, strict=True)]
    # a letter's greeting or closing ("Dear Anna,", "Un saludo,"): from heedful.formulas' table
    languages = translator.source_language, translator.target_language
    later = [k > 0 for p in paragraphs for k in range(len(p.spans))]  # after another sentence
    formulas = [
        letter_formula(s, mark, *languages, later=after) or laughter_line(s, *languages)
        if translator.protect_spans
        else None
        for s, mark, after in zip(sentences, marks, later, strict=True)
    ]  # and a line of laughter ("Jajaja.")
    todo = [i for i, formula in enumerate(formulas) if formula is None]
    # after a greeting's comma or "...", the sentence goes on ("Hola, | me llamo Ana."): the part
    # after the pause is given opening with a capital, as the models read sentences best
    pause = _after_pause(paragraphs, marks)
    lexicon = translator.lexicon
    given = [opened(sentences[i], lexicon) if pause[i] else sentences[i] for i in todo]
    capitals = [in_capitals[i] for i in todo]
    # a sentence in parentheses: its inside, put back in them after ("(don't tell anyone)")
    brackets = [bracketed(s) if translator.split_sentences else None for s in given]
    given = [s if b is None else b["inside"] for s, b in zip(given, brackets, strict=True)]
    asides = [sentence_asides(translator, s) for s in given]
    if any(asides):  # "Tom (mi hermano) está aquí."
        translated = translate_asides(
            translator, given, capitals, asides, options, alignments, translate_sentences
        )
    else:
        translated = translate_sentences(translator, given, capitals, options, alignments)
    target = translator.target_language
    translated = [
        found if b is None else [in_brackets(b, o, target) for o in found]
        for found, b in zip(translated, brackets, strict=True)
    ]
    by_sentence = dict(zip(todo, translated, strict=True))
    for i, formula in enumerate(formulas):
        if formula is not None:
            linked = in_order(sentences[i], formula) if alignments else None
            by_sentence[i] = [Translation(formula, 0.0, [], linked)]
    found = [by_sentence[i] for i in range(len(sentences))]
    found = [
        [_ended(o, mark, translator.target_language) for o in options] if mark else options
        for options, mark in zip(found, marks, strict=True)
    ]
    # and its translation goes on in lower case where it does: "Hi, my name is Ana."
    for translations, sentence, after in zip(found, sentences, pause, strict=True):
        for k, o in enumerate(translations if after else []):
            text, links = going_on(sentence, o.text, o.alignment, languages[1])
            translations[k] = replace(o, text=text, alignment=links)
    found = [
        [_shifted(o, n) for o in options] if n else options
        for options, n in zip(found, lead, strict=True)
    ]
    out, at = [], 0
    for p in paragraphs:
        parts, at = found[at : at + len(p.spans)], at + len(p.spans)
        out.append(paragraph_n_best(p, parts, options.n_best, alignments))
    return out


def _after_pause(paragraphs: list[Paragraph], marks: list[str | None]) -> list[bool]:
    """For each sentence of ``paragraphs`` (``marks``: the mark each ended with in place of its
    own, ``_open_end``), whether it goes on after a pause: the sentence before it, in its
    text and on its line, ended with a pause's mark ("Hola, | me llamo Ana."). A text ending
    with a comma is no pause before the next text ("we went home," | "q tal?" gave "how are
    you?"), nor is a line before the next line."""
    out, at = [], 0
    for p in paragraphs:
        for k, (start, _) in enumerate(p.spans):
            before = marks[at + k - 1] if k else None
            out.append(before in PAUSE_MARKS and "\n" not in p.text[p.spans[k - 1][1] : start])
        at += len(p.spans)
    return out


def _followed_on_line(paragraphs: list[Paragraph]) -> list[bool]:
    """For each sentence of ``paragraphs``, whether another follows it on its line."""
    out = []
    for p in paragraphs:
        for k, (_, end) in enumerate(p.spans):
            later = k + 1 < len(p.spans)
            out.append(later and "\n" not in p.text[end : p.spans[k + 1][0]])
    return out


def _opening(sentence: str) -> int:
    """How many opening marks ``sentence`` begins with ("¡¡": 2)."""
    return len(sentence) - len(sentence.lstrip("¡¿"))


def _shifted(translation: Translation, source: int) -> Translation:
    """``translation`` with its links' source spans moved by ``source`` characters."""
    if not translation.alignment:
        return translation
    return replace(translation, alignment=[k.shifted(source, 0) for k in translation.alignment])


def _open_end(translator, sentence: str) -> tuple[str, str] | None:
    """The sentence as the model is given it and the mark its translation ends with instead,
    where the translator cuts texts into sentences and ``sentence`` ends, after a word, with a
    comma or colon (a letter's greeting, a heading: given with a full stop, which Tatoeba's
    sentences all have) or with a run of marks ("...", "…", "!!!", "???", "?!": given with one;
    the model dropped them and garbled the sentence: "Really???" -> "Alors ?", "¡¡¡Me
    encanta!!!" -> "Get lost!"). Repeated opening marks ("¡¡¡") are given once too."""
    if not translator.split_sentences:
        return None
    if sentence[-1:] in ",:" and sentence[-2:-1].isalnum():
        return sentence[:-1] + ".", sentence[-1]
    run = _RUN_END.search(sentence)
    if run is None:
        return None
    mark = "?" if "?" in run.group() else "!" if "!" in run.group() else "."
    given = _RUN_START.sub(lambda m: m.group()[-1], sentence[: run.start()]) + mark
    return given, run.group()


# "...", "…", "!!!", "?!" after a word, or a closing mark after one ("`make test`...", "(sí)!!")
_RUN_END = re.compile(r"(?<=[^\W_]|[`)\]\"'’”»])(?:[.!?]*…[.!?…]*|[.!?]{2,})$")
_RUN_START = re.compile(r"^[¡¿]{2,}")


def _ended(translation: Translation, mark: str, target: str | None) -> Translation:
    """``translation`` of a sentence given with one mark in place of ``mark``, ended with
    ``mark`` again: a comma or colon in place of the model's full stop, or after its last word
    (the model's "!" or "?" stays; French puts a space before a colon); a run of marks in
    place of the model's last marks (French puts a space before "!" and "?")."""
    text = translation.text
    if not text:
        return translation
    if mark in ",:":
        if text[-1] in "!?…":
            return translation
        mark = " :" if mark == ":" and target == "fr" else mark
        return replace(translation, text=text[:-1] + mark if text.endswith(".") else text + mark)
    space = " " if target == "fr" and mark[0] in "!?" else ""  # "Attends..." but "ça !!!"
    return replace(translation, text=re.sub(r"\s*[.!?…]*$", "", text) + space + mark)


def as_given(translator, sentence: str) -> tuple[str, Callable[[str], str]]:
    """``Translator.as_translated``: one sentence as ``translate_texts`` gives it to the model,
    and how it finishes the model's translation (the markers of heedful.emphasis left out)."""
    marked = find_emphasis(sentence) if translator.protect_spans else None
    sentence = sentence if marked is None else marked.plain
    end = _open_end(translator, sentence)
    prepared = prepare(translator, sentence if end is None else end[0], in_capitals=False)

    def finished(model: str) -> str:
        text = finish(translator, prepared, None, model).text
        if end is not None:
            text = _ended(Translation(text, 0.0, []), end[1], translator.target_language).text
        return text

    return prepared.text, finished


def paragraph(translator, text: str) -> Paragraph:
    """``text`` cut into sentences, or, without ``split_sentences``, one sentence."""
    if not translator.split_sentences:
        return Paragraph(text, [(0, len(text))] if text.strip() else [])
    found = translator._splitter.split(text, find_spans(text) if translator.protect_spans else ())
    if not translator.protect_spans:
        return found
    spans = []
    for start, end in found.spans:
        spans += pauses(text, start, end, translator.source_language)  # "Hola, | me llamo"
    return Paragraph(text, spans)


def paragraph_in_capitals(translator, paragraph: Paragraph) -> bool:
    """Whether a paragraph of several sentences is in capitals, but for its spans (URLs...)."""
    if not translator.uncapitalise or len(paragraph.spans) < 2:
        return False
    text = paragraph.text
    for start, end in reversed(find_spans(text)):
        text = f"{text[:start]} {text[end:]}"
    return is_all_caps(text)


def paragraph_n_best(
    paragraph: Paragraph, parts: list[list[Translation]], n_best: int, alignments: bool = False
) -> list[Translation]:
    """A paragraph's n best translations from its sentences' (``parts``): the combinations with
    the highest sums of scores. A sentence left untranslated (no tokens: nothing the model can
    read) is kept as it is when the paragraph has others (each word linked to itself)."""
    best: list[tuple[float, list[Translation]]] = [(0.0, [])]
    for sentence, options in zip(paragraph.sentences, parts, strict=True):
        if len(parts) > 1 and not options[0].tokens and not options[0].text:
            options = [Translation(sentence, 0.0, [], copied(sentence) if alignments else None)]
        combined = [(score + o.score, chosen + [o]) for score, chosen in best for o in options]
        best = sorted(combined, key=lambda pair: -pair[0])[:n_best]
    out = []
    for score, chosen in best:
        texts = [o.text for o in chosen]
        links = None
        if alignments:  # each sentence's links moved to the paragraph's and its translation's
            places = zip(paragraph.spans, paragraph.places(texts), chosen, strict=True)
            links = [k.shifted(s, t) for (s, _), t, o in places for k in o.alignment or []]
        tokens = [t for o in chosen for t in o.tokens]
        notes = [note for o in chosen for note in o.warnings]
        out.append(Translation(paragraph.join(texts), score, tokens, links, notes))
    return out


def translate_sentences(translator, sentences: list[str], in_capitals: list[bool],
                        options: DecodingOptions,
                        alignments: bool = False) -> list[list[Translation]]:  # fmt: skip
    """Each sentence's n best translations (none for one the model cannot read, with a
    warning); ``in_capitals``: whether each is in a paragraph in capitals."""
    tokenizer = translator.tokenizer
    prepared = [prepare(translator, s, c) for s, c in zip(sentences, in_capitals, strict=True)]
    src_ids = tokenizer.encode_batch([p.text for p in prepared])
    todo, unreadable, kept = [], [], []
    carried: dict[int, Unreadable] = {}  # sources with words the model cannot read
    for i, (text, ids) in enumerate(zip(sentences, src_ids, strict=True)):
        if not text.strip() or all(t == translator.config.eos_id for t in ids):
            continue
        if not translator._knows_some_of(ids):
            unreadable.append(i)
            continue
        if translator.protect_spans and not _has_words(prepared[i]):
            kept.append(i)  # "123", "3,5", "!!!", a URL: the model would make up a sentence
            continue
        todo.append(i)
        split = _split_unreadable(translator, prepared[i].text, ids)
        if split is not None:
            carried[i] = split
            src_ids[i] = tokenizer.encode(split.text)
    notes: dict[int, list[str]] = {i: [] for i in range(len(sentences))}
    for i in unreadable:
        notes[i].append(
            f"{sentences[i][:60]!r}: only characters the model cannot read, left untranslated"
        )
    if unreadable:
        warnings.warn(
            f"{len(unreadable)} source{'s hold' if len(unreadable) > 1 else ' holds'} only "
            "characters outside the model's vocabulary (the first: "
            f"{sentences[unreadable[0]][:40]!r}); left untranslated",
            stacklevel=5,
        )
    links = None
    if alignments:
        from heedful.translation_links import TranslationLinks

        links = TranslationLinks(translator, prepared, carried, src_ids, todo)
    hook = {"on_batch": links.on_batch, "aligning": links.trails} if links else {}
    # the unknown piece is never written: what the model cannot read was kept from it above
    unk_id = getattr(tokenizer, "unk_id", None)
    banned = [unk_id] if translator.protect_spans and unk_id is not None else []
    # words a translation should not leave out (heedful.dropped): ranked first, then warned of
    watched = [dropped.watched(translator, prepared[i], src_ids[i]) for i in todo]
    hypotheses = translator.generate(
        [src_ids[i] for i in todo], options=options, banned=banned,
        watched=[pieces for _, pieces in watched], **hook,
    )  # fmt: skip
    best = {i: found[0] for i, found in zip(todo, hypotheses, strict=True) if found}
    by_sentence = dict(zip(todo, watched, strict=True))
    left_out = dropped.warn(translator, sentences, best, by_sentence, src_ids)
    for i, note in left_out.items():
        notes[i].append(note)
    cut = [i for i, found in zip(todo, hypotheses, strict=True)
           if not found[0].tokens or found[0].tokens[-1] != translator.config.eos_id]  # fmt: skip
    for i in cut:
        notes[i].append(f"{sentences[i][:60]!r}: cut at the length limit, may be incomplete")
    if cut:
        warnings.warn(
            f"{len(cut)} translation{'s were' if len(cut) > 1 else ' was'} cut at the length "
            f"limit before the model ended {'them' if len(cut) > 1 else 'it'} (the first: "
            f"{sentences[cut[0]][:40]!r}); it may be incomplete or repeat itself",
            stacklevel=5,
        )
    if links:
        links.complete(hypotheses)
    as_written, language_notes = wrong_language.as_written(
        translator, sentences, prepared, todo, hypotheses
    )
    for i, note in language_notes.items():
        notes[i].append(note)
    empty = [] if alignments else None
    out = [[Translation("", 0.0, [], empty, list(notes[i]))] for i in range(len(sentences))]
    for i in kept:  # as given, numbers written the target language's way
        text = finish(translator, prepared[i], None, prepared[i].text).text
        out[i] = [Translation(text, 0.0, [], in_order(sentences[i], text) if alignments else None)]
    for i, found in zip(todo, hypotheses, strict=True):
        if i in as_written:  # already in the target language
            text = sentences[i]
            linked = in_order(text, text) if alignments else None
            out[i] = [Translation(text, 0.0, [], linked, list(notes[i]))]
            continue
        out[i] = []
        for option, h in enumerate(found):
            done = finish(translator, prepared[i], carried.get(i), translator._text(h.tokens))
            alignment = links.of(i, option, done) if links else None
            out[i].append(Translation(done.text, h.score, h.tokens, alignment, list(notes[i])))
    return out


def prepare(translator, sentence: str, in_capitals: bool) -> Prepared:
    """The sentence with placeholders for what the model cannot copy (``protect_spans``),
    cased as usual if it is in capitals or Title Case (``uncapitalise``); a short sentence
    of a paragraph ``in_capitals`` counts as in capitals."""
    source, target = translator.source_language, translator.target_language
    lexicon = translator.lexicon
    usual = None if lexicon is None else lexicon.usual_case  # "Lisboa", "tom" -> "Tom"
    protected = None
    # characters the vocabulary lacks: most sentences have none, and skip what looks for them
    unknown = translator.protect_spans and _has_unknown_letter(translator, sentence)
    if translator.protect_spans:
        extra, symbols = [], []  # none if no letter is unknown: most sentences
        if unknown:
            # a capital the vocabulary lacks ("Ñ") is read in lower case when the text is cased
            extra = unreadable_letters(
                sentence,
                lambda c: _unknown_letter(translator, c) and _unknown_letter(translator, c.lower()),
            )
            symbols = unreadable_symbols(  # "£5", "[1]"; not a curly quote, read straight below
                sentence, lambda c: _unknown_letter(translator, c) and c not in EQUIVALENTS
            )
        capitals = in_capitals or is_all_caps(sentence)
        if translator.protect_names and not capitals:
            # a title and the name after it, in Title Case too ("Dear Mrs. Smith,", "Dr. John
            # Brown" signing a letter gave "Dar Monsieur, la fumée." and "Buvez John marron")
            titled = titled_names(sentence, titles(source), source)  # "Sr. Pérez", "Dr. Smith"
            extra += [_without_possessive(sentence, span) for span in titled]  # "Mr. Smith's"
        elif translator.protect_names and lexicon is not None:  # "EL SR. GARCÍA LLEGÓ TARDE."
            name_word = lexicon.may_be_name  # "GARCÍA", not "LLEGÓ"
            extra += titled_names(sentence, titles(source), source, name_word, people(source))
        names, streets = [], []
        if translator.protect_names and lexicon is not None and capitals:
            names = lexicon.unseen_names(sentence, people("*"), capitals=True)  # "MAX"
            names += lexicon.women_read(sentence, people(source), places(source))  # "ALICE"
        elif translator.protect_names and not is_title_case(sentence, (), usual):
            if lexicon is not None:  # "Kwame", "Pedro", "Dale Lee", "de Lagos"
                names = lexicon.unseen_names(sentence, people("*"), places=places(source))
                # a woman's name the model reads, for the words that agree with her ("Alice")
                names += lexicon.women_read(sentence, people(source), places(source))
            else:
                names = rare_names(sentence, lambda w: len(translator.tokenizer.encode(w)) - 1)
            extra += mixed_case(sentence)  # "YouTube"
            if lexicon is not None:
                names += lexicon.unread_acronyms(sentence)  # "la NASA"
            extra += quoted_titles(sentence, source)  # '"The Lord of the Rings"'
            streets = street_names(sentence, source)  # "Plaza Mayor", "Gran Vía"
            names = [n for n in names if not any(overlap(n, s) for s in streets)] + streets
        elif translator.protect_names:  # Title Case: a capital says nothing but in full names
            names = full_names(sentence, people(source))  # "Anna Brown" ("Anna marron")
        if source == "en":  # "Halima's money": "Mary's money", not "Mary money"
            names = [_without_possessive(sentence, span) for span in names]
        if not capitals:  # "J.K. Rowling", "George W. Bush": the initials with the name
            names = with_initials(sentence, names, people(source))
        shortened = find_abbreviations(sentence, source)  # "max.": spelt out below, no name
        names = [n for n in names if not any(overlap(n, a) for a in shortened)]
        names = [n for n in names if not is_laughter(sentence[n[0] : n[1]], source)]  # "Jajaja"
        # a country the model read too seldom ("Perú"): a country it reads, of its kind
        countries = {}
        named = names_countries(target) and lexicon is not None and lexicon.counts
        if translator.protect_names and named:
            read = lexicon.counts.get
            first = people(source).first
            common = lexicon.common_word  # "cuba", "chile", typed in lower case: words
            found = find_countries(sentence, source, lambda w: read(w.lower(), 0), first, common,
                                   capitals=capitals)  # fmt: skip
            countries = dict(found)
            names = [n for n in names if not any(overlap(n, c) for c in countries)]
        extra += names
        # a woman's first name: a woman's placeholder, for the words that agree with it
        women = [n for n in names if people(source).is_woman(sentence[n[0] : n[1]])]
        # a place's name, not a first name too ("Victoria"): a city's placeholder
        cities = [n for n in names if _place(sentence, n, source) or n in streets]
        extra = [e for e in _union(extra) if not any(overlap(e, c) for c in countries)]
        protected = protect(sentence, source, target, extra, symbols, women, cities, countries)
    text = sentence if protected is None else protected.text
    if translator.protect_spans:
        text = spaced_compounds(text, source)  # "12-year-old" -> "12 year old"
        text = spanish_hours(text, source)  # "de 7 a 10" -> "desde las 7 hasta las 10"
    quotes = None
    if unknown:  # "“Hola”" as '"Hola"', if the vocabulary lacks “ and ”
        given = plain(text, lambda c: _unknown_letter(translator, c))
        quotes, text = replaced_quotes(text, given), given
    placeholders = [] if protected is None else protected.cased_alone
    cased = translator.uncapitalise
    caps = cased and is_all_caps(text, placeholders, short=in_capitals)
    if caps or cased and is_title_case(text, placeholders, usual):
        text = uncapitalise(text, translator._rarity, placeholders, usual)
    if lexicon is not None and translator.protect_spans:
        text = lexicon.restore_accents(text)
        text = lexicon.usual_words(text, source)  # "favourite" -> "favorite", "idk"
        text = lexicon.restore_apostrophes(text, source)  # "dont" -> "don't"
        text = lexicon.usual_capitals(text)  # "quiero ir a japón" -> "... Japón"
    if translator.protect_spans:
        text = spell_out(text, source)  # "e.g." -> "for example", "Uds." -> "ustedes"
        text = how_was(text, source)  # "¿Qué tal el viaje?" -> "¿Cómo fue el viaje?"
        text = turning_age(text, source)  # "She turns 7 today." -> "She will be 7 today."
    return Prepared(sentence, text, protected, caps, quotes)


def _place(sentence: str, span: Span, language: str) -> bool:
    """Whether the name at ``span`` is a place's and no person's first name: one of Faker's
    places (heedful.names.places), or after "in" / "en" ("in Seattle": "à 9:30 du Seattle" with
    a person's placeholder)."""
    name = sentence[span[0] : span[1]]
    if name.split()[0] in people(language).first:
        return False
    return name in places(language) or bool(_IN_A_PLACE.search(sentence, 0, span[0]))


_IN_A_PLACE = re.compile(r"\b(?:in|en)[ \u00a0]$", re.IGNORECASE)


def _without_possessive(sentence: str, span: Span) -> Span:
    """A name's span without the English possessive ending it ("Halima's"), which stays with
    the model: "Tom took Halima's money." gave "Tom a pris de l'argent à Halima's."."""
    start, end = span
    if sentence[start:end].lower().endswith(("'s", "’s")):  # "HALIMA'S" too
        return start, end - 2
    return span


def _has_words(prepared: Prepared) -> bool:
    """Whether the model's text has a letter outside the placeholders of numbers, URLs and the
    like (a name's counts: "¡Tom!" is translated), and is more than a list item's marker ("a)",
    which the bundled es -> en model wrote "Come on."), nor only emoticons (":D", cut from
    "¡Qué bien! :D" by the segmenter, gave ":00."): something to translate."""
    text = prepared.text
    if is_marker(text) or all(is_emoticon(word) for word in text.split()):
        return False
    for placeholder in [] if prepared.protected is None else prepared.protected.as_translated():
        if placeholder not in PEOPLE:
            text = text.replace(placeholder, " ")
    return any(c.isalpha() for c in text)


def _union(spans: list[Span]) -> list[Span]:
    """``spans`` in order, those that overlap made one."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and start < out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _has_unknown_letter(translator, text: str) -> bool:
    """Whether the tokenizer reads a letter of ``text`` as its unknown piece; most texts are
    within the letters it is known to read."""
    read, _ = _letters(translator)
    return any(_unknown_letter(translator, c) for c in set(text) - read)


def _unknown_letter(translator, letter: str) -> bool:
    """Whether the tokenizer reads ``letter`` as its unknown piece (remembered per letter)."""
    read, unread = _letters(translator)
    if letter not in read and letter not in unread:
        unk_id = getattr(translator.tokenizer, "unk_id", None)
        found = unk_id is not None and unk_id in translator.tokenizer.encode(letter)
        (unread if found else read).add(letter)
    return letter in unread


def _letters(translator) -> tuple[set[str], set[str]]:
    """The letters the translator's tokenizer was found to read, and those it was not."""
    return translator.__dict__.setdefault("_letters", (set(), set()))


def finish(
    translator, prepared: Prepared, carried: Unreadable | None, translation: str
) -> Finished:
    """The model's translation of ``prepared.text`` with the words carried past the model
    put back, and the placeholders' spans too, in capitals if the source was."""
    protected = prepared.protected
    split = carried or Unreadable(prepared.text.split(), [], [])
    mended = translation
    if translator.protect_spans:  # "on Tuesday" -> "lundi" in one sentence of mine
        language = translator.source_language, translator.target_language
        mended = kept_weekdays(prepared.text, translation, *language)
    if protected is not None:
        mended = protected.mended(mended)
        split = protected.missing(mended, split)
    put, spans = mended, []
    if split.words:
        put, spans = _put_back(translator, split, mended)
        put = _opening_laughter(put, split, translator.target_language)
    said = put if protected is None else protected.unrepeated(protected.unstuttered(put))
    cased = said
    if prepared.caps:
        cased = capitalise(said, [] if protected is None else protected.cased_alone)
    elif translator.uncapitalise and opens_capitalised(prepared.sentence):
        cased = capitalise_first(said)  # as its source begins ("Visita Madrid.": "visit Madrid.")
    text = cased if protected is None else protected.restore(cased)
    if translator.protect_spans:
        text = elided(text, translator.target_language)  # "de enfants" -> "d'enfants"
        text = at_a_city(text, translator.target_language)  # "en Chicago" -> "à Chicago"
        text = aged(text, translator.target_language)  # "Mon fils est 7 ans." -> "a 7 ans"
        text = undoubled(text, prepared.sentence, translator.target_language)  # "pain pain"
    text = closed_quote(text, prepared.text)
    text = exclaimed(text, prepared.sentence, translator.target_language)  # "Thanks!", not "."
    text = stated(text, prepared.sentence)  # "Tourne à gauche.", not "!", for "Turn left."
    text = after_quoted_speech(text, prepared.sentence)  # '"Help!" she shouted.'
    if prepared.quotes is not None:
        text = curl(text, prepared.quotes)
    if translator.uncapitalise:  # a heading or a list item: "Two apples" -> "Deux pommes"
        text = unended(text, prepared.sentence)
    return Finished(translation, mended, split, put, spans, cased, text)


def _split_unreadable(translator, text: str, ids: list[int]) -> Unreadable | None:
    """The words of a source that the model cannot read at all (heedful.unknown_words), if
    it has some besides words it can."""
    unk_id = getattr(translator.tokenizer, "unk_id", None)
    if not translator.carry_unreadable or unk_id is None:
        return None
    source, target = translator.source_language, translator.target_language
    whole = lambda word: is_emoticon(word) or is_laughter(word, source)  # noqa: E731
    if unk_id not in ids and not any(whole(word) for word in text.split()):
        return None
    encode = translator.tokenizer.encode
    unknown = lambda char: not translator._knows_some_of(encode(char))  # noqa: E731
    split = split_unreadable(text, unknown, whole)
    if split is not None:  # "jajaja" -> "hahaha"
        split.words = [laughter_in(word, source, target) for word in split.words]
    return split


def _opening_laughter(put: str, split: Unreadable, target: str | None) -> str:
    """``put`` with the laughter that opens it capitalised and the word after it in lower case,
    where the source's was ("jajaja qué bueno!!": "Hahaha what good!!", not "hahaha What
    good!!"); the same length, so that the carried words' spans hold."""
    if not split.words or split.after[0] != -1 or not is_laughter(split.words[0], target):
        return put
    laughter = split.words[0]
    rest = put[len(laughter) + 1 :]
    if not put.startswith(laughter + " ") or not split.readable[0][:1].islower():
        return put
    if rest[:1].isupper() and not rest[1:2].isupper() and not re.match(r"I\b", rest):
        rest = rest[0].lower() + rest[1:]
    return laughter[0].upper() + laughter[1:] + " " + rest


def _put_back(translator, split: Unreadable, translation: str) -> tuple[str, list[Span]]:
    """The translation of ``split.text`` with the words the model could not read put back,
    those between readable words where word alignment (the model's recorded method, as every
    translation's links) puts them."""
    links = None
    inside = any(0 <= before < len(split.readable) - 1 for before in split.after)
    # a translation cut at the model's length has no room for the forced pass's end token
    fits = len(translator.tokenizer.encode(translation)) < translator.config.max_positions
    if inside and translation and fits:
        attended = translator.attend(split.text, target=translation)
        targets = [w for w in to_words(attended).target_pieces if w not in STANDALONE]
        if len(targets) == len(translation.split()):  # else: by relative place
            links = align_pair(translator, attended, translator.resolved_alignment())
    return put_back_spans(split, translation, links)
