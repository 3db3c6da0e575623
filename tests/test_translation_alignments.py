"""Word alignments with every translation (``Translator.translate(..., alignments=True)``,
``heedful translate --alignments``): on the bundled models, links index the right characters of
the text given and of the translation, and are the model's own links for that translation; the
method plumbing on hand-built attention."""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import replace

import pytest
import torch

from heedful import decoding
from heedful.bundled import model_dir
from heedful.cli import main
from heedful.config import ModelConfig
from heedful.explain.alignment_choice import align_pair
from heedful.explain.alignment_methods import AlignmentMethod, source_words, target_words
from heedful.explain.alignment_spans import trim, utf16_links, word_links
from heedful.model import Transformer
from heedful.protect import NAMES
from heedful.textmap import TextMap
from heedful.tokenizer import Tokenizer
from heedful.translator import Translation, Translator

URL, EMAIL = "https://example.org/docs?id=42", "ana.garcia@example.com"


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def words(text: str) -> set[tuple[int, int]]:
    """The spans a link may have: each whitespace-separated word without its punctuation."""
    return {trim(text, m.span()) for m in re.finditer(r"\S+", text)}


def check_indexes(source: str, translation: Translation, spans: list[str] = ()) -> None:
    """Every link names the characters it indexes, and they are words of their texts (or
    protected ``spans``, which may hold spaces)."""
    assert translation.alignment, f"no links for {source!r}"
    found = {(m.start(), m.end()) for span in spans for m in re.finditer(re.escape(span), source)}
    made = {(m.start(), m.end()) for span in spans
            for m in re.finditer(re.escape(span), translation.text)}  # fmt: skip
    for link in translation.alignment:
        assert source[slice(*link.source)] == link.source_word
        assert translation.text[slice(*link.target)] == link.target_word
        assert link.source in words(source) | found, link
        assert link.target in words(translation.text) | made, link


def models_links(translator: Translator, source: str, target: str) -> list[tuple[int, int]]:
    """The model's links for the pair, by forced decoding of that one pair (Translator.attend)
    and the model's method: what the translation's links must be."""
    method = translator.resolved_alignment()
    return sorted(align_pair(translator, translator.attend(source, target), method))


# --- the bundled models --------------------------------------------------------------------


def test_a_plain_sentences_links_are_the_models_own_for_its_translation(bundled):
    translator, text = bundled["es-en"], "El gato negro duerme en el jardín."
    (found,) = translator.translate([text], alignments=True)
    check_indexes(text, found)
    plain = translator.translate_n_best([text])[0][0]
    assert (found.text, found.score, found.tokens) == (plain.text, plain.score, plain.tokens)
    assert {link.target for link in found.alignment} == words(found.text)  # argmax: every word
    assert word_links(found.alignment, text, found.text) == models_links(
        translator, text, found.text
    )


def test_under_beam_search_each_of_the_n_best_has_the_links_of_its_own_text(bundled):
    translator = bundled["en-fr"]
    texts = ["I love my little black cat.", "Where is the train station?"]
    results = translator.translate_n_best(texts, 4, n_best=3, alignments=True)
    for text, options in zip(texts, results, strict=True):
        assert len({o.text for o in options}) == 3
        for option in options:
            check_indexes(text, option)
            expected = models_links(translator, text, option.text)
            assert word_links(option.alignment, text, option.text) == expected


def test_a_paragraphs_links_are_its_sentences_moved_to_their_places(bundled):
    translator = bundled["es-en"]
    sentences = ["El gato duerme.", "El perro come pescado.", "La casa es grande."]
    text = f"{sentences[0]}  {sentences[1]}\n{sentences[2]}"
    (whole,) = translator.translate([text], alignments=True)
    check_indexes(text, whole)
    expected, at, at_translation = [], 0, 0
    for sentence, alone in zip(sentences, translator.translate(sentences, alignments=True),
                               strict=True):  # fmt: skip
        at = text.index(sentence, at)
        at_translation = whole.text.index(alone.text, at_translation)
        expected += [link.shifted(at, at_translation) for link in alone.alignment]
    assert sorted(whole.alignment) == sorted(expected)
    assert max(link.source[1] for link in whole.alignment) > text.index(sentences[2])


