"""Continuous batching (heedful.continuous): greedy search with finished rows refilled gives
every sentence the tokens and scores batch-by-batch decoding gives, on a tiny random model
(with and without the native kernel) and on the bundled models' dev sentences."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from heedful import continuous, kv_cache
from heedful.bundled import model_dir
from heedful.config import ModelConfig
from heedful.decoding import DecodingOptions, generate
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
    return model


def sources(n: int, seed: int = 1) -> list[list[int]]:
    rng = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, 20, (n,), generator=rng).tolist()
    return [torch.randint(4, 60, (k,), generator=rng).tolist() + [2] for k in lengths]


def both(model, src, **options):
    banned = [model.config.pad_id]
    out = []
    for continuous_ in (False, True):
        o = DecodingOptions(beam_size=1, continuous=continuous_, **options)
        out.append(generate(model, src, o, banned=banned))
    return out


def test_refilled_rows_decode_as_in_their_own_batch(tiny):
    src = sources(70)
    batched, refilled = both(tiny, src, batch_size=8)
    assert [h[0].tokens for h in refilled] == [h[0].tokens for h in batched]
    assert [h[0].score for h in refilled] == [h[0].score for h in batched]
    lengths = {len(h[0].tokens) for h in batched}
    assert len(lengths) > 5  # rows finished at many steps: many refills


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
    assert [h[0].tokens for h in refilled] == [h[0].tokens for h in batched]


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
def test_the_bundled_models_translate_the_same_with_rows_refilled(name, column):
    translator = Translator.load(model_dir(name))
    ids = translator.tokenizer.encode_batch(dev(name, column, 600))
    found = [
        translator.generate(ids, options=DecodingOptions(beam_size=1, continuous=c, batch_size=16))
        for c in (False, True)
    ]
    assert [h[0].tokens for h in found[1]] == [h[0].tokens for h in found[0]]
    assert [h[0].score for h in found[1]] == [h[0].score for h in found[0]]


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
