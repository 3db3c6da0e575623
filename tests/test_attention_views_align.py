"""Alignments from cross-attention: Pharaoh links, the alignment error rate on hand-made gold,
choosing the layer on a gold set, and `heedful align`."""

from __future__ import annotations

import pytest
import torch
from attention_views_support import SOURCE, TARGET, single_thread, tiny_transformer, tokenizer

from heedful.attended import Attended
from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.explain.align import (
    Gold,
    aer,
    align,
    best_layer,
    format_links,
    parse_links,
    read_gold,
)
from heedful.explain.words import to_words
from heedful.translator import Translator
from heedful.typography import undoubled


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def test_aer_on_a_hand_made_example():
    gold = parse_links("0-0 1-2 2?1")
    assert gold.sure == {(0, 0), (1, 2)}
    assert gold.possible == {(0, 0), (1, 2), (2, 1)}
    # A = {0-0, 2-1, 1-1}: |A∩S| = 1, |A∩P| = 2, |A| = 3, |S| = 2 -> 1 - 3/5
    assert aer([{(0, 0), (2, 1), (1, 1)}], [gold]) == pytest.approx(0.4)
    assert aer([{(0, 0), (1, 2)}], [gold]) == 0.0  # exactly the sure links
    assert aer([{(0, 0), (1, 2), (2, 1)}], [gold]) == 0.0  # a possible link costs nothing
    assert aer([{(2, 1)}], [gold]) == pytest.approx(1 - 1 / 3)  # only a possible link
    assert aer([set()], [gold]) == 1.0
    # Over a set, counts add up before dividing (not a mean of per-sentence rates).
    other = Gold(sure={(0, 0)}, possible={(0, 0)})
    together = aer([{(0, 0), (2, 1), (1, 1)}, {(0, 0)}], [gold, other])
    assert together == pytest.approx(1 - (1 + 2 + 1 + 1) / (3 + 2 + 1 + 1))


