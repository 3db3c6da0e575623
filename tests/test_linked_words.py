"""The table of words the training's alignment links joined (heedful.explain.linked_words): Dice's
coefficient by hand, the file a model directory keeps, and how an alignment method weighs it."""

from __future__ import annotations

import pytest
import torch

from heedful.explain.alignment_methods import AlignmentMethod, link, method_from_meta
from heedful.explain.linked_words import FILE, FLOOR, LinkedWords

# three pairs: "the house" / "la maison" twice, "The cat" / "le chat" once
SOURCES = [["the", "house"], ["The", "house"], ["The", "cat"]]
TARGETS = [["la", "maison"], ["la", "maison"], ["le", "chat"]]
LINKS = [{(0, 0), (1, 1)}, {(0, 0), (1, 1)}, {(0, 0), (1, 1)}]


def test_dice_by_hand_in_lower_case():
    table = LinkedWords.count(SOURCES, TARGETS, LINKS)
    # "the" occurs 3 times, "la" twice, linked twice: 2 * 2 / (3 + 2)
    assert table.dice[("the", "la")] == pytest.approx(0.8)
    assert table.dice[("the", "le")] == pytest.approx(2 * 1 / (3 + 1))
    assert table.dice[("house", "maison")] == pytest.approx(1.0)
    assert ("house", "la") not in table.dice  # never linked
    prior = table.prior(["The", "HOUSE"], ["maison", "La"])  # [target words, source words]
    assert torch.allclose(prior, torch.tensor([[0.0, 1.0], [0.8, 0.0]]))
    assert table.prior([], ["la"]).shape == (1, 0)


def test_the_file_round_trips_and_a_bad_line_is_refused(tmp_path):
    table = LinkedWords.count(SOURCES, TARGETS, LINKS)
    assert LinkedWords.load(tmp_path) is None
    table.write(tmp_path)
    lines = (tmp_path / FILE).read_text(encoding="utf-8").splitlines()
    assert lines[0].split("\t")[:2] in (["the", "la"], ["house", "maison"])  # most linked first
    assert LinkedWords.load(tmp_path).dice == pytest.approx(table.dice, rel=1e-4)
    (tmp_path / FILE).write_text("the\tla\t0.8\nthe la 0.8\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"{FILE}, line 2: expected source<TAB>target<TAB>dice"):
        LinkedWords.load(tmp_path)


def test_the_file_says_where_its_links_came_from(tmp_path):
    table = LinkedWords.count(SOURCES, TARGETS, LINKS)
    table.write(tmp_path)
    assert LinkedWords.load(tmp_path).origin is None
    table.origin = "the model's own links (shift, layer 2, heads 1) over 3 pairs of train.en"
    table.write(tmp_path)
    first = (tmp_path / FILE).read_text(encoding="utf-8").split("\n")[0]
    assert first == f"# {table.origin}"
    loaded = LinkedWords.load(tmp_path)
    assert loaded.origin == table.origin
    assert loaded.dice == pytest.approx(table.dice, rel=1e-4)
    (tmp_path / FILE).write_text("the\tla\t0.8\n# not first\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"{FILE}, line 2: expected"):  # only the first line
        LinkedWords.load(tmp_path)


def test_the_linked_weight_moves_a_link_attention_got_wrong():
    """ "maison" looks more at "the" than at "house"; the corpus links it to "house"."""
    scores = torch.tensor([[0.9, 0.1], [0.6, 0.4]])  # rows: la, maison; columns: the, house
    prior = LinkedWords.count(SOURCES, TARGETS, LINKS).prior(["the", "house"], ["la", "maison"])
    assert link(scores) == {(0, 0), (0, 1)}
    assert link(scores, linked_prior=prior, linked=1.0) == {(0, 0), (1, 1)}
    assert link(scores, linked_prior=prior, linked=0.0) == {(0, 0), (0, 1)}  # weight 0: none
    # a word the corpus never linked to anything keeps the attention's order (FLOOR everywhere)
    unseen = torch.zeros(2, 2)
    assert link(scores, linked_prior=unseen, linked=1.0) == link(scores)
    assert FLOOR > 0


def test_the_weight_is_recorded_and_described():
    method = AlignmentMethod("shift", 1, (0,), links="intersection", linked=0.5)
    assert method.record()["linked"] == 0.5
    assert AlignmentMethod.from_record(method.record()) == method
    assert "training links joined (weight 0.5)" in method.describe()
    assert method_from_meta({"alignment": {"method": "shift"}}).linked == 0.0
    with pytest.raises(ValueError, match="linked weight must be 0 or more"):
        AlignmentMethod(linked=-1.0)
