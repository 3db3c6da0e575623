"""Paragraphs: cut into sentences by pysbd, translated in one batch, joined with the original
spacing (heedful.segment and Translator.translate), on a tiny random model and a bundled one."""

from __future__ import annotations

import pytest
import torch

from heedful.bundled import model_dir
from heedful.config import ModelConfig
from heedful.model import Transformer
from heedful.segment import Paragraph, SentenceSplitter
from heedful.tokenizer import Tokenizer
from heedful.translator import Translator

SENTENCES = ["el gato come pescado.", "¿dónde está la casa?", "un perro grande!", "hola mundo."]
SHORT = dict(beam_size=2, max_length=8)  # a random model's translations, cut short


@pytest.fixture(scope="module")
def translator():
    tokenizer = Tokenizer.train(SENTENCES * 30, vocab_size=70)
    torch.manual_seed(3)  # a model whose translations of SENTENCES differ
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0)).eval()
    with torch.no_grad():  # sharper distributions than the initialisation's: fewer near-ties
        model.generator.weight.mul_(4.0)
    return Translator(model, tokenizer, {"data": {"src": "es", "tgt": "en"}})


def test_a_paragraph_is_cut_into_its_sentences_and_joined_with_what_stood_between():
    text = "  Hola.  ¿Qué tal?\tMe llamo Ana.\n\n Adiós. \n"
    paragraph = SentenceSplitter("es").split(text)
    assert paragraph.sentences == ["Hola.", "¿Qué tal?", "Me llamo Ana.", "Adiós."]
    assert paragraph.join(["A", "B", "C", "D"]) == "A  B\tC\n\n D"  # nothing outside added
    assert paragraph.join(paragraph.sentences) == text.strip()
    with pytest.raises(ValueError, match="4 sentences, but 3 translations"):
        paragraph.join(["A", "B", "C"])
    for blank in ["", "  \n\t "]:
        assert SentenceSplitter("es").split(blank).sentences == []


def test_a_run_of_marks_before_a_capital_ends_a_sentence():
    """pysbd made "Wow!!! You're the best." one sentence, and the model gave "Waou ! Tu es le
    meilleur." ("Really??? I can't believe it." -> "Alors ? Je n'arrive pas ...")."""
    split = SentenceSplitter("en").split
    assert split("Wow!!! You're the best.").sentences == ["Wow!!!", "You're the best."]
    assert split("Really?!? What?? Yes.").sentences == ["Really?!?", "What??", "Yes."]
    assert split("Wow!!! you're the best.").sentences == ["Wow!!! you're the best."]  # small
    assert SentenceSplitter("es").split("¡¡¡Gracias!!! ¿Vienes?").sentences == [
        "¡¡¡Gracias!!!", "¿Vienes?"]  # fmt: skip


def test_a_run_of_marks_keeps_its_sentence_through_the_bundled_models():
    en_fr, es_en = (Translator.load(model_dir(name)) for name in ("en-fr", "es-en"))
    assert en_fr.translate(["Thanks!!! You're the best :)"]) == ["Merci !!! Tu es le meilleur :)"]
    assert es_en.translate(["¡¡¡Gracias!!! Eres el mejor :)"]) == [
        "Thank you!!! You're the best :)"]  # fmt: skip


def test_a_list_items_marker_is_no_part_of_its_sentence_and_comes_back_before_it():
    text = "- Compra pan.\n  • Abre la puerta. Entra.\n2. Cierra.\na) Sí.\n-5 grados.\n- \n—Hola."
    paragraph = SentenceSplitter("es").split(text)
    assert paragraph.sentences == [
        "Compra pan.", "Abre la puerta.", "Entra.", "Cierra.", "Sí.", "-5 grados.", "-",
        "—Hola."]  # fmt: skip
    translations = ["Buy bread.", "Open the door.", "Come in.", "Close.", "Yes.", "-5", "-", "—Hi."]
    joined = paragraph.join(translations)
    assert joined == ("- Buy bread.\n  • Open the door. Come in.\n2. Close.\na) Yes.\n-5\n- \n—Hi.")
    for start, translation in zip(paragraph.places(translations), translations, strict=True):
        assert joined[start : start + len(translation)] == translation
    assert SentenceSplitter("es").split("   1. Hola.").join(["Hello."]) == "1. Hello."


