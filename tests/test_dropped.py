"""Words a translation leaves out (heedful.dropped, heedful.coverage's watched words): found on
hand-built attention, ranked last among the beam's hypotheses near the best (both ways of
decoding, on a tiny model), watched and warned of on the bundled en -> fr model."""

from __future__ import annotations

import warnings

import pytest
import torch

from heedful import coverage, dropped
from heedful.aligning import Trails
from heedful.bundled import model_dir
from heedful.decoding import DecodingOptions, generate
from heedful.real_input import prepare
from heedful.search import Hypothesis
from heedful.translator import Translator


def test_a_watched_word_is_dropped_when_its_most_attended_piece_gets_too_little():
    # [T=3, S=5]: word 0 is pieces 0-1 (piece 1 attended 0.5 in all), word 1 piece 2 (0.05),
    # word 2 piece 3 (never)
    attention = torch.tensor(
        [[0.5, 0.25, 0.0, 0.0, 0.25], [0.9, 0.0, 0.05, 0.0, 0.05], [0.0, 0.25, 0.0, 0.0, 0.75]]
    )
    assert coverage.dropped(attention, [[0, 1], [2], [3]]) == [1, 2]
    assert coverage.dropped(attention, [[0, 1]]) == []
    assert coverage.dropped(attention, []) == []


