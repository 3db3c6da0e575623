"""The aligning heads' weights kept while decoding (heedful.aligning): a step asked for some
heads' cross-attention returns exactly those heads' weights and the same logits, and every
hypothesis that continuous greedy or beam search returns carries the weights a teacher-forced
pass over it gives, row for row, however rows were refilled and reordered."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from heedful.aligning import Trails, forced_cross
from heedful.config import ModelConfig
from heedful.decoding import DecodingOptions, generate
from heedful.inference import for_inference
from heedful.masks import pad
from heedful.model import Transformer

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "tatoeba"


@pytest.fixture(scope="module")
def tiny():
    """A random model, built for inference, whose sentences end at many different steps."""
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(60, max_positions=128, n_decoder_layers=3)).eval()
    model.logits_bias = torch.zeros(60)
    model.logits_bias[model.config.eos_id] = 1.7
    return for_inference(model)


def sources(n: int) -> list[list[int]]:
    rng = torch.Generator().manual_seed(3)
    lengths = torch.randint(1, 20, (n,), generator=rng).tolist()
    return [torch.randint(4, 60, (k,), generator=rng).tolist() + [2] for k in lengths]


@torch.inference_mode()
def test_a_step_returns_the_named_heads_weights_and_the_same_logits(tiny):
    src = pad(sources(5), tiny.config.pad_id, torch.device("cpu"))
    memory = tiny.encode(src)
    start = torch.full((5, 1), tiny.config.start_id)
    plain = tiny.decode_step(start, tiny.start_decoding(memory))
    full = tiny.decode_step(start, tiny.start_decoding(memory), return_attention=True)
    some = tiny.decode_step(start, tiny.start_decoding(memory), aligning=[(1, [0, 2])])
    assert torch.equal(some.logits, plain.logits)
    assert some.attention.cross is None and plain.attention.aligning is None
    (aligned,) = some.attention.aligning
    assert aligned.shape == (5, 2, 1, src.shape[1])
    torch.testing.assert_close(aligned, full.attention.cross[1][:, [0, 2]])
    assert aligned[~memory.mask[:, None, None, :].expand(-1, 2, 1, -1)].eq(0).all()
    # two readings, one of them in the same layer (a blended method's: heedful.aligning)
    asked = [(1, [2]), (2, [0, 1, 2, 3]), (1, [0, 1])]
    two = tiny.decode_step(start, tiny.start_decoding(memory), aligning=asked)
    assert torch.equal(two.logits, plain.logits)
    for (layer, heads), got in zip(asked, two.attention.aligning, strict=True):
        torch.testing.assert_close(got, full.attention.cross[layer][:, heads])


@pytest.mark.parametrize(("beam_size", "second"), [(1, None), (3, None), (1, 0), (3, 2)])
def test_hypotheses_carry_the_forced_pass_weights(tiny, beam_size, second):
    src = sources(40)
    layer, heads = 2, [1, 3]
    every = list(range(tiny.config.n_heads))
    trails = Trails(layer, heads, None if second is None else (second, every))
    options = DecodingOptions(beam_size=beam_size, batch_size=6, n_best=beam_size)
    found = generate(tiny, src, options, banned=[tiny.config.pad_id], aligning=trails)
    plain = generate(tiny, src, options, banned=[tiny.config.pad_id])
    assert [[h.tokens for h in hs] for hs in found] == [[h.tokens for h in hs] for hs in plain]
    pairs = [(s, h.tokens) for s, hs in zip(src, found, strict=True) for h in hs]
    kept = [h.attention for hs in found for h in hs]
    assert len({len(t) for _, t in pairs}) > 5  # sentences ended at many steps
    expected = forced_cross(tiny, pairs, layer)
    for (s, t), got, want in zip(pairs, kept, expected, strict=True):
        assert got.shape == (len(t), len(s))
        torch.testing.assert_close(got, want[heads].mean(0), atol=1e-5, rtol=1e-4)
    assert len(trails.steps) < trails.count  # steps no row came from were forgotten
    seconds = [h.second_attention for hs in found for h in hs]
    if second is None:
        assert all(w is None for w in seconds)
    else:  # a blended method's second reading: the mean of every head of its layer
        expected = forced_cross(tiny, pairs, second)
        for got, want in zip(seconds, expected, strict=True):
            torch.testing.assert_close(got, want.mean(0), atol=1e-5, rtol=1e-4)


def test_without_refilled_rows_hypotheses_carry_nothing(tiny):
    options = DecodingOptions(beam_size=2, continuous=False)
    found = generate(tiny, sources(4), options, banned=[0], aligning=Trails(0, [0]))
    assert all(h.attention is None for hs in found for h in hs)


def test_trails_walk_back_through_the_parents_and_forget():
    trails = Trails(0, [0, 1])
    for step in range(3):  # [rows 3, heads 2, 1, S 4]: row r of step s holds 10 s + r
        weights = 10.0 * step + torch.arange(3.0).view(3, 1, 1, 1).expand(3, 2, 1, 4)
        assert trails.record([weights]) == step
        trails.link([2, 0, 1])  # the next step's row r continues row [2, 0, 1][r]
    # ended by row 0 at step 2: row 2 at step 1, row 1 at step 0
    assert trails.gather(2, 0, 0, 3)[:, 0].tolist() == [1.0, 12.0, 20.0]
    assert trails.gather(2, 0, 1, 4).tolist() == [[12.0] * 4, [20.0] * 4]  # began at step 1
    trails.forget_before(2)
    assert list(trails.steps) == [2] and min(trails.parents) >= 2
    # with a second reading (a blended method's), walked back the same way
    trails = Trails(0, [0, 1], second=(1, [0]))
    for step in range(3):
        weights = 10.0 * step + torch.arange(3.0).view(3, 1, 1, 1).expand(3, 2, 1, 4)
        trails.record([weights, -weights[:, :1]])
        trails.link([2, 0, 1])
    assert trails.gather(2, 0, 0, 3)[:, 0].tolist() == [1.0, 12.0, 20.0]
    assert trails.gather(2, 0, 0, 3, reading=1)[:, 0].tolist() == [-1.0, -12.0, -20.0]


@pytest.mark.parametrize("name", ["es-en", "en-fr"])
def test_the_bundled_models_links_are_those_of_the_forced_pass(name, monkeypatch):
    """The links that ``translate(alignments=True)`` returns from the weights decoding kept
    are those a forced pass over the translations gives (its recorded method, beam 4)."""
    from heedful import translation_links
    from heedful.bundled import model_dir
    from heedful.translator import Translator

    translator = Translator.load(model_dir(name))
    pair, column = {"es-en": ("spa-eng", 1), "en-fr": ("fra-eng", 0)}[name]
    lines = (SHARED / pair / "dev.tsv").read_text(encoding="utf-8").splitlines()[:300]
    texts = [line.split("\t")[column] for line in lines]
    texts.append(" ".join(texts[:5]))  # a paragraph: its sentences decode in one batch
    kept = translator.translate(texts, 4, alignments=True, batch_size=16)
    monkeypatch.setattr(translation_links, "DECODED_METHODS", ())  # the forced pass only
    forced = translator.translate(texts, 4, alignments=True, batch_size=16)
    assert [f.text for f in kept] == [f.text for f in forced]
    assert [f.alignment for f in kept] == [f.alignment for f in forced]
    assert sum(len(f.alignment) for f in kept) > 2 * len(texts)