def test_gold_lines_and_their_errors(tmp_path):
    assert parse_links("3p4 0-1").possible == {(3, 4), (0, 1)}
    assert parse_links("3p4 0-1").sure == {(0, 1)}
    assert parse_links("") == Gold(set(), set())
    path = tmp_path / "gold.txt"
    path.write_text("0-0 1-1\n0-0 1:1\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"gold.txt, line 2: '1:1' is not a link"):
        read_gold(path)
    with pytest.raises(FileNotFoundError, match="gold alignment file not found"):
        read_gold(tmp_path / "missing.txt")


def words_attended(cross: torch.Tensor) -> Attended:
    """Word level: source 'el gato negro </s>', target 'the black cat </s>'."""
    return Attended(
        "el gato negro", "the black cat", ["el", "gato", "negro", "</s>"],
        ["the", "black", "cat", "</s>"], None, None, cross,
    )  # fmt: skip


def test_each_target_word_links_to_its_heaviest_source_word_never_to_eos():
    cross = torch.tensor(
        [
            [0.7, 0.1, 0.1, 0.1],  # the -> el
            [0.1, 0.2, 0.6, 0.1],  # black -> negro
            [0.1, 0.2, 0.1, 0.6],  # cat -> (</s> is no word) gato
            [0.1, 0.1, 0.1, 0.7],  # </s> is no word: no link
        ]
    )
    # Two heads averaged: head 2 alone would link "the" to "gato".
    other = cross.clone()
    other[0] = torch.tensor([0.2, 0.5, 0.2, 0.1])
    links = align(words_attended(torch.stack([cross, other])[None]), layer=0)
    assert links == {(0, 0), (2, 1), (1, 2)}
    assert format_links(links) == "0-0 1-2 2-1"


def test_the_best_layer_is_the_one_that_matches_the_gold():
    good = torch.eye(4)[None]  # the-el, black-gato, cat-negro
    bad = torch.eye(4)[[2, 0, 1, 3]][None]
    words = words_attended(torch.stack([bad, good]))  # [L=2, H=1, T, S]
    gold = [Gold({(0, 0), (1, 1)}, {(2, 2)})]
    layer, scores = best_layer([words], gold)
    assert layer == 1
    assert scores[1] == 0.0 and scores[0] == 1.0
    with pytest.raises(ValueError, match="alignments need cross-attention"):
        align(Attended("a", "b", ["a"], ["b"], torch.ones(1, 1, 1, 1), None, None), 0)


# --- the command ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "mt"
    with single_thread():
        save_model_dir(path, tiny_transformer(seed=3), tokenizer())
    return path


def test_align_translates_and_aligns_one_sentence(model_dir, capsys):
    assert main(["align", "--model", str(model_dir), "--beam", "1", SOURCE]) == 0
    out = capsys.readouterr().out.strip()
    words = to_words(Translator.load(model_dir).attend(SOURCE, beam_size=1))
    # the random model ends repeating "re" until the length limit: the translation writes it
    # once (heedful.typography.undoubled), and the words after it have no links
    text = undoubled(words.translation, SOURCE, None)
    assert text == "Enen re" and len(words.target_pieces) > 50
    # By default, the layer before last (of 2: the first).
    expected = {(i, j) for i, j in align(words, 0) if j < len(text.split())}
    assert out == f"{text} ||| {format_links(expected)}"


def test_align_with_gold_reports_every_layer_and_uses_the_best(model_dir, tmp_path, capsys):
    sources = [SOURCE, "El perro come.", "Tom duerme."]
    targets = [TARGET, "The dog eats.", "Tom sleeps."]
    translator = Translator.load(model_dir)
    words = [to_words(translator.attend(s, t)) for s, t in zip(sources, targets, strict=True)]
    # Gold = exactly what layer 2 finds: AER 0 there, so layer 2 wins unless layer 1 ties.
    layer_2 = [align(w, 1) for w in words]
    gold_lines = [format_links(links) for links in layer_2]
    files = {"src": sources, "tgt": targets, "gold": gold_lines}
    for name, lines in files.items():
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["align", "--model", str(model_dir), "--source", str(tmp_path / "src"),
            "--target", str(tmp_path / "tgt"), "--gold", str(tmp_path / "gold")]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    gold = [parse_links(line) for line in gold_lines]
    layer_1_aer = aer([align(w, 0) for w in words], gold)
    report = captured.err.splitlines()
    assert report[0].startswith(f"layer 1: AER {layer_1_aer:.4f}")
    assert report[1].startswith("layer 2: AER 0.0000")
    best = 0 if layer_1_aer == 0 else 1
    assert report[best].endswith("<- best")
    assert captured.out.splitlines() == [format_links(align(w, best)) for w in words]

    # A chosen layer is used, and its AER said.
    assert main([*args, "--layer", "1"]) == 0
    captured = capsys.readouterr()
    assert f"using layer 1: AER {layer_1_aer:.4f}" in captured.err
    assert captured.out.splitlines() == [format_links(align(w, 0)) for w in words]


def test_align_refuses_gold_without_targets(model_dir, tmp_path, capsys):
    (tmp_path / "src").write_text(SOURCE + "\n", encoding="utf-8")
    (tmp_path / "gold").write_text("0-0\n", encoding="utf-8")
    args = ["align", "--model", str(model_dir), "--source", str(tmp_path / "src")]
    assert main([*args, "--gold", str(tmp_path / "gold")]) == 1
    assert "--gold needs --target" in capsys.readouterr().err


def test_align_names_the_line_it_cannot_translate(model_dir, tmp_path, capsys):
    (tmp_path / "src").write_text(f"{SOURCE}\n🙂🙂\n", encoding="utf-8")
    args = ["align", "--model", str(model_dir), "--beam", "1", "--source", str(tmp_path / "src")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'src'}, line 2: '🙂🙂' holds only characters outside" in err
    (tmp_path / "src").write_text(f"{SOURCE}\n\n", encoding="utf-8")
    assert main(args) == 1
    assert "line 2: the source is empty" in capsys.readouterr().err