def test_all_caps_links_the_words_as_written_to_the_translation_in_capitals(bundled):
    translator = bundled["es-en"]
    cased, shouted = "Tengo un perro muy grande.", "TENGO UN PERRO MUY GRANDE."
    (found,) = translator.translate([shouted], alignments=True)
    (as_cased,) = translator.translate([cased], alignments=True)
    check_indexes(shouted, found)
    assert found.text == as_cased.text.upper() != as_cased.text
    assert all(link.source_word.isupper() for link in found.alignment)
    pairs = word_links(found.alignment, shouted, found.text)
    assert pairs == word_links(as_cased.alignment, cased, as_cased.text)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("en-fr", "Contact us"),  # the model's "?" left out: "Contactez-nous"
        ("en-fr", "She said \u201chello\u201d to Kwame"),  # quotes, a name, no final mark
        ("es-en", "Me voy de #vacaciones con @juan."),
        ("es-en", "Hola. 3,5."),  # a line without words, kept
        ("es-en", "- Compra pan.\n- Abre la puerta."),  # list markers
    ],
)
def test_links_index_the_text_after_every_real_input_step(bundled, name, text):
    (found,) = bundled[name].translate([text], alignments=True)
    check_indexes(text, found, ["#vacaciones", "@juan"])
    assert all(link.target_word for link in found.alignment)


@pytest.mark.parametrize(
    ("name", "text", "spans"),
    [
        ("en-fr", f"Visit {URL} for details.", [URL]),
        ("es-en", f"Mi web es {URL} y mi correo ({EMAIL}).", [URL, EMAIL]),
        ("es-en", "Llama al 612 345 678, por favor.", ["612 345 678"]),
        ("es-en", "Hola {name}, tienes %d mensajes nuevos.", ["{name}", "%d"]),
    ],
)
def test_a_protected_span_links_to_itself(bundled, name, text, spans):
    """A URL (or address, or number) in the source links to the same span in the translation,
    and to nothing else: the placeholder the model saw is never shown."""
    (found,) = bundled[name].translate([text], alignments=True)
    check_indexes(text, found, spans)
    for span in spans:
        start = text.index(span)
        touching = [k for k in found.alignment if k.source[0] < start + len(span) <= k.source[1]
                    or start <= k.source[0] < start + len(span)]  # fmt: skip
        at = found.text.index(span)
        assert [(k.source, k.target) for k in touching] == [
            ((start, start + len(span)), (at, at + len(span)))
        ], found
        assert touching[0].source_word == touching[0].target_word == span
        assert [k.target for k in found.alignment if k.target_word == span] == [touching[0].target]
    assert not any(link.target_word in NAMES for link in found.alignment)
    # every other word is linked too when each target word is linked (argmax; the recorded
    # intersection keeps those of its links the other direction agrees on), though the model may
    # attend to the placeholder
    translator = bundled[name]
    try:
        translator.alignment_method = replace(translator.resolved_alignment(), links="argmax")
        (argmax,) = translator.translate([text], alignments=True)
    finally:
        translator.alignment_method = None
    pairs = {(k.source, k.target) for k in argmax.alignment}
    assert {(k.source, k.target) for k in found.alignment} <= pairs
    outside = argmax.text
    for span in spans:
        outside = outside.replace(span, " " * len(span))
    others = {(s, e) for s, e in words(outside) if any(c.isalnum() for c in outside[s:e])}
    assert others <= {k.target for k in argmax.alignment}


def test_a_word_carried_past_the_model_links_to_where_it_was_put_back(bundled):
    translator = bundled["es-en"]
    text = "Hola, ¿qué tal? 😀 Estoy bien. 中文。"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "中文。" is left untranslated, with a warning
        (found,) = translator.translate([text], alignments=True)
    check_indexes(text, found)
    carried = [
        (k.source_word, k.target_word) for k in found.alignment if not k.source_word.isascii()
    ]
    assert ("😀", "😀") in carried and ("中文", "中文") in carried
    emoji = next(k for k in found.alignment if k.source_word == "😀")
    assert emoji.source == (text.index("😀"), text.index("😀") + 1)
    assert emoji.target == (found.text.index("😀"), found.text.index("😀") + 1)
    # as a JavaScript page counts: UTF-16 code units, an emoji two of them
    units = utf16_links(found.alignment, text, found.text)
    assert units != found.alignment
    for link in units:
        for given, (start, end), word in [(text, link.source, link.source_word),
                                          (found.text, link.target, link.target_word)]:  # fmt: skip
            assert given.encode("utf-16-le")[2 * start : 2 * end].decode("utf-16-le") == word


