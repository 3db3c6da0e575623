"""Subword pieces -> words: grouping, merging (sum over a word's columns, mean over its rows),
and the labels each kind of attention gets."""

from __future__ import annotations

import pytest
import torch
from attention_views_support import SOURCE, TARGET, forced_attended, single_thread, tiny_transformer

from heedful.attended import Attended
from heedful.explain.views import resolve, views
from heedful.explain.words import merge, target_groups, to_words, word_groups, word_labels


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def test_word_groups_follow_word_starts_and_keep_specials_alone():
    pieces = ["▁El", "▁g", "ato", "▁ne", "g", "ro", "▁", "¿", "qué", "?", "</s>"]
    assert word_groups(pieces) == [[0], [1, 2], [3, 4, 5], [6, 7, 8, 9], [10]]
    # A piece after a special token starts a word even without ▁; <unk> continues a word.
    assert word_groups(["<s>", "ab", "▁c", "<unk>", "d"]) == [[0], [1], [2, 3, 4]]
    # Symbols of a tokenizer that marks no word starts are words of their own.
    assert word_groups(["c", "b", "a", "</s>"]) == [[0], [1], [2], [3]]


def test_labels_come_from_the_text_when_the_words_line_up():
    pieces = ["▁jard", "<unk>", "n", ".", "▁El", "</s>"]
    groups = word_groups(pieces)
    assert word_labels(pieces, groups) == ["jard<unk>n.", "El", "</s>"]
    assert word_labels(pieces, groups, "jardín.  El") == ["jardín.", "El", "</s>"]
    # A text that does not line up with the pieces is not trusted.
    assert word_labels(pieces, groups, "jardín El perro") == ["jard<unk>n.", "El", "</s>"]


def test_merge_sums_the_columns_and_averages_the_rows_of_a_word():
    w = torch.tensor(
        [
            [0.1, 0.2, 0.3, 0.4],
            [0.5, 0.1, 0.1, 0.3],
            [0.0, 0.6, 0.2, 0.2],
        ]
    )
    rows, cols = [[0, 1], [2]], [[0], [1, 2], [3]]
    expected = torch.tensor(
        [
            [(0.1 + 0.5) / 2, (0.2 + 0.3 + 0.1 + 0.1) / 2, (0.4 + 0.3) / 2],
            [0.0, 0.6 + 0.2, 0.2],
        ]
    )
    torch.testing.assert_close(merge(w, rows, cols), expected)
    # Batched over layers and heads alike, and rows stay distributions.
    batch = torch.randn(2, 3, 3, 4).softmax(-1)
    merged = merge(batch, rows, cols)
    assert merged.shape == (2, 3, 2, 3)
    torch.testing.assert_close(merged[1, 2], merge(batch[1, 2], rows, cols))
    torch.testing.assert_close(merged.sum(-1), torch.ones(2, 3, 2))


def _hand_made() -> Attended:
    """3 source pieces (2 words + </s>), 4 target pieces (2 words + </s>)."""
    src = ["▁gat", "o", "▁negro", "</s>"]  # words: gato, negro, </s>
    tgt = ["▁bl", "ack", "▁cat", "</s>"]  # words: black, cat, </s>
    torch.manual_seed(0)
    return Attended(
        source="gato negro",
        translation="black cat",
        source_pieces=src,
        target_pieces=tgt,
        encoder_self=torch.rand(1, 2, 4, 4).softmax(-1),
        decoder_self=torch.rand(1, 2, 4, 4).masked_fill(~torch.ones(4, 4).tril().bool(), -1e9)
        .softmax(-1),
        cross=torch.rand(1, 2, 4, 4).softmax(-1),
    )  # fmt: skip


def test_to_words_merges_every_kind_with_the_decoder_reading_one_behind():
    a = _hand_made()
    w = to_words(a)
    assert w.source_pieces == ["gato", "negro", "</s>"]
    assert w.target_pieces == ["black", "cat", "</s>"]
    # cross [T, S]: target word rows averaged, source word columns summed.
    c = a.cross[0, 1]
    torch.testing.assert_close(w.cross[0, 1, 0, 0], (c[0, 0] + c[0, 1] + c[1, 0] + c[1, 1]) / 2)
    torch.testing.assert_close(w.cross[0, 1, 2, 1], c[3, 2])
    # encoder self [S, S]: the same rule on both sides.
    e = a.encoder_self[0, 0]
    torch.testing.assert_close(w.encoder_self[0, 0, 0, 1], (e[0, 2] + e[1, 2]) / 2)
    # decoder self: keys are what was read: <s>, ▁bl, ack, ▁cat -> words <s>, black, cat.
    d = a.decoder_self[0, 0]  # rows: ▁bl ack ▁cat </s>; keys read: <s> ▁bl ack ▁cat
    dw = w.decoder_self[0, 0]  # rows: black cat </s>; keys: <s> black cat
    torch.testing.assert_close(dw[0, 0], (d[0, 0] + d[1, 0]) / 2)  # black <- <s>
    torch.testing.assert_close(dw[0, 1], (d[0, 1] + d[0, 2] + d[1, 1] + d[1, 2]) / 2)
    torch.testing.assert_close(dw[1, 1], d[2, 1] + d[2, 2])  # cat <- black
    torch.testing.assert_close(dw[2, 2], d[3, 3])  # </s> <- cat
    labelled = views(w)
    assert labelled["decoder"].keys == ["<s>", "black", "cat"]
    assert labelled["decoder"].queries == ["black", "cat", "</s>"]
    assert labelled["cross"].keys == ["gato", "negro", "</s>"]
    for view in labelled.values():
        torch.testing.assert_close(view.weights.sum(-1), torch.ones(view.weights.shape[:-1]))


def test_an_unfinished_hypothesis_keeps_its_last_piece_apart():
    # Cut at max length inside a word: the decoder never read "ack", so it cannot share a word
    # with "▁bl" among the keys; the word-level decoder matrix stays square.
    assert target_groups(["▁cat", "▁bl", "ack"]) == [[0], [1], [2]]
    assert target_groups(["▁bl", "ack", "</s>"]) == [[0, 1], [2]]
    a = Attended("x", "cat black", ["▁x", "</s>"], ["▁cat", "▁bl", "ack"], None,
                 torch.eye(3)[None, None], torch.full((1, 1, 3, 2), 0.5))  # fmt: skip
    w = to_words(a)
    assert w.decoder_self.shape == (1, 1, 3, 3)
    assert views(w)["decoder"].keys == ["<s>", "cat", "bl"]


def test_words_of_a_real_model_and_tokenizer():
    a = forced_attended(tiny_transformer())
    w = to_words(a)
    assert w.source_pieces == SOURCE.split() + ["</s>"]
    assert w.target_pieces == TARGET.split() + ["</s>"]
    assert len(a.source_pieces) > len(w.source_pieces)  # the tokenizer did split some words
    for view in views(w).values():
        assert view.weights.shape[-2:] == (len(view.queries), len(view.keys))
        torch.testing.assert_close(view.weights.sum(-1), torch.ones(view.weights.shape[:-1]))


def test_views_refuse_weights_that_do_not_fit_the_tokens():
    a = _hand_made()
    a.cross = a.cross[:, :, :3]
    with pytest.raises(ValueError, match="cross-attention weights"):
        views(a)


def test_layer_and_head_numbers_count_from_one():
    assert resolve(None, 6, "layer") is None
    assert resolve(1, 6, "layer") == 0
    assert resolve(-1, 6, "layer") == 5
    for bad in (0, 7, -7):
        with pytest.raises(ValueError, match="1..6"):
            resolve(bad, 6, "layer")
