"""The Translator on a tiny random model: batching, caching, attention capture, bad input, int8."""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import pytest
import torch

from heedful.beam_cache import BeamCache
from heedful.checkpoint import save_model_dir
from heedful.config import ModelConfig
from heedful.explain.align import align, penultimate
from heedful.explain.alignment_choice import align_pair
from heedful.explain.words import to_words
from heedful.inference import OneDNNInt8Linear, OneDNNLinear, for_inference, inference_copy
from heedful.lm import DecoderOnlyLM
from heedful.model import Transformer
from heedful.search import LengthPenalty, Stepped, beam_search, greedy_search
from heedful.tokenizer import Tokenizer
from heedful.translator import Sampling, Translator
from heedful.typography import undoubled
from heedful.unknown_words import is_emoticon, put_back, split_unreadable

TEXTS = [
    "el gato come pescado",
    "hola mundo",
    "buenos días a todos los amigos de la casa",
    "la casa es grande",
    "un perro",
    "¿dónde está la estación de tren?",
]


@pytest.fixture(scope="module")
def tokenizer():
    return Tokenizer.train(TEXTS * 20, vocab_size=80)


def make_model(tokenizer, seed=0, **overrides):
    torch.manual_seed(seed)
    config = ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0, **overrides)
    model = Transformer(config).eval()
    with torch.no_grad():  # sharper distributions than the initialisation's: fewer near-ties
        model.generator.weight.mul_(4.0)
    return model


@pytest.fixture(scope="module")
def translator(tokenizer):
    return Translator(make_model(tokenizer), tokenizer)


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory, tokenizer):
    directory = tmp_path_factory.mktemp("model")
    save_model_dir(directory, make_model(tokenizer), tokenizer, data={"src": "es", "tgt": "en"})
    return directory


def sources(tokenizer):
    return tokenizer.encode_batch(TEXTS)


def test_the_package_exports_the_translation_api():
    import heedful

    assert (heedful.Translator, heedful.Sampling) == (Translator, Sampling)
    assert {"Translator", "Translation", "Sampling", "LengthPenalty"} <= set(heedful.__all__)


def test_translate_keeps_order_and_blank_inputs_give_empty_text(translator):
    texts = ["hola mundo", "", "   \t", TEXTS[2], "hola mundo"]
    out = translator.translate(texts, beam_size=2)
    assert len(out) == 5 and out[1] == out[2] == ""
    assert out[0] == out[4] and isinstance(out[3], str)
    assert out[3] == translator.translate([TEXTS[2]], beam_size=2)[0]


@pytest.mark.parametrize("beam_size", [1, 4])
def test_batched_equals_one_by_one(translator, tokenizer, beam_size):
    src = sources(tokenizer)
    batched = translator.generate(src, beam_size, batch_size=4, max_length=15, n_best=1)
    for ids, hypotheses in zip(src, batched, strict=True):
        (alone,) = translator.generate([ids], beam_size, max_length=15)
        assert hypotheses[0].tokens == alone[0].tokens
        assert hypotheses[0].score == pytest.approx(alone[0].score, abs=1e-4)


@torch.no_grad()
def forced_log_prob(translator, src_ids, tokens):
    """log P(tokens | source) from one teacher-forced pass of the model."""
    start = translator.config.start_id
    logits = translator.model(torch.tensor([src_ids]), torch.tensor([[start, *tokens[:-1]]]))
    return float(logits[0].log_softmax(-1).gather(1, torch.tensor(tokens)[:, None]).sum())