def test_the_erase_method_when_chosen(bundled, monkeypatch):
    from heedful.explain import erasure

    erased = []

    def spy(model, src, *args):
        erased.append(src)
        return scores(model, src, *args)

    scores = erasure.erasure_scores
    monkeypatch.setattr(erasure, "erasure_scores", spy)
    translator = Translator.load(model_dir("es-en"))  # its own: the method is changed
    translator.alignment_method = AlignmentMethod("erase", links="grow-diag-final-and")
    text = "Mi hermano vive en Madrid."
    (found,) = translator.translate([text], alignments=True)
    assert len(erased) == 1
    check_indexes(text, found)
    assert word_links(found.alignment, text, found.text) == models_links(
        translator, text, found.text
    )
    assert bundled["es-en"].translate([text])[0] == found.text


# --- heedful translate -----------------------------------------------------------------------


def heedful(capsys, *argv: str) -> tuple[int, str]:
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


def test_json_and_pharaoh_output(capsys, bundled):
    texts = ["El gato negro duerme.", f"Escríbeme a {EMAIL} mañana.  Gracias."]
    code, out = heedful(capsys, "translate", "--model", model_dir("es-en"), "--json",
                        "--alignments", "--n-best", 2, *texts)  # fmt: skip
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [r["source"] for r in records] == texts
    for record in records:
        for entry in [record, *record["n_best"]]:
            links = entry["alignment"]
            assert links and set(links[0]) == {"source", "target", "source_word", "target_word"}
            for link in links:
                assert record["source"][slice(*link["source"])] == link["source_word"]
                assert entry["translation"][slice(*link["target"])] == link["target_word"]
    assert any(link["source_word"] == link["target_word"] == EMAIL
               for link in records[1]["alignment"])  # fmt: skip
    code, out = heedful(capsys, "translate", "--model", model_dir("es-en"), "--alignments", *texts)
    expected = bundled["es-en"].translate(texts, alignments=True)
    for line, text, found in zip(out.splitlines(), texts, expected, strict=True):
        translation, links = line.split(" ||| ")
        pairs = word_links(found.alignment, text, found.text)
        assert translation == found.text and links == " ".join(f"{i}-{j}" for i, j in pairs)
        n_source, n_target = len(text.split()), len(translation.split())
        assert all(i < n_source and j < n_target for i, j in pairs)
    code, out = heedful(capsys, "translate", "--model", model_dir("es-en"), "--json", texts[0])
    assert code == 0 and "alignment" not in json.loads(out)  # off unless asked for


def test_a_span_of_several_words_links_each_of_its_words():
    from heedful.explain.alignment_spans import WordLink

    source, target = "Ngozi Okafor nació el 3 de mayo.", "Ngozi Okafor was born on May 3."
    links = [
        WordLink((0, 12), (0, 12), "Ngozi Okafor", "Ngozi Okafor"),  # as many words: in order
        WordLink((22, 31), (25, 30), "3 de mayo", "May 3"),  # not as many: each to each
    ]
    assert word_links(links, source, target) == [(0, 0), (1, 1), (4, 5), (4, 6), (5, 5),
                                                 (5, 6), (6, 5), (6, 6)]  # fmt: skip


def test_align_without_a_target_counts_the_words_it_prints(capsys, bundled):
    """As translate --alignments: the model read "Tom" and "lunes", the user sees the name and
    the date, and the links count the words shown."""
    for text in ["Ngozi Okafor vive en Quito.", "Nací el 25 de diciembre de 2023 en Lima."]:
        code, aligned = heedful(capsys, "align", "--model", model_dir("es-en"), text)
        code_t, translated = heedful(capsys, "translate", "--model", model_dir("es-en"),
                                     "--alignments", text)  # fmt: skip
        assert code == code_t == 0 and aligned == translated
        translation, links = aligned.strip().split(" ||| ")
        pairs = [tuple(map(int, link.split("-"))) for link in links.split()]
        assert max(i for i, _ in pairs) < len(text.split())
        assert max(j for _, j in pairs) < len(translation.split())


# --- the method plumbing, on hand-built attention -----------------------------------------------

TEXTS = ["el gato come pescado", "hola mundo", "la casa es grande", "un perro negro"]
OUTPUTS = ["the cat eats fish", "hello world", "the house is big", "a black dog"]


@pytest.fixture(scope="module")
def tiny():
    tokenizer = Tokenizer.train((TEXTS + OUTPUTS) * 20, vocab_size=80)
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0)).eval()
    return model, tokenizer


