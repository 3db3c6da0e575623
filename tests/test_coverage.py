"""The coverage penalty (heedful.coverage): its formula on hand-built attention, beam search's
finished hypotheses rescored by it on a tiny model (both ways of decoding), the model
directory's default, and a dropped phrase the bundled es -> en model no longer drops."""

from __future__ import annotations

import math

import pytest
import torch

from heedful import coverage, decoding
from heedful.aligning import Trails
from heedful.bundled import model_dir
from heedful.decoding import DecodingOptions, generate
from heedful.search import Hypothesis
from heedful.translator import Translator


def test_the_penalty_sums_the_log_of_each_source_piece_attended_up_to_once():
    # [T=3, S=4]: pieces 0-2 and end-of-sentence (left out); piece 0 twice (counts once),
    # piece 1 half, piece 2 never (the floor)
    attention = torch.tensor([[1.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0], [0.5, 0.0, 0.0, 0.5]])
    expected = 0.2 * (math.log(1.0) + math.log(0.5) + math.log(coverage.FLOOR))
    assert coverage.penalty(attention, 0.2) == pytest.approx(expected)
    assert coverage.penalty(attention[:, [0, 3]], 0.2) == 0.0  # all covered


def test_rescoring_puts_the_hypothesis_that_covers_the_source_first():
    covers = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    drops = torch.tensor([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    short = Hypothesis([5, 2], -1.0, -1.2, attention=drops)
    full = Hypothesis([5, 6, 2], -1.1, -1.5, attention=covers)
    best, second = coverage.rescored([short, full], 0.1)
    assert best.tokens == full.tokens and best.score == pytest.approx(-1.1)
    assert second.score == pytest.approx(-1.0 + 0.1 * math.log(coverage.FLOOR))
    assert best.log_prob == -1.5  # the log-probability is kept
    assert [h.tokens for h in coverage.rescored([short, full], 0.0)] == [[5, 2], [5, 6, 2]]


def sources(n: int) -> list[list[int]]:
    rng = torch.Generator().manual_seed(7)
    lengths = torch.randint(2, 12, (n,), generator=rng).tolist()
    return [torch.randint(4, 60, (k,), generator=rng).tolist() + [2] for k in lengths]


@pytest.mark.parametrize(
    "continuous, keep_attention",
    [(True, False), (False, False), (False, True)],  # rows refilled; batch by batch; traces
)  # the weights: kept as decoding goes (Trails; each hypothesis's trace), or a forced pass
def test_beam_search_keeps_the_n_best_by_score_plus_penalty(
    tiny_decoder, continuous, keep_attention
):
    src, layer = sources(12), tiny_decoder.config.n_decoder_layers - 1
    common = dict(beam_size=4, continuous=continuous, batch_size=5)
    plain = generate(tiny_decoder, src, DecodingOptions(n_best=4, coverage_penalty=0, **common),
                     banned=[0])  # fmt: skip
    found = generate(
        tiny_decoder, src, DecodingOptions(n_best=2, coverage_penalty=3.0, **common), banned=[0],
        aligning=Trails(layer, range(tiny_decoder.config.n_heads)), keep_attention=keep_attention,
    )  # fmt: skip
    reranked = 0
    for source, options, every in zip(src, found, plain, strict=True):
        assert len(options) == 2
        scores = {tuple(h.tokens): h.score for h in every}
        expected = []
        for h in options:
            assert h.attention.shape == (len(h.tokens), len(source))
            expected.append(scores[tuple(h.tokens)] + coverage.penalty(h.attention, 3.0))
        # (the weights of keep_attention's slower path differ from the fast path's by 3e-6)
        assert [h.score for h in options] == pytest.approx(expected, abs=1e-5)
        assert options[0].score >= options[1].score
        reranked += options[0].tokens != every[0].tokens
        assert (options[0].trace is not None) == keep_attention
    assert reranked  # the penalty changed some sentence's best


def test_a_coverage_penalty_needs_the_aligning_heads_and_is_not_negative(tiny_decoder):
    with pytest.raises(ValueError, match="aligning"):
        generate(tiny_decoder, sources(2), DecodingOptions(coverage_penalty=0.1), banned=[0])
    with pytest.raises(ValueError, match="coverage_penalty"):
        DecodingOptions(coverage_penalty=-0.1)
    # greedy search and sampling have none to apply, and need no heads
    generate(
        tiny_decoder, sources(2), DecodingOptions(beam_size=1, coverage_penalty=0.1), banned=[0]
    )


@pytest.fixture(scope="module")
def es_en():
    return Translator.load(model_dir("es-en"))


def test_the_penalty_left_to_the_model_is_its_directorys(es_en, monkeypatch):
    seen = []
    real = decoding.generate
    monkeypatch.setattr(
        decoding, "generate",
        lambda model, ids, options, **k: seen.append((options, k["aligning"])) or real(
            model, ids, options, **k),
    )  # fmt: skip
    es_en.translate(["Tengo un perro."])
    es_en.translate(["Tengo un perro."], coverage_penalty=0.3)
    es_en.translate(["Tengo un perro."], coverage_penalty=0)
    assert [o.coverage_penalty for o, _ in seen] == [0.1, 0.3, 0]
    assert seen[0][1].layer_heads == (1, [0])  # the recorded guided head
    assert seen[2][1] is None  # no weights kept where none are needed
    assert es_en.meta["generation"]["coverage_penalty"] == es_en.coverage_penalty == 0.1


def test_a_phrase_the_beam_s_best_drops_is_kept(es_en):
    """The best of 4 beams alone drops "el jueves"; the second hypothesis has it."""
    sentence = "¿Podemos vernos el jueves a las 14:00?"
    assert "Thursday" not in es_en.translate([sentence], coverage_penalty=0)[0]
    assert "Thursday" in es_en.translate([sentence])[0]
    int8 = Translator.load(model_dir("es-en"), quantize="int8")
    assert "Thursday" in int8.translate([sentence])[0]  # batch by batch: a forced pass's weights