def test_markdowns_headings_and_tasks_keep_their_markers():
    """Before: "## Cómo empezar" went to the model whole and came back "## I can start."."""
    text = "# Introducción\n## Cómo empezar\n- [ ] Comprar pan\n- [x] Hecho.\n#hashtag sí"
    paragraph = SentenceSplitter("es").split(text)
    assert paragraph.sentences == [
        "Introducción", "Cómo empezar", "Comprar pan", "Hecho.", "#hashtag sí"]  # fmt: skip
    assert paragraph.join(["A", "B", "C", "D.", "E"]) == "# A\n## B\n- [ ] C\n- [x] D.\nE"
    out = Translator.load(model_dir("es-en")).translate(["## Cómo empezar"])[0]
    assert out.startswith("## ") and not out.endswith("."), out


def test_a_list_item_keeps_its_marker_through_a_bundled_model():
    """Before: "- Primero: el vuelo sale a las 8:45." gave "On the flight, the flight leaves
    at 8:45."; the model dropped the marker."""
    es_en = Translator.load(model_dir("es-en"))
    out = es_en.translate(["- Compra pan.\n- Abre la puerta.\n1. Cierra la ventana."])[0]
    lines = out.split("\n")
    assert [line[:2] for line in lines] == ["- ", "- ", "1."], out
    assert "bread" in lines[0] and "door" in lines[1] and "window" in lines[2], out


def test_a_cut_inside_a_span_kept_whole_is_undone_and_a_wordless_piece_joins_a_sentence():
    text = "Mira https://example.org/docs?id=42 ahora. Gracias."
    url = (text.index("https"), text.index(" ahora"))
    splitter = SentenceSplitter("es")
    assert len(splitter.split(text).sentences) == 3, "pysbd no longer cuts the URL at '?'"
    assert splitter.split(text, [url]).sentences == ["Mira https://example.org/docs?id=42 ahora.",
                                                      "Gracias."]  # fmt: skip
    # a piece without a letter or digit stays with a sentence of its own line
    assert splitter.split("¡Hola! 😀 ... Adiós.").sentences == ["¡Hola! 😀 ...", "Adiós."]
    assert splitter.split("😀\nHola.").sentences == ["😀", "Hola."]  # lines stay apart


@pytest.mark.parametrize(
    ("language", "text", "sentences"),
    [
        ("es", "Mañana veo al Sr. Pérez en la Av. Libertador. Luego como.", 2),
        ("es", "Hablé con la Dra. García y el Ing. Ruiz, Sr. Pérez.", 1),
        ("fr", "J'ai vu le Dr. Martin hier. Il va bien.", 2),
        # a person's title opening a line: pysbd cut "Sr. | García llegó tarde."
        ("es", "Sr. García llegó tarde. Luego se fue.", 2),
        ("es", "Dra. Gil, venga.", 1),
        # in capitals too (pysbd cut "EL SR. | GARCÍA LLEGÓ TARDE.")
        ("es", "EL SR. GARCÍA LLEGÓ TARDE. LUEGO SE FUE.", 2),
        ("es", "SR. GARCÍA LLEGÓ.", 1),
        ("es", "SAL. HACE FRÍO.", 2),
        # what stays cut: a sentence's end after an abbreviation in lower case, or one alone
        ("es", "Compré pan, leche, etc. Luego me fui.", 2),
        ("es", "Vivo en EE. UU. Me gusta.", 2),
        ("fr", "Bien. Je suis d'accord.", 2),
        ("es", "Sal. Hace frío.", 2),  # "sal" is in pysbd's abbreviations, but no person's title
        ("en", "I work at Acme Inc. It is great.", 2),  # English keeps pysbd's own cuts
        # an abbreviation's last part before a small letter: pysbd cut "EE.UU. | dos años" and
        # "a las 5 p. | m. | y se fue" (the model made "Two years old." and "m. They left.")
        ("es", "Viví en EE.UU. dos años. Luego volví.", 2),
        ("es", "Llegó a las 5 p. m. y se fue.", 1),
        ("es", "tengo hambre. quiero comer", 2),  # casual typing: a word, not an abbreviation
        # an abbreviation of the language's list before a small letter: pysbd cut "¿Uds. |
        # vienen?" (the model made "Do you go. They're coming?")
        ("es", "¿Uds. vienen? Sí.", 2),
        ("es", "Compré pan, etc. luego me fui.", 1),
        ("es", "Tengo pan. luego voy", 2),  # casual typing after a word the list lacks
        # an abbreviation heedful.abbreviations spells out, before a small letter or a digit
        ("en", "It costs approx. 50 dollars.", 1),
        ("es", "Cuesta aprox. 50 euros. Él pagó.", 2),
        ("en", "I met Max. 25 people came.", 2),  # a name
    ],
)
def test_a_title_before_a_name_ends_no_sentence(language, text, sentences):
    """pysbd 0.3.4 cuts "el Sr. | Pérez" and "le Dr. | Martin"; heedful undoes such cuts."""
    found = SentenceSplitter(language).split(text).sentences
    assert len(found) == sentences, found
    assert " ".join(found) == text