def with_outputs(translator: Translator, monkeypatch) -> Translator:
    """The translator's search with OUTPUTS for translations (a random model's own are a piece
    repeated, one word), given as a batch's hypotheses, encoder output and all."""
    search, tokenizer = decoding._search, translator.tokenizer
    pairs = zip(TEXTS, OUTPUTS, strict=True)
    wanted = {tuple(tokenizer.encode(s)): tokenizer.encode(t) for s, t in pairs}

    def fixed(model, sources, *args, **kwargs):
        found, memory = search(model, sources, *args, **kwargs)
        return [[replace(h, tokens=wanted[tuple(ids)]) for h in hs]
                for ids, hs in zip(sources, found, strict=True)], memory  # fmt: skip

    monkeypatch.setattr(decoding, "_search", fixed)
    # batch by batch, through _search (heedful.continuous decodes without it)
    monkeypatch.setattr(decoding, "_continuous", lambda *args: False)
    return translator


def hand_built(tokenizer, calls):
    """A stand-in for forced_cross: head 0 looks from target word j at source word j, head 1 at
    source word -1 - j (modulo the source's words), in the rows that produce the word (or, in a
    full-context pass, read it)."""

    def forced_cross(model, pairs, layer, *, memories=None, batch_size=128, full_context=False):
        calls.append((layer, memories is not None, full_context))
        out = []
        for src, tgt in pairs:
            columns = [g[0] for g in source_words(tokenizer.pieces(src))]
            weights = torch.zeros(model.config.n_heads, len(tgt), len(src))
            for j, group in enumerate(target_words(tokenizer.pieces(tgt))):
                rows = [t + 1 for t in group] if full_context else group  # where it is read
                weights[0, rows, columns[j % len(columns)]] = 1.0
                weights[1, rows, columns[-1 - j % len(columns)]] = 1.0
            out.append(weights)
        return out

    return forced_cross


@pytest.mark.parametrize(
    ("record", "head", "layer"),
    [
        ({"method": "predict", "layer": 0, "heads": [1]}, 1, 0),
        ({"method": "predict", "layer": 1, "heads": [0], "chosen_on": "guided training"}, 0, 1),
        (None, None, 0),  # no record: the penultimate layer, every head (of 2 layers: the first)
        ({"method": "full", "layer": 1, "heads": [1]}, 1, 1),  # a full-context pass
    ],
)
def test_the_models_record_chooses_layer_and_heads(tiny, monkeypatch, record, head, layer):
    model, tokenizer = tiny
    calls = []
    monkeypatch.setattr("heedful.aligning.forced_cross", hand_built(tokenizer, calls))
    meta = {"alignment": record} if record else {}
    translator = with_outputs(Translator(model, tokenizer, meta), monkeypatch)
    results = translator.translate(TEXTS, 2, alignments=True)
    assert [found.text for found in results] == OUTPUTS
    # one pass for every text, reusing the encoder's output (a full-context one for "full")
    assert calls == [(layer, True, bool(record) and record["method"] == "full")]
    for text, found in zip(TEXTS, results, strict=True):
        n_source, n_target = len(text.split()), len(found.text.split())
        by_head = [{(j % n_source, j) for j in range(n_target)},
                   {(n_source - 1 - j % n_source, j) for j in range(n_target)}]  # fmt: skip
        got = set(word_links(found.alignment, text, found.text))
        if head is not None:
            assert got == by_head[head]
        else:  # the mean of both heads: a tie, which argmax breaks towards the first word
            assert got == {(min(j % n_source, n_source - 1 - j % n_source), j)
                           for j in range(n_target)}  # fmt: skip


def test_a_method_set_on_the_translator_wins_and_erasure_runs_no_attention_pass(tiny, monkeypatch):
    model, tokenizer = tiny
    calls, erased = [], []
    monkeypatch.setattr("heedful.aligning.forced_cross", hand_built(tokenizer, calls))

    def erasure_scores(model, src, tgt, source_pieces, target_pieces):
        erased.append(src)
        n_source, n_target = len(source_words(source_pieces)), len(target_words(target_pieces))
        return torch.eye(n_target, n_source).flip(1)  # target word j <- source word -1 - j

    monkeypatch.setattr("heedful.explain.erasure.erasure_scores", erasure_scores)
    record = {"alignment": {"method": "predict", "heads": [1]}}
    translator = with_outputs(Translator(model, tokenizer, record), monkeypatch)
    translator.alignment_method = AlignmentMethod("predict", layer=1, heads=(0,))
    (found,) = translator.translate([TEXTS[0]], 2, alignments=True)
    assert calls == [(1, True, False)] and not erased
    assert word_links(found.alignment, TEXTS[0], found.text) == [(j, j) for j in range(4)]
    translator.alignment_method = AlignmentMethod("erase")
    (found,) = translator.translate([TEXTS[0]], 2, alignments=True)
    assert len(calls) == 1 and len(erased) == 1
    assert word_links(found.alignment, TEXTS[0], found.text) == [(3 - j, j) for j in range(4)][::-1]