def test_near_the_best_score_the_hypothesis_dropping_fewer_watched_words_comes_first():
    drops = torch.tensor([[1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    keeps = torch.tensor([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    best = Hypothesis([5, 2], -1.0, -1.2, attention=drops)
    near = Hypothesis([5, 6, 2], -1.0 - coverage.MARGIN / 2, -1.5, attention=keeps)
    far = Hypothesis([5, 7, 2], -1.0 - 2 * coverage.MARGIN, -1.9, attention=keeps)
    ranked = coverage.rescored([best, near], 0.0, [[1]])
    assert [h.tokens for h in ranked] == [near.tokens, best.tokens]
    assert ranked[0].score == near.score  # scores are not changed, only the order
    assert [h.tokens for h in coverage.rescored([best, far], 0.0, [[1]])] == [[5, 2], [5, 7, 2]]
    assert [h.tokens for h in coverage.rescored([best, near], 0.0)] == [[5, 2], [5, 6, 2]]


@pytest.mark.parametrize("continuous", [True, False])  # rows refilled; batch by batch
def test_beam_search_ranks_by_the_watched_words_of_each_source(
    tiny_decoder, continuous, monkeypatch
):
    # an untrained model's hypotheses: one of 1 token and one of 3 within 0.84 of each other
    monkeypatch.setattr(coverage, "COVERED", 0.15)
    monkeypatch.setattr(coverage, "MARGIN", 1.0)
    rng = torch.Generator().manual_seed(11)
    src = [torch.randint(4, 60, (k,), generator=rng).tolist() + [2] for k in (9, 4, 7, 11, 6)]
    watched = [[[p] for p in range(len(s) - 1)] for s in src]  # every piece a watched word
    aligning = Trails(tiny_decoder.config.n_decoder_layers - 1, range(tiny_decoder.config.n_heads))
    common = dict(beam_size=4, continuous=continuous, batch_size=2, coverage_penalty=0.1)
    every = generate(tiny_decoder, src, DecodingOptions(n_best=4, **common), banned=[0],
                     aligning=aligning)  # fmt: skip
    found = generate(tiny_decoder, src, DecodingOptions(n_best=1, **common), banned=[0],
                     aligning=aligning, watched=watched)  # fmt: skip
    changed = 0
    for options, best, words in zip(every, found, watched, strict=True):
        near = [h for h in options if h.score >= options[0].score - coverage.MARGIN]
        expected = min(near, key=lambda h: len(coverage.dropped(h.attention, words)))
        assert best[0].tokens == expected.tokens
        changed += expected.tokens != options[0].tokens
    assert changed  # some source's best by score dropped more of its words


@pytest.fixture(scope="module")
def en_fr():
    return Translator.load(model_dir("en-fr"))


def test_the_rarer_words_are_watched_not_common_words_nor_placeholders(en_fr):
    prepared = prepare(en_fr, "Kwame and I like butter better than cheese.", in_capitals=False)
    ids = en_fr.tokenizer.encode(prepared.text)
    words, pieces = dropped.watched(en_fr, prepared, ids)
    assert words == ["butter", "cheese"]  # not "and", "like", "better", nor Kwame's placeholder
    assert [en_fr.tokenizer.pieces([ids[p] for p in w]) for w in pieces] == [
        ["▁but", "ter"],
        ["▁che", "ese"],
    ]


def test_a_translation_keeps_a_word_the_best_scored_one_drops(en_fr, monkeypatch):
    sentence = "The house was carried away by the flood."
    assert "emportée" in en_fr.translate([sentence])[0]
    monkeypatch.setattr(dropped, "watched", lambda *_: ([], []))
    assert "laissée" in en_fr.translate([sentence])[0]  # "left by the flood"


def test_a_translation_that_still_drops_a_word_is_named_in_a_warning(en_fr):
    with pytest.warns(
        UserWarning, match=r"1 translation may leave out .*'We need .*: may .* 'eggs'"
    ):
        out = en_fr.translate(["I have a dog.", "We need to buy milk, eggs and bread."])
    assert "œufs" not in out[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        en_fr.translate(["I have a dog.", "The house was carried away by the flood."])
    int8 = Translator.load(model_dir("en-fr"), quantize="int8")  # hiding "eggs" costs more there
    (found,) = int8.translate(["We need to buy milk, eggs and bread."], alignments=True)
    assert found.warnings == ["'We need to buy milk, eggs and bread.': may leave out 'eggs'"]


def test_a_word_the_translation_depends_on_is_not_named(en_fr, monkeypatch):
    """ "ago" gets little of the aligning head's attention in "... il y a quelques minutes.", but
    hidden from the model it costs the translation 6.6 of log-probability: rendered, not
    dropped. "butter", dropped, costs nothing."""
    sentences = ["Tom was here just a few minutes ago.", "I like butter better than cheese."]
    with pytest.warns(UserWarning, match="may leave out") as raised:
        found = en_fr.translate(sentences, alignments=True)
    assert found[0].warnings == [] and found[1].warnings == [
        "'I like butter better than cheese.': may leave out 'butter'"
    ]
    assert "1 translation" in str(raised[0].message)
    monkeypatch.setattr(dropped, "USED", float("inf"))  # every word flagged counts as dropped
    with pytest.warns(UserWarning, match="2 translations may leave out"):
        found = en_fr.translate(sentences, alignments=True)
    assert found[0].warnings == ["'Tom was here just a few minutes ago.': may leave out 'ago'"]


def test_a_weekday_the_translation_does_not_name_is_named_in_a_warning(en_fr):
    """The model paid "Tuesday" attention and wrote "Est-ce que tu voudrais 10 travail pour
    toi ?": the attention hid it from the look above, the weekdays' names do not."""
    from heedful.dates import weekdays_left_out

    words = ["Would", "Tuesday", "at", "work", "Sundays"]
    assert weekdays_left_out(words, lambda: "mardi ou dimanche", "en", "fr") == []
    assert weekdays_left_out(words, lambda: "le dimanche", "en", "fr") == [1]
    assert weekdays_left_out(words, lambda: "lundi et dimanche", "en", "fr") == []  # put back
    assert weekdays_left_out(["martes"], lambda: "Is Tues convenient?", "es", "en") == []
    assert weekdays_left_out(["Would"], lambda: 1 / 0, "en", "fr") == []  # no weekday: not asked
    assert weekdays_left_out(["martes"], lambda: "Under the sun.", "es", "en") == [0]
    assert weekdays_left_out(["martes"], lambda: "Ja.", "es", "de") == []  # no table for German
    sentence = "Would Tuesday at 10 work for you?"
    with pytest.warns(UserWarning, match="may leave out 'Tuesday'"):
        (found,) = en_fr.translate([sentence], alignments=True)
    assert "mardi" not in found.text
    assert found.warnings == [f"{sentence!r}: may leave out 'Tuesday'"]