def test_a_language_pysbd_lacks_gets_the_english_rules():
    assert SentenceSplitter("xx").language == SentenceSplitter(None).language == "en"
    assert SentenceSplitter("fr").language == "fr"


@pytest.mark.parametrize(
    "failure", ["raises", "overlapping spans", "a character outside every sentence"]
)
def test_a_line_the_segmenter_fails_on_is_translated_whole_with_a_warning(translator, failure):
    class Broken:
        def segment(self, line):
            if failure == "raises":
                raise IndexError("list index out of range")
            if failure == "overlapping spans":
                return [Span(0, 10), Span(5, len(line))]
            return [Span(0, 4), Span(6, len(line))]

    class Span:
        def __init__(self, start, end):
            self.start, self.end = start, end

    text = SENTENCES[0] + " " + SENTENCES[1]
    splitter = SentenceSplitter("es")
    splitter._segmenter = Broken()
    with pytest.warns(UserWarning, match=r"sentence splitter \(pysbd, 'es'\) failed on 'el gato"):
        assert splitter.split(text).sentences == [text]
    saved, translator._splitter = translator._splitter, splitter
    try:
        with pytest.warns(UserWarning, match="translating the line as one sentence"):
            out = translator.translate([text], **SHORT)
    finally:
        translator._splitter = saved
    translator.split_sentences = False
    try:
        assert out == translator.translate([text], **SHORT)
    finally:
        translator.split_sentences = True


def recorded_sources(translator, monkeypatch):
    """The sources each call of translator.generate receives."""
    calls = []
    generate = translator.generate

    def recording(src_ids, *args, **kwargs):
        calls.append([translator.tokenizer.decode(ids) for ids in src_ids])
        return generate(src_ids, *args, **kwargs)

    monkeypatch.setattr(translator, "generate", recording)
    return calls


def test_every_sentence_of_every_text_goes_to_the_model_in_one_batch(translator, monkeypatch):
    alone = translator.translate(SENTENCES, **SHORT)
    assert len(set(alone)) == len(alone) and all(alone), "the tiny model's outputs are not distinct"
    texts = [
        f"{SENTENCES[0]}  {SENTENCES[1]}\t{SENTENCES[2]}",
        "",
        f"{SENTENCES[3]}\n\n{SENTENCES[0]}",
        SENTENCES[1],
    ]
    calls = recorded_sources(translator, monkeypatch)
    out = translator.translate(texts, **SHORT)
    assert calls == [[*SENTENCES[:3], SENTENCES[3], SENTENCES[0], SENTENCES[1]]]
    a, b, c, d = alone
    assert out == [f"{a}  {b}\t{c}", "", f"{d}\n\n{a}", b]