def test_sampling_draws_beam_size_translations_and_keeps_the_n_best(translator, tokenizer):
    src = sources(tokenizer)

    def draw(n_best, seed=3):
        sampling = Sampling(temperature=5.0, top_p=0.98, seed=seed)
        return translator.generate(src, 5, n_best=n_best, max_length=12, sampling=sampling)

    every, kept = draw(5), draw(3)
    for ids, drawn, best in zip(src, every, kept, strict=True):
        assert [h.tokens for h in best] == [h.tokens for h in drawn[:3]]  # the same seed
        scores = [h.score for h in drawn]
        assert scores == sorted(scores, reverse=True)
        for h in drawn:
            assert h.log_prob == pytest.approx(forced_log_prob(translator, ids, h.tokens), abs=1e-4)
            assert h.score == pytest.approx(h.log_prob / LengthPenalty()(len(h.tokens)))
        assert len({tuple(h.tokens) for h in drawn}) > 1, "five draws, all the same"
    tokens = [[h.tokens for h in found] for found in kept]
    assert tokens != [[h.tokens for h in found] for found in draw(3, seed=4)]
    with pytest.raises(ValueError, match="n_best=6"):
        draw(6)
    with pytest.raises(ValueError, match="top_k must be >= 0"):
        translator.generate(src, 2, sampling=Sampling(top_k=-1))


def test_sampling_from_the_most_probable_token_only_is_greedy(translator, tokenizer):
    src = sources(tokenizer)
    greedy = translator.generate(src, 1, max_length=12)
    drawn = translator.generate(src, 1, max_length=12, sampling=Sampling(top_k=1, temperature=3))
    assert [h[0].tokens for h in drawn] == [h[0].tokens for h in greedy]


