"""Continuous batching (heedful.continuous): greedy and beam search with finished rows given to
waiting sentences give every sentence the tokens and scores batch-by-batch decoding gives, on a
tiny random model and on the bundled models' dev sentences; and batches by a token budget."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from heedful import continuous, kv_cache
from heedful.bundled import model_dir
from heedful.config import ModelConfig
from heedful.decoding import DecodingOptions, generate
from heedful.inference import for_inference
from heedful.model import Transformer
from heedful.translator import Translator

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "tatoeba"


@pytest.fixture(scope="module")
def tiny():
    """A random model that ends some sentences at once and writes the others to their length
    (the source's + 50): rows finish at many different steps."""
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(60, max_positions=128)).eval()
    model.logits_bias = torch.zeros(60)
    model.logits_bias[model.config.eos_id] = 1.7
    return for_inference(model)  # built as Translator.load builds it: oneDNN's products


def sources(n: int, seed: int = 1) -> list[list[int]]:
    rng = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 20, (n,), generator=rng).tolist()
    return [torch.randint(4, 60, (k,), generator=rng).tolist() + [2] for k in lengths]


def both(model, src, **options):
    banned = [model.config.pad_id]
    options.setdefault("beam_size", 1)
    out = []
    for continuous_ in (False, True):
        o = DecodingOptions(continuous=continuous_, **options)
        out.append(generate(model, src, o, banned=banned))
    return out


def same(found, expected) -> bool:
    """The same hypotheses (every n-best one), tokens and scores to the last digit."""
    flat = lambda hs: [(h.tokens, h.score, h.log_prob) for options in hs for h in options]  # noqa: E731
    return flat(found) == flat(expected)


def test_refilled_rows_decode_as_in_their_own_batch(tiny):
    src = sources(70)
    batched, refilled = both(tiny, src, batch_size=8)
    assert [h[0].tokens for h in refilled] == [h[0].tokens for h in batched]
    assert [h[0].score for h in refilled] == [h[0].score for h in batched]
    lengths = {len(h[0].tokens) for h in batched}
    assert len(lengths) > 5  # rows finished at many steps: many refills


@pytest.mark.parametrize("n_best, early_stopping", [(1, False), (3, True)])
def test_beam_search_with_refilled_sentences_decodes_as_in_its_own_batch(
    tiny, n_best, early_stopping
):
    src = sources(40, seed=5)
    batched, refilled = both(
        tiny, src, beam_size=4, n_best=n_best, early_stopping=early_stopping, batch_size=6
    )
    assert same(refilled, batched)
    assert all(len(h) == n_best for h in refilled)


def test_a_token_budget_makes_batches_of_short_sources_larger(tiny, monkeypatch):
    assert continuous.batch_length(10, 128, 8192) == 128
    assert continuous.batch_length(100, 128, 8192) == 81
    assert continuous.batch_length(10_000, 128, 8192) == 1
    assert continuous.batch_length(100, 128, None) == 128
    grown = []

    def spy(cache, added, width):
        out = real(cache, added, width)
        grown.append((added, width, out.cross_kv[0].k.shape[2], out.memory_mask.shape[1]))
        return out

    real = continuous.grown
    monkeypatch.setattr(continuous, "grown", spy)
    src = sorted(sources(60, seed=6), key=len)
    for beam_size in (1, 4):
        grown.clear()
        batched, refilled = both(tiny, src, beam_size=beam_size, batch_size=32, batch_tokens=80)
        assert same(refilled, batched)
        assert grown  # as the long sources finished, the rows grew
        longest = max(map(len, src))
        assert all(w == k == m for _, w, k, m in grown)
        assert min(w for _, w, _, _ in grown) < longest  # and the keys kept narrowed
    with pytest.raises(ValueError, match="batch_tokens"):
        DecodingOptions(batch_tokens=0)


def test_lengths_min_length_and_forced_end(tiny):
    src = sources(30, seed=2)
    batched, refilled = both(tiny, src, batch_size=4, max_length=12, min_length=3)
    assert [h[0].tokens for h in refilled] == [h[0].tokens for h in batched]
    assert all(3 <= len(h[0].tokens) <= 12 for h in refilled)
    banned = [tiny.config.pad_id]
    options = DecodingOptions(beam_size=1, batch_size=4, max_length=5)
    forced = generate(tiny, src, options, banned=banned, force_eos=True)
    assert all(h[0].tokens[-1] == tiny.config.eos_id for h in forced)