def test_splitting_can_be_turned_off(translator, monkeypatch):
    text = f"{SENTENCES[0]} {SENTENCES[1]}"
    calls = recorded_sources(translator, monkeypatch)
    translator.split_sentences = False
    try:
        translator.translate([text], **SHORT)
    finally:
        translator.split_sentences = True
    assert calls == [[text]]


def test_a_paragraphs_n_best_combine_its_sentences_best_by_summed_score(translator):
    first, second = SENTENCES[0], SENTENCES[2]
    parts = translator.translate_n_best([first, second], 3, n_best=3, max_length=8)
    options = translator.translate_n_best([f"{first} {second}"], 3, n_best=3, max_length=8)[0]
    expected = sorted(
        ((x.score + y.score, f"{x.text} {y.text}", x.tokens + y.tokens)
         for x in parts[0] for y in parts[1]),
        key=lambda option: -option[0],
    )[:3]  # fmt: skip
    assert [(o.text, o.tokens) for o in options] == [(t, ids) for _, t, ids in expected]
    assert [o.score for o in options] == pytest.approx([s for s, _, _ in expected])


def test_sampling_translates_a_paragraph_sentence_by_sentence(translator, monkeypatch):
    from heedful.translator import Sampling

    calls = recorded_sources(translator, monkeypatch)
    text = f"{SENTENCES[0]} {SENTENCES[1]}"
    options = translator.translate_n_best([text], 4, n_best=2, sampling=Sampling(seed=1))[0]
    assert calls == [SENTENCES[:2]]
    assert len(options) == 2 and options[0].score >= options[1].score


def test_a_sentence_the_model_cannot_read_stays_in_its_paragraph_with_a_warning(translator):
    with pytest.warns(UserWarning, match="1 source holds only characters outside"):
        out = translator.translate([f"{SENTENCES[3]} 中文。 {SENTENCES[0]}"], **SHORT)[0]
    a, d = translator.translate([SENTENCES[0], SENTENCES[3]], **SHORT)
    assert out == f"{d} 中文。 {a}"


def test_a_real_paragraph_comes_back_with_as_many_sentences_in_order():
    """Given the whole line, the bundled en -> fr model translated two of these three sentences
    ("J'ai un chat. Elle dort toute la journée.")."""
    en_fr = Translator.load(model_dir("en-fr"))
    sentences = ["I have a cat.", "She is black.", "She sleeps all day."]
    whole = en_fr.translate(["  ".join(sentences)])[0]
    alone = en_fr.translate(sentences)
    assert whole == "  ".join(alone)
    assert len(SentenceSplitter("fr").split(whole).sentences) == 3


def test_paragraph_of_no_sentence_joins_to_nothing():
    assert Paragraph("   ", []).join([]) == ""


def test_a_line_with_no_sentence_mark_before_its_last_word_is_one_sentence_without_pysbd(
    monkeypatch,
):
    splitter = SentenceSplitter("es")
    lines = ["Tengo un perro.", "donde esta el baño", "¡¡Qué bien!!", "Vale...  ", "Cuesta 3,50."]
    lines += ["¿Qué? No sé.", "El Sr. García vino.", "Cuesta 3.50 euros.", "a; b", "Hola. Adiós"]
    expected = {line: splitter._cut(line) for line in lines}
    asked = []
    segment = splitter._segmenter.segment
    monkeypatch.setattr(splitter._segmenter, "segment", lambda t: asked.append(t) or segment(t))
    for line in lines:
        pysbd = [(s.start, s.end) for s in segment(line)]
        assert splitter._cut(line) == expected[line]
        if line in lines[:5]:  # not asked: pysbd's own answer all the same
            assert expected[line] == [_strip_of(line, pysbd[0])] and len(pysbd) == 1
    assert asked == lines[5:]  # only lines with a mark inside went to pysbd


def _strip_of(line, span):
    start, end = span
    text = line[start:end]
    return start + len(text) - len(text.lstrip()), end - len(text) + len(text.rstrip())