def test_a_generate_without_the_hook_still_gets_links_and_the_same(bundled, monkeypatch):
    """Translations the decoding hook did not see (a generate that drops it) are aligned after
    decoding, the sources encoded again: the links are the same."""
    translator = Translator.load(model_dir("es-en"))  # its own: generate is replaced
    texts = ["El gato negro duerme.", "Mi hermano vive en Madrid. ¿Y tú?"]
    expected = translator.translate(texts, alignments=True)
    generate = translator.generate
    monkeypatch.setattr(
        translator, "generate", lambda src, *a, on_batch=None, **k: generate(src, *a, **k)
    )
    assert translator.translate(texts, alignments=True) == expected


def test_the_batched_forced_pass_gives_each_pairs_own_attention(tiny):
    """forced_cross over a batch (with the encoder run there, or its output given) equals
    forced decoding of each pair alone, layer by layer; so does its full-context pass, padding
    kept out of the rows that now read the whole target."""
    from heedful.aligning import forced_cross

    model, tokenizer = tiny
    translator = Translator(model, tokenizer)
    pairs = [(tokenizer.encode(s), tokenizer.encode(t)) for s, t in zip(TEXTS, TEXTS[::-1],
                                                                          strict=True)]  # fmt: skip
    memories = [None] * len(pairs)

    def keep(batch, found, memory):  # the encoder's output, as decoding hands it over
        for row, k in enumerate(batch):
            memories[k] = memory.states[row, : len(pairs[k][0])]

    translator.generate([src for src, _ in pairs], 2, max_length=3, on_batch=keep)
    for layer in range(model.config.n_decoder_layers):
        batched = forced_cross(model, pairs, layer)
        reused = forced_cross(model, pairs, layer, memories=memories)
        for (src, tgt), a, b in zip(pairs, batched, reused, strict=True):
            alone = translator.attend_ids(src, tgt).cross[layer]
            assert a.shape == alone.shape == (model.config.n_heads, len(tgt), len(src))
            torch.testing.assert_close(a, alone, atol=1e-5, rtol=1e-4)
            torch.testing.assert_close(b, alone, atol=1e-5, rtol=1e-4)
        full = forced_cross(model, pairs, layer, memories=memories, full_context=True)
        for (src, tgt), a in zip(pairs, full, strict=True):
            alone = translator.attend_ids(src, tgt, full_context=True).cross_full[layer]
            torch.testing.assert_close(a, alone, atol=1e-5, rtol=1e-4)
            causal = translator.attend_ids(src, tgt).cross[layer]
            assert not torch.allclose(a[:, :-1], causal[:, :-1], atol=1e-3)  # reads ahead


def test_a_dropped_placeholder_links_its_span_to_where_it_was_put_back(tiny):
    """A random model never copies the placeholder: the address goes where alignment puts it,
    and links from the address in the source."""
    model, tokenizer = tiny
    translator = Translator(model, tokenizer, {"data": {"src": "es", "tgt": "en"}})
    text = f"el gato {EMAIL} come pescado"
    (found,) = translator.translate([text], 2, alignments=True)
    assert found.text.count(EMAIL) == 1
    start, at = text.index(EMAIL), found.text.index(EMAIL)
    span = (start, start + len(EMAIL))
    assert [(k.source, k.target) for k in found.alignment if k.source == span] == [
        (span, (at, at + len(EMAIL)))
    ]


# --- offsets through edits -----------------------------------------------------------------------


def test_text_maps_carry_spans_through_edits():
    text, forward = TextMap.replacing("Visit x.org/a now", [((6, 13), "Boston")])
    assert text == "Visit Boston now"
    assert forward.map((6, 13)) == (6, 12) and forward.map((14, 17)) == (13, 16)
    back = forward.inverse()
    assert back.map((6, 12)) == (6, 13) and back.map((7, 9)) == (6, 13)  # a piece maps whole
    assert back.map((0, 5)) == (0, 5) and back.map((13, 16)) == (14, 17)
    recased = TextMap.recased("la calle straße", "LA CALLE STRASSE")
    assert recased.map((9, 15)) == (9, 16) and recased.map((3, 8)) == (3, 8)
    moved = TextMap.diff("Te quiero ❤️.", "Te quiero.")
    assert moved.map((3, 9)) == (3, 9) and moved.map((12, 13)) == (9, 10)
    put_back = TextMap.diff("Open your dreams.", "Open Boston your dreams.")  # not "Ope|n Bosto|n"
    assert put_back.map((0, 4)) == (0, 4) and put_back.map((5, 9)) == (12, 16)