def test_the_cache_is_rebuilt_when_it_runs_out_of_room(tiny, monkeypatch):
    calls = []

    def spy(*args, **kwargs):
        calls.append(args[1])  # the first position kept
        return kv_cache.regrouped(*args, **kwargs)

    monkeypatch.setattr(continuous, "regrouped", spy)
    src = sources(200, seed=3)
    batched, refilled = both(tiny, src, batch_size=6)
    assert calls and max(calls) > 0  # positions no row read any more were dropped
    assert same(refilled, batched)
    calls.clear()
    monkeypatch.setattr(
        continuous, "beams_from", lambda *a, **k: calls.append(a[1]) or real(*a, **k)
    )
    real = kv_cache.beams_from
    batched, refilled = both(tiny, src[:80], batch_size=4, beam_size=3)
    assert calls and max(calls) > 0
    assert same(refilled, batched)


def test_each_encoded_batch_is_reported_once_when_its_sentences_are_done(tiny):
    src = sources(21, seed=4)
    seen = []
    options = DecodingOptions(beam_size=1, batch_size=8, max_length=10)
    report = lambda idx, hyps, memory: seen.append((idx, hyps, memory))  # noqa: E731
    found = generate(tiny, src, options, banned=[0], on_batch=report)
    assert sorted(i for idx, _, _ in seen for i in idx) == list(range(21))
    assert [len(idx) for idx, _, _ in seen] == [8, 8, 5]
    for idx, hyps, memory in seen:
        assert memory.states.shape[0] == len(idx)
        assert [h[0].tokens for h in hyps] == [found[i][0].tokens for i in idx]


def dev(name: str, column: int, n: int) -> list[str]:
    pair = {"es-en": "spa-eng", "en-fr": "fra-eng"}[name]
    lines = (SHARED / pair / "dev.tsv").read_text(encoding="utf-8").splitlines()[:n]
    return [line.split("\t")[column] for line in lines]


@pytest.mark.parametrize("name, column", [("es-en", 1), ("en-fr", 0)])
@pytest.mark.parametrize("beam_size", [1, 4])
def test_the_bundled_models_translate_the_same_with_rows_refilled(name, column, beam_size):
    translator = Translator.load(model_dir(name))
    ids = translator.tokenizer.encode_batch(dev(name, column, 500))
    found = [
        translator.generate(
            ids, beam_size, continuous=c, batch_size=16, batch_tokens=None, coverage_penalty=0
        )
        for c in (False, True)
    ]
    assert same(found[1], found[0])


@pytest.mark.parametrize("name, column", [("es-en", 1), ("en-fr", 0)])
def test_with_the_coverage_penalty_too(name, column):
    """The models' own coverage penalty (heedful.coverage) reads the aligning heads' weights
    as decoding kept them, or, batch by batch, from a teacher-forced pass: the same tokens and
    log-probabilities, scores to float32's last digits."""
    translator = Translator.load(model_dir(name))
    assert translator.coverage_penalty > 0
    ids = translator.tokenizer.encode_batch(dev(name, column, 500))
    batched, refilled = (
        translator.generate(ids, 4, continuous=c, batch_size=16, batch_tokens=None, n_best=2)
        for c in (False, True)
    )
    flat = lambda found: [h for options in found for h in options]  # noqa: E731
    assert [h.tokens for h in flat(refilled)] == [h.tokens for h in flat(batched)]
    assert [h.log_prob for h in flat(refilled)] == [h.log_prob for h in flat(batched)]
    assert [h.score for h in flat(refilled)] == pytest.approx([h.score for h in flat(batched)],
                                                              abs=1e-5)  # fmt: skip
    plain = translator.generate(ids, 4, coverage_penalty=0, n_best=2)
    assert any(a.tokens != b.tokens for a, b in zip(flat(plain), flat(refilled), strict=True))


def test_an_int8_model_or_no_native_kernel_decodes_batch_by_batch(tiny, monkeypatch):
    """An int8 model's activations are quantised per product, and PyTorch's batched products
    change the last digits with the rows beside: refilling would change results."""
    translator = Translator.load(model_dir("es-en"), quantize="int8")
    called = []
    real = continuous.greedy
    monkeypatch.setattr(continuous, "greedy", lambda *a, **k: called.append(1) or real(*a, **k))
    translator.translate(["Tengo un perro."], beam_size=1)
    assert not called
    both(tiny, sources(5))
    assert called  # the spy sees a float32 model with the kernels
    monkeypatch.setenv("HEEDFUL_NATIVE", "0")
    called.clear()
    both(tiny, sources(5))
    assert not called