def test_beams_share_one_copy_of_the_cross_attention_keys_and_values(translator, tokenizer):
    """Beam rows read their sentence's cross-attention keys and values, kept once per sentence;
    the logits and weights equal those of a cache with a copy per beam, also after a sentence
    leaves the batch."""
    model = translator.model
    memory = model.encode(translator._pad(sources(tokenizer)[:3]))
    shared = BeamCache(model.start_decoding(memory), group=2)
    copied = model.start_decoding(memory)
    first = torch.tensor([0, 0, 1, 1, 2, 2])  # the first step: 2 beams from each sentence
    tokens = torch.randint(4, model.config.tgt_vocab_size, (6, 1), generator=torch.Generator())
    for step, index in enumerate([first, torch.tensor([3, 2, 4, 5])]):  # then sentence 0 leaves
        shared, copied = shared.reorder(index), copied.reorder(index)
        assert (
            shared.inner.cross_kv[0].k.shape[0] == index.numel() // 2 < copied.memory_mask.shape[0]
        )
        tokens = tokens[index] if step else tokens
        with torch.no_grad():
            a = model.decode_step(tokens, shared.inner, return_attention=True)
            b = model.decode_step(tokens, copied, return_attention=True)
        torch.testing.assert_close(a.logits, b.logits, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(a.attention.cross, b.attention.cross, atol=1e-6, rtol=1e-6)
        shared, copied = BeamCache(a.cache, 2), b.cache


@dataclass
class Uncached:
    """No cache at all: each step runs the whole decoder over the prefix again."""

    memory_src: torch.Tensor  # [B, S]
    prefix: torch.Tensor  # [B, t]

    def reorder(self, index):
        return Uncached(self.memory_src[index], self.prefix[index])


@pytest.mark.parametrize("beam_size", [1, 3])
def test_cached_equals_uncached_decoding(translator, tokenizer, beam_size):
    model, src_ids = translator.model, sources(tokenizer)
    src = translator._pad(src_ids)

    def uncached_step(tokens, cache):
        prefix = torch.cat([cache.prefix, tokens], dim=1)
        return Stepped(model(cache.memory_src, prefix)[:, -1], Uncached(cache.memory_src, prefix))

    start = torch.full((len(src_ids), 1), model.config.start_id)
    empty = Uncached(src, start[:, :0])
    common = dict(eos_id=model.config.eos_id, max_length=12, banned=translator.banned_ids())
    with torch.inference_mode():
        if beam_size == 1:
            expected = [[h] for h in greedy_search(uncached_step, empty, start, **common)]
        else:
            expected = beam_search(
                uncached_step, empty, start, beam_size=beam_size, n_best=2,
                length_penalty=LengthPenalty(0.6), **common,
            )  # fmt: skip
    got = translator.generate(src_ids, beam_size, max_length=12, n_best=min(2, beam_size))
    assert [[h.tokens for h in hs] for hs in got] == [[h.tokens for h in hs] for hs in expected]
    for hs, es in zip(got, expected, strict=True):
        assert [h.score for h in hs] == pytest.approx([e.score for e in es], abs=1e-4)


def test_n_best_and_min_length(translator):
    options = translator.translate_n_best([TEXTS[0]], beam_size=4, n_best=3)[0]
    assert len(options) == 3
    assert [o.score for o in options] == sorted((o.score for o in options), reverse=True)
    found = translator.generate(sources(translator.tokenizer), 2, min_length=7, max_length=7)
    assert all(len(h[0].tokens) == 7 for h in found)


def test_attention_under_beam_search_equals_forced_decoding(translator, tokenizer):
    for text in TEXTS[:4]:
        src_ids = tokenizer.encode(text)
        beam = translator.attend_ids(src_ids, beam_size=4)
        tgt_ids = translator.generate([src_ids], 4)[0][0].tokens
        forced = translator.attend_ids(src_ids, tgt_ids)
        T, S = len(tgt_ids), len(src_ids)
        L, H = translator.config.n_decoder_layers, translator.config.n_heads
        assert beam.target_pieces == forced.target_pieces == tokenizer.pieces(tgt_ids)
        assert beam.cross.shape == (L, H, T, S) and beam.decoder_self.shape == (L, H, T, T)
        assert beam.encoder_self.shape == (L, H, S, S)
        for kind in ("encoder_self", "decoder_self", "cross"):
            diff = (getattr(beam, kind) - getattr(forced, kind)).abs().max()
            assert diff < 1e-5, (text, kind, float(diff))
        score = translator.generate([src_ids], 4)[0][0].score
        assert beam.score == pytest.approx(score, abs=1e-5)
    attended = translator.attend(TEXTS[1], target="hello world")
    assert attended.target_pieces[-1] == "</s>" and attended.score is None
    assert attended.cross.sum(-1).allclose(torch.ones(()))  # each row is a distribution
    words = to_words(translator.attend(TEXTS[1]))  # the word level of the same weights
    assert words.source_pieces == TEXTS[1].split() + ["</s>"]
    assert words.cross.shape[-1] == len(words.source_pieces)
    assert words.cross.sum(-1).allclose(torch.ones(()))


def test_out_of_vocabulary_characters_and_emoji(translator):
    # U+FEFF and U+2060 are not whitespace to str.strip, but normalisation removes them
    out = translator.translate(["😀🙈 ñandú 中文 \u200b", "\ufeff\u2060"], beam_size=2)
    assert isinstance(out[0], str) and out[0] and out[1] == ""


def test_a_source_of_nothing_but_unknown_characters_is_left_untranslated_with_a_warning(
    translator, tokenizer
):
    """A model cannot translate what it cannot read: such a source gives "" and a warning
    instead of a hallucination; a source with some known word is still translated."""
    texts = ["🙂🙂", TEXTS[1], "中文 ☃", "🙂 " + TEXTS[1]]
    assert all(set(tokenizer.pieces(tokenizer.encode(t))) <= {"▁", "<unk>", "</s>"} for t in
               texts[::2]), "a test source is not all unknown"  # fmt: skip
    with pytest.warns(UserWarning, match=r"2 sources hold only characters outside the model's vo"):
        out = translator.translate(texts, beam_size=2)
    assert out[0] == out[2] == ""
    assert out[1] == translator.translate([TEXTS[1]], beam_size=2)[0] != ""
    assert out[3] == "🙂 " + out[1]  # the unreadable word is carried (heedful.unknown_words)


def test_words_the_model_cannot_read_are_carried_into_the_translation(
    translator, tokenizer, monkeypatch
):
    """A word of nothing but unknown characters is taken out of the source and put back as it
    is: at the start or the end, or after the target word aligned to the source word before it.
    What is left is the translation of the readable words, for every one of the n best."""
    readable = "el gato come pescado"
    unk = tokenizer.unk_id
    assert unk in tokenizer.encode("🙂 中文") and unk not in tokenizer.encode(readable)
    base = [t.text for t in translator.translate_n_best([readable], 3, n_best=2)[0]]
    edges = translator.translate_n_best(["🙂 " + readable + " 中文"], 3, n_best=2)[0]
    assert [t.text for t in edges] == [f"🙂 {b} 中文" for b in base]
    # the links are the model's recorded method's, as every translation's: here layer 1's
    # second head read where each word is the decoder's input
    record = {"alignment": {"method": "shift", "layer": 0, "heads": [1]}}
    recorded = Translator(translator.model, tokenizer, record)
    middle = recorded.translate(["el gato 🙂 come pescado"], 3)[0]
    assert middle.split().count("🙂") == 1
    assert middle.replace("🙂 ", "", 1) == base[0]
    attended = recorded.attend(readable, target=base[0])
    links = align_pair(recorded, attended, recorded.resolved_alignment())
    assert links != align(to_words(attended), penultimate(2))  # another method than the default
    split = split_unreadable("el gato 🙂 come pescado", lambda c: c == "🙂")
    assert middle == put_back(split, base[0], links)
    methods = []

    def spy(translator_, attended_, method):
        methods.append(method)
        return align_pair(translator_, attended_, method)

    monkeypatch.setattr("heedful.real_input.align_pair", spy)
    recorded.translate(["el gato 🙂 come pescado"], 3)
    assert methods == [recorded.resolved_alignment()] and methods[0].heads == (1,)


def test_carrying_unreadable_words_can_be_turned_off(translator, tokenizer):
    """As imported models have it (meta generation.carry_unreadable false): the source goes to
    the model as it is, unknown pieces included."""
    raw = Translator(translator.model, tokenizer, {"generation": {"carry_unreadable": False}})
    text = "el gato 🙂 come pescado"
    expected = raw._text(raw.generate([tokenizer.encode(text)], 2)[0][0].tokens)
    # (the random model repeats one word, which the translation writes once)
    assert raw.translate([text], 2)[0] == undoubled(expected, text, raw.target_language)
    assert "🙂" in translator.translate([text], 2)[0].split()


def test_putting_back_follows_the_aligned_words_before_then_after_then_the_relative_place():
    split = split_unreadable("X a Y b Z c W", str.isupper)  # upper case: unknown characters
    assert (split.text, split.words, split.after) == ("a b c", ["X", "Y", "Z", "W"], [-1, 0, 1, 2])
    target = "B A C"  # a -> A (1), b -> B (0), c -> C (2)
    # Z after everything a and b became, not between them (session 38 gave "X B Z A Y C W":
    # "Nos vemos el domingo" read "See you ..." put the date in "See ... you")
    assert put_back(split, target, {(0, 1), (1, 0), (2, 2)}) == "X B A Y Z C W"
    # nothing aligned to a: Y goes before the first word aligned to b
    assert put_back(split, target, {(1, 0), (2, 2)}) == "X Y B Z A C W"
    # nothing aligned to b: Z goes after a's word, the nearest aligned word before it
    assert put_back(split, "A B C", {(0, 0), (2, 2)}) == "X A Y Z B C W"
    # nothing aligned to a or b: Y and Z before c's word, the nearest aligned one after them
    assert put_back(split, target, {(2, 0)}) == "X Y Z B A C W"
    assert put_back(split, target, None) == "X B Y A Z C W"  # 3 x 1/3 -> 1, 3 x 2/3 -> 2
    assert put_back(split, "", None) == "X Y Z W"
    assert split_unreadable("X Y", str.isupper) is None  # nothing to translate
    assert split_unreadable("a b", str.isupper) is None  # nothing to carry


def test_a_pictograph_typed_against_a_word_is_carried_and_the_word_translated():
    unknown = "😀🍕❤\ufe0f".__contains__
    split = split_unreadable("me encanta la pizza😀. 🍕hola ¡😀! gracias❤\ufe0f", unknown)
    assert split.readable == ["me", "encanta", "la", "pizza.", "hola", "¡!", "gracias"]
    assert split.words == ["😀", "🍕", "😀", "❤\ufe0f"] and split.after == [3, 3, 5, 6]
    assert split.spans == [(19, 20), (22, 23), (29, 30), (39, 41)]
    assert split_unreadable("Tiên y Tiên", "ê".__contains__) is None  # a letter: not carried


def test_an_emoticon_is_carried_as_a_whole_word():
    """ ":)" is made of characters the model reads, as punctuation: carried like an emoji, a
    whole word only (not the ":3" of "8:30", nor letters alone, "XD")."""
    split = split_unreadable("gracias :) a las 8:30 ;) XD", lambda c: False, is_emoticon)
    assert split.readable == ["gracias", "a", "las", "8:30", "XD"]
    assert (split.words, split.after, split.spans) == ([":)", ";)"], [0, 3], [(8, 10), (22, 24)])
    assert split_unreadable("gracias a las 8:30", lambda c: False, is_emoticon) is None
    assert [w for w in (":-)", ":D", ":(", ":P", "^_^", "gracias", "8:30") if is_emoticon(w)] == [
        ":-)",
        ":D",
        ":(",
        ":P",
        "^_^",
    ]


def test_punctuation_after_carried_characters_stays_with_the_word_before():
    """ "te quiero ❤️." is translated as "te quiero." (a known letter or digit keeps a word
    whole: "aXb" and "X3" are read as they are)."""
    split = split_unreadable("a b X. c Y!? ¡Z d aXb X3 W", str.isupper)
    assert split.readable == ["a", "b.", "c!?", "¡", "d", "aXb", "X3"]
    assert (split.words, split.after) == (["X", "Y", "Z", "W"], [1, 2, 3, 6])  # Z after ¡
    assert split.text == "a b. c!? ¡ d aXb X3"
    split = split_unreadable("XY. a ¿X?", str.isupper)  # nothing before: a word of its own
    assert (split.readable, split.words, split.after) == ([".", "a", "¿?"], ["XY", "X"], [-1, 2])


def test_attend_refuses_a_source_it_cannot_read_unless_given_a_target(translator):
    """attend shows the attention of the translation: where translate leaves a source
    untranslated (empty, or only unknown characters) there is none to show, so it says so
    instead of showing a hallucination's; a forced target is still shown."""
    for source in ["🙂🙂", "中文 ☃"]:
        with pytest.raises(ValueError, match="only characters outside the model's vocabulary"):
            translator.attend(source, beam_size=2)
    with pytest.raises(ValueError, match="the source is empty"):
        translator.attend("  ", beam_size=2)
    forced = translator.attend("🙂🙂", TEXTS[1])
    assert forced.translation == TEXTS[1] and forced.cross.shape[-1] == len(forced.source_pieces)
    assert translator.attend(TEXTS[1], beam_size=2).translation  # a readable source still works


def test_a_max_length_below_one_is_refused(translator, tokenizer):
    with pytest.raises(ValueError, match="max_length must be at least 1, not 0"):
        translator.generate(sources(tokenizer), 2, max_length=0)


def test_a_line_longer_than_max_positions_is_truncated_with_a_warning(tokenizer):
    translator = Translator(make_model(tokenizer, max_positions=64), tokenizer)
    line = " ".join(["gato"] * 10_000)
    with pytest.warns(UserWarning, match="max_positions=64"):
        (found,) = translator.generate([tokenizer.encode(line)], 2)
    assert 1 <= len(found[0].tokens) <= 64
    with pytest.warns(UserWarning):
        assert isinstance(translator.translate([line], beam_size=1)[0], str)


def test_load_and_errors_that_name_the_file(model_dir, tmp_path, tokenizer):
    translator = Translator.load(model_dir)
    assert translator.meta["data"] == {"src": "es", "tgt": "en"}
    assert translator.translate([TEXTS[0]]) == Translator(
        make_model(tokenizer), tokenizer
    ).translate([TEXTS[0]])
    with pytest.raises(FileNotFoundError, match="nowhere"):
        Translator.load(tmp_path / "nowhere")
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("config.json", "model.safetensors", "spm.model"):
        (broken / name).write_bytes((model_dir / name).read_bytes())
    (broken / "model.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(ValueError, match="model.safetensors"):
        Translator.load(broken)
    (broken / "config.json").write_text("{ not json")
    with pytest.raises(ValueError, match="config.json"):
        Translator.load(broken)
    (broken / "config.json").unlink()
    with pytest.raises(FileNotFoundError, match="config.json"):
        Translator.load(broken)
    lm_dir = tmp_path / "lm"
    save_model_dir(lm_dir, DecoderOnlyLM(ModelConfig.tiny(tokenizer.vocab_size)), tokenizer)
    with pytest.raises(ValueError, match="DecoderOnlyLM"):
        Translator.load(lm_dir)


def test_loading_moves_what_the_process_holds_out_of_the_cyclic_collector_s_reach(model_dir):
    import gc

    gc.unfreeze()
    assert gc.get_freeze_count() == 0 and len(gc.get_objects()) > 100_000  # torch's own
    translator = Translator.load(model_dir)
    # a full collection walks what is left: what loading made no longer counts
    assert gc.get_freeze_count() > 100_000 and len(gc.get_objects()) < 20_000
    translator.translate([TEXTS[0]])
    assert len(gc.get_objects()) < 20_000


INT8_LAYERS = {"dynamic": torch.ao.nn.quantized.dynamic.Linear, "onednn": OneDNNInt8Linear}


@pytest.mark.parametrize("layer", INT8_LAYERS)
def test_int8_quantization(model_dir, tokenizer, monkeypatch, layer):
    monkeypatch.setenv("HEEDFUL_INT8", layer)
    float_model = Translator.load(model_dir).model
    translator = Translator.load(model_dir, quantize="int8")
    modules = list(translator.model.modules())
    assert any(isinstance(m, INT8_LAYERS[layer]) for m in modules)
    assert not any(type(m) is torch.nn.Linear for m in modules)
    src = translator._pad(sources(tokenizer))
    tgt = torch.randint(4, tokenizer.vocab_size, (src.shape[0], 6))
    with torch.inference_mode():
        a, b = float_model(src, tgt), translator.model(src, tgt)
    assert torch.nn.functional.cosine_similarity(a.flatten(), b.flatten(), dim=0) > 0.99
    assert all(isinstance(t, str) for t in translator.translate(TEXTS, beam_size=2))
    with pytest.raises(ValueError, match="int8"):
        for_inference(make_model(tokenizer), "int4")
    with pytest.raises(ValueError, match="int8 runs on the CPU; this model is on meta"):
        for_inference(make_model(tokenizer).to("meta"), "int8")


@pytest.mark.parametrize("layer", INT8_LAYERS)
def test_int8_fuses_self_attention_projections_and_folds_the_logits_bias(
    tokenizer, monkeypatch, layer
):
    monkeypatch.setenv("HEEDFUL_INT8", layer)
    float_model = make_model(tokenizer)
    V = float_model.config.tgt_vocab_size
    bias = torch.zeros(V)
    bias[7] = 50.0  # token 7 wins everywhere, if the bias is there
    float_model.logits_bias = bias
    classes = {id(m): (type(m), m) for m in float_model.modules()}  # m: ids stay unique
    quantized = for_inference(copy.deepcopy(float_model), "int8")
    bias = quantized.generator.bias
    assert quantized.logits_bias is None and (bias() if callable(bias) else bias) is not None
    fused = [m for n, m in quantized.named_modules() if n.endswith("self_attn")]
    dynamic = INT8_LAYERS[layer]
    assert fused and all(isinstance(m.qkv_proj, dynamic) for m in fused)
    assert not any(hasattr(m, "q_proj") for m in fused)
    cross = [m for n, m in quantized.named_modules() if n.endswith("cross_attn")]
    assert all(isinstance(m.q_proj, dynamic) and m.qkv_proj is None for m in cross)
    x = torch.randn(2, 5, float_model.config.d_model)
    plain = [m for n, m in float_model.named_modules() if n.endswith("self_attn")]
    with torch.inference_mode():
        for m, f in zip(fused, plain, strict=True):  # the fused product: the three projections
            q, kv = m._project_self(x)
            for got, want in ((q, f.q_proj(x)), (kv.k, f.k_proj(x)), (kv.v, f.v_proj(x))):
                want = f._split_heads(want)
                assert (
                    torch.nn.functional.cosine_similarity(got.flatten(), want.flatten(), dim=0)
                    > 0.999
                )
        src = Translator(float_model, tokenizer)._pad(sources(tokenizer))
        tgt = torch.randint(4, V, (src.shape[0], 6))
        a, b = float_model(src, tgt), quantized(src, tgt)
    assert (a.argmax(-1) == 7).all() and (b.argmax(-1) == 7).all()
    assert torch.nn.functional.cosine_similarity(a.flatten(), b.flatten(), dim=0) > 0.99
    built = for_inference(float_model, "int8")  # in place: modules replaced, none re-classed
    assert built is float_model
    assert all(type(m) is classes[id(m)][0] for m in built.modules() if id(m) in classes)


class IdTokenizer:
    """A tokenizer with Marian's conventions: eos 0, pad (= the decoder's start) the last id."""

    def encode(self, text, add_eos=True):
        return [int(w) for w in text.split()] + ([0] if add_eos else [])

    def encode_batch(self, texts, add_eos=True):
        return [self.encode(t, add_eos=add_eos) for t in texts]

    def decode(self, ids):
        return " ".join(map(str, ids))

    def pieces(self, ids):
        return [str(i) for i in ids]


def test_marian_style_special_ids_come_from_the_config():
    V, pad = 40, 39
    torch.manual_seed(0)
    config = ModelConfig.tiny(
        V, dropout=0.0, pad_id=pad, bos_id=pad, eos_id=0, decoder_start_id=pad
    )
    model = Transformer(config).eval()
    with torch.no_grad():  # make padding, then "5", the most likely tokens everywhere
        model.logits_bias = torch.zeros(V)
        model.logits_bias[pad], model.logits_bias[5] = 60.0, 30.0
    translator = Translator(model, IdTokenizer())
    assert translator.banned_ids() == [pad]
    (found,) = translator.generate([[7, 8, 9, 0]], beam_size=1, max_length=6)
    assert found[0].tokens == [5] * 6  # never pad; EOS (0) is not special-cased as 2
    # the decoder started from pad: the first step's logits are those after [pad]
    with torch.inference_mode():
        logits = model(torch.tensor([[7, 8, 9, 0]]), torch.tensor([[pad]]))[0, -1]
        logp = logits.log_softmax(-1)
        logp[pad] = -math.inf
    (beam,) = translator.generate([[7, 8, 9, 0]], beam_size=3, max_length=1, n_best=3)
    assert beam[0].tokens == [5] and beam[0].log_prob == pytest.approx(float(logp[5]), abs=1e-4)
    translator.protect_spans = False  # this tokenizer's words are ids: "7 8 9" is no number
    assert translator.translate(["7 8 9"], beam_size=1, max_length=3) == ["5 5 5"]
    forced = Translator(model, IdTokenizer(), {"generation": {"forced_eos_token_id": 0}})
    assert forced.generate([[7, 0]], 2, max_length=3)[0][0].tokens == [5, 5, 0]


def test_float32_inference_model_computes_the_same_and_follows_weight_updates(tokenizer):
    model = make_model(tokenizer)
    src = torch.randint(4, tokenizer.vocab_size, (3, 7))
    tgt = torch.randint(4, tokenizer.vocab_size, (3, 5))
    keys = list(model.state_dict())
    classes = {id(m): (type(m), m) for m in model.modules()}  # m: ids stay unique
    other = make_model(tokenizer, output_bias=True)
    random_state = torch.get_rng_state()
    built = inference_copy(model)
    for_inference(other, "int8")
    assert torch.equal(torch.get_rng_state(), random_state)  # training's draws stay its own
    assert list(model.state_dict()) == keys  # the copy was built; the model is as it was
    assert {type(m) for m in model.modules()} == {kind for kind, _ in classes.values()}
    kinds = {n.rpartition(".")[2]: m for n, m in built.named_modules()}
    assert isinstance(kinds["self_attn"].qkv_proj, OneDNNLinear)  # Q/K/V fused: self-attention
    assert isinstance(kinds["cross_attn"].q_proj, OneDNNLinear) and not hasattr(
        kinds["self_attn"], "q_proj"
    )
    assert not any(type(m) is torch.nn.Linear for m in built.modules())
    with torch.inference_mode():
        torch.testing.assert_close(built(src, tgt), model(src, tgt), atol=1e-5, rtol=1e-5)
    with torch.no_grad():  # the weights change in place (as an optimizer step would)
        model.decoder.layers[0].ffn.w_1.weight.mul_(2.0)
        built.decoder.layers[0].ffn.w_1.weight.mul_(2.0)
    with torch.inference_mode():
        torch.testing.assert_close(built(src, tgt), model(src, tgt), atol=1e-5, rtol=1e-5)
    built.train()  # with autograd on, the same function and its gradients
    built(src, tgt).sum().backward()
    assert built.decoder.layers[0].ffn.w_1.weight.grad is not None
    in_place = for_inference(model)  # in place: modules replaced, none re-classed
    assert all(type(m) is classes[id(m)][0] for m in in_place.modules() if id(m) in classes)


def test_float32_inference_model_folds_the_final_logits_bias_into_the_output_projection(
    tokenizer,
):
    model = make_model(tokenizer, output_bias=True)
    model.logits_bias.normal_(0.0, 3.0)  # Marian's final_logits_bias
    src = torch.randint(4, tokenizer.vocab_size, (3, 7))
    tgt = torch.randint(4, tokenizer.vocab_size, (3, 5))
    built = inference_copy(model)
    assert built.logits_bias is None and model.logits_bias is not None
    torch.testing.assert_close(built.generator.bias, model.logits_bias)
    packed = []
    with torch.inference_mode():
        for _ in range(2):
            torch.testing.assert_close(built(src, tgt), model(src, tgt), atol=1e-5, rtol=1e-5)
            packed.append(built.generator._packed[1])
    assert packed[0] is packed[1]  # the projection was packed once, with its bias


@pytest.mark.parametrize("activation", ["relu", "gelu", "swish"])
def test_float32_inference_model_applies_the_activation_in_the_first_ffn_product(
    tokenizer, activation
):
    model = make_model(tokenizer, activation=activation)
    src = torch.randint(4, tokenizer.vocab_size, (3, 7))
    tgt = torch.randint(4, tokenizer.vocab_size, (3, 5))
    built = inference_copy(model)
    ffns = [m for n, m in built.named_modules() if n.endswith("ffn")]
    assert ffns and all(m.w_1.activation is not None for m in ffns)
    with torch.inference_mode():
        torch.testing.assert_close(built(src, tgt), model(src, tgt), atol=1e-5, rtol=1e-5)


def test_translate_never_writes_the_unknown_piece_where_the_model_would(tokenizer):
    """What the model cannot read is kept from it (heedful.real_input), so ``translate`` bans
    the unknown piece; ``generate``, at token level as CTranslate2 decodes, does not."""
    model = make_model(tokenizer, output_bias=True)
    with torch.no_grad():
        model.logits_bias[tokenizer.unk_id] = 50.0  # the model's first choice at every step
    translator = Translator(model, tokenizer)
    found = translator.generate([tokenizer.encode("el gato come pescado")], 1)[0][0]
    assert tokenizer.unk_id in found.tokens
    out = translator.translate(["el gato come pescado"], 1)[0]
    assert out and "\u2047" not in out
    translator.protect_spans = False  # as imported models translate: the piece is theirs to write
    assert "\u2047" in translator.translate(["el gato come pescado"], 1)[0]
