"""Alignment methods on hand-built attention: predict against shift, head subsets, subword pieces
into words, normalization and symmetrised links; gold files counted from 1; erasure against the
model run by hand; choosing a method; the record a model directory keeps; `heedful align`."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest
import torch
from attention_views_support import SOURCE, TARGET, single_thread, tiny_transformer, tokenizer

from heedful.attended import Attended
from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.explain import alignment_choice
from heedful.explain.align import Gold, aer, format_links, parse_links, read_gold, word_counts
from heedful.explain.alignment_choice import (
    Pair,
    align_pair,
    choose,
    evaluate,
    links_of,
    prepare,
)
from heedful.explain.alignment_methods import (
    DEFAULT,
    AlignmentMethod,
    attention_scores,
    blended,
    link,
    method_from_meta,
    read_method,
    spelling_prior,
    write_method,
)
from heedful.explain.erasure import erase_pair, erasure_scores
from heedful.translator import Translator


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


# Source words: el | gato (two pieces) | negro; target words: the | black | cat (two pieces).
SOURCE_PIECES = ["▁el", "▁ga", "to", "▁negro", "</s>"]
TARGET_PIECES = ["▁the", "▁black", "▁c", "at", "</s>"]


def attended(cross: torch.Tensor) -> Attended:
    """cross: [L, H, T=5, S=5] over the pieces above."""
    texts = ("el gato negro", "the black cat")
    return Attended(*texts, SOURCE_PIECES, TARGET_PIECES, None, None, cross)


def one_hot_rows(columns: list[int]) -> torch.Tensor:
    """[T, S] with row t all on source piece columns[t]."""
    return torch.eye(5)[columns]


def test_predict_reads_the_row_that_predicts_the_word_and_shift_the_row_that_reads_it():
    # Row t predicts target piece t and reads piece t - 1 (row 0 reads <s>).
    rows = one_hot_rows([0, 3, 3, 1, 2])  # predict: the-el, black-negro, c-negro, at-gato
    a = attended(rows[None, None])
    method = AlignmentMethod("predict", layer=0)
    # "cat" = mean of rows c (negro) and at (gato): a tie of 0.5 each, the first wins
    assert torch.allclose(
        attention_scores(a, method), torch.tensor([[1.0, 0, 0], [0, 0, 1], [0, 0.5, 0.5]])
    )
    assert link(attention_scores(a, method)) == {(0, 0), (2, 1), (1, 2)}
    # shift: the = row 1 (negro), black = row 2 (negro), cat = rows 3 and 4 (gato: 1 + 1 pieces)
    shifted = attention_scores(a, AlignmentMethod("shift", layer=0))
    assert torch.allclose(shifted, torch.tensor([[0.0, 0, 1], [0, 0, 1], [0, 1, 0]]))
    assert link(shifted) == {(2, 0), (2, 1), (1, 2)}


def test_shift_of_an_unfinished_target_uses_the_last_row_for_the_last_word():
    pieces = ["▁the", "▁black"]  # cut before </s>: the last piece was never read
    a = Attended("el gato negro", "the black", SOURCE_PIECES, pieces, None, None,
                 one_hot_rows([3, 0])[None, None])  # fmt: skip
    # target_groups keeps the last piece a word of its own; it is not </s>, so it is a word
    assert link(attention_scores(a, AlignmentMethod("shift", layer=0))) == {(0, 0), (0, 1)}


def test_source_pieces_add_up_and_target_pieces_average():
    row = torch.tensor([0.0, 0.3, 0.3, 0.4, 0.0])  # gato's two pieces (0.6) beat negro (0.4)
    cross = row.expand(5, 5).clone()
    cross[2] = torch.tensor([0.9, 0.0, 0.0, 0.1, 0.0])  # "c" alone would say el ...
    cross[3] = torch.tensor([0.0, 0.0, 0.0, 1.0, 0.0])  # ... but "c"+"at" average to negro 0.55
    scores = attention_scores(attended(cross[None, None]), AlignmentMethod("predict", layer=0))
    assert scores[0].tolist() == pytest.approx([0.0, 0.6, 0.4])
    assert scores[2].tolist() == pytest.approx([0.45, 0.0, 0.55])
    assert link(scores) == {(1, 0), (1, 1), (2, 2)}


def test_heads_and_layers_are_chosen_and_averaged():
    head_a = one_hot_rows([0, 3, 1, 1, 4])  # the-el, black-negro, cat-gato
    head_b = one_hot_rows([1, 0, 0, 0, 4])  # everything to el or gato
    head_c = 0.6 * one_hot_rows([3, 3, 3, 3, 4]) + 0.4 * head_b
    cross = torch.stack(
        [torch.stack([head_b, head_b, head_b]), torch.stack([head_a, head_b, head_c])]
    )
    a = attended(cross)  # [L=2, H=3, T, S]
    links = {heads: link(attention_scores(a, AlignmentMethod("predict", 1, heads)))
             for heads in [(0,), (1,), (1, 2), None]}  # fmt: skip
    assert links[(0,)] == {(0, 0), (2, 1), (1, 2)}
    assert links[(1,)] == {(1, 0), (0, 1), (0, 2)}
    # heads 2 and 3: negro gets 0.3 against el's or gato's 0.5 + 0.2
    assert links[(1, 2)] == {(1, 0), (0, 1), (0, 2)}
    # all three, summed: the: el 1, gato 1.4, negro 0.6; black: el 1.4, negro 1.6;
    # cat: el 1.4, gato 1, negro 0.6
    assert links[None] == {(1, 0), (2, 1), (0, 2)}
    assert link(attention_scores(a, AlignmentMethod("predict", 0, (0,)))) == links[(1,)]


def test_normalizing_per_source_word_stops_one_word_from_taking_every_row():
    scores = torch.tensor([[0.5, 0.1, 0.4], [0.1, 0.5, 0.4], [0.1, 0.1, 0.8]])
    assert link(scores) == {(0, 0), (1, 1), (2, 2)}
    sink = torch.tensor([[0.3, 0.1, 0.6], [0.1, 0.3, 0.6], [0.1, 0.1, 0.8]])
    assert link(sink) == {(2, 0), (2, 1), (2, 2)}
    # columns divided by 0.5, 0.5 and 2.0: 0.6, 0.2, 0.3 / 0.2, 0.6, 0.3 / 0.2, 0.2, 0.4
    assert link(sink, normalize="source") == {(0, 0), (1, 1), (2, 2)}


def test_grow_diag_final_and_of_both_argmax_directions():
    scores = torch.tensor(
        [  # source words 0..3 across, target words 0..2 down
            [0.6, 0.3, 0.1, 0.0],
            [0.1, 0.2, 0.3, 0.4],
            [0.1, 0.1, 0.1, 0.7],
        ]
    )
    # rows: 0->0, 1->3, 2->3; columns: 0->0, 1->0, 2->1, 3->2
    # intersection {0-0, 3-2}; grow from 0-0: 1-0 (source 1 unaligned); from 3-2: 3-1
    # (target 1 unaligned), then 2-1 (diagonal, source 2 unaligned)
    grown = {(0, 0), (1, 0), (3, 2), (3, 1), (2, 1)}
    assert link(scores, links="grow-diag-final-and") == grown
    assert link(scores) == {(0, 0), (3, 1), (3, 2)}
    # the links both directions agree on: target 1 and sources 1, 2 stay unaligned
    assert link(scores, links="intersection") == {(0, 0), (3, 2)}
    assert link(torch.zeros(0, 3)) == set()


def test_words_spelt_alike():
    sources = ["The", "Minister", "said", "Canada", "12", ",", "it", "o"]
    targets = ["Le", "ministre", "a", "dit", "CANADÁ", "12", ",", "It", "o"]
    prior = spelling_prior(sources, targets)
    assert prior.shape == (len(targets), len(sources))
    assert prior[1, 1] == 6 / 8  # "minist" of the longer's 8 letters; case aside
    assert prior[4, 3] == 1.0  # accents and case aside
    assert prior[5, 4] == 1.0 and prior[6, 5] == 1.0  # the same number, the same mark
    assert prior[7, 6] == 1.0  # a short word: only the same one
    assert prior[8, 7] == 0.0  # a single letter never
    assert prior[0, 0] == 0.0 and prior[2, 2] == 0.0 and prior.sum() == 6 / 8 + 4
    assert spelling_prior(["main"], ["maintenant"])[0, 0] == 0.4  # 4 of 10
    assert spelling_prior(["mains"], ["maison"])[0, 0] == 0.0  # 3 letters in common: none


def test_the_spelling_weight_moves_a_link_the_attention_got_wrong():
    # target word 1 ("ministre") attends to source word 2 a little more than to "Minister"
    scores = torch.tensor([[0.8, 0.1, 0.1], [0.1, 0.4, 0.5], [0.1, 0.1, 0.8]])
    prior = spelling_prior(["the", "Minister", "spoke"], ["le", "ministre", "parla"])
    assert link(scores) == {(0, 0), (2, 1), (2, 2)}
    assert link(scores, prior=prior) == link(scores)  # a weight of 0: the model alone
    # row 1 gains 1.0 x 0.5 x 0.75 on "Minister": 0.775 against 0.5
    assert link(scores, prior=prior, spelling=1.0) == {(0, 0), (1, 1), (2, 2)}
    method = AlignmentMethod("shift", 1, (0,), links="intersection", spelling=2.0)
    assert AlignmentMethod.from_record(method.record()) == method
    assert "spelt alike (weight 2)" in method.describe()
    assert method.resolve(3, 4).spelling == 2.0
    assert method_from_meta({"alignment": {"method": "shift"}}).spelling == 0.0
    with pytest.raises(ValueError, match="spelling weight must be 0 or more"):
        AlignmentMethod(spelling=-1.0)


def test_aer_of_a_hand_made_one_based_gold(tmp_path):
    path = tmp_path / "dev.gold"
    path.write_text("1-1 2-3 3p2 3?3\n\n", encoding="utf-8")
    gold = read_gold(path, base=1, sizes=[(3, 3), (2, 2)])
    assert gold[0] == Gold({(0, 0), (1, 2)}, {(0, 0), (1, 2), (2, 1), (2, 2)})
    assert gold[1] == Gold(set(), set())
    # A = {0-0, 2-1, 1-1} and nothing for the empty line: |A∩S| = 1, |A∩P| = 2, |A| = 3,
    # |S| = 2 -> 1 - 3/5
    assert aer([{(0, 0), (2, 1), (1, 1)}, set()], gold) == pytest.approx(0.4)
    # read 0-based, the same file means other words
    assert read_gold(path)[0].sure == {(1, 1), (2, 3)}


@pytest.mark.parametrize(
    ("line", "base", "message"),
    [
        ("1-1 0-2", 1, r"line 2: '0-2' is not a link; .* counted from 1"),
        ("1-1 2:2", 1, r"line 2: '2:2' is not a link"),
        ("1-1 1-2-3", 1, r"line 2: '1-2-3' is not a link"),
        ("1-1 a-b", 0, r"line 2: 'a-b' is not a link; .* counted from 0"),
        ("1-1 4-1", 1, r"line 2: '4-1' points past .* source has 3 words \(1..3\)"),
        ("1p4", 1, r"line 2: '1p4' points past .* the target 3 \(1..3\)"),
        ("2-3", 0, r"line 2: '2-3' points past .* the target 3 \(0..2\)"),
    ],
)
def test_malformed_and_out_of_range_links_are_refused_with_file_and_line(
    tmp_path, line, base, message
):
    path = tmp_path / "dev.gold"
    path.write_text(f"1-1\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=f"dev.gold, {message}"):
        read_gold(path, base=base, sizes=[(3, 3), (3, 3)])


def test_gold_lines_must_match_the_pairs(tmp_path):
    path = tmp_path / "dev.gold"
    path.write_text("1-1\n", encoding="utf-8")
    with pytest.raises(ValueError, match="dev.gold has 1 lines but there are 2 pairs"):
        read_gold(path, base=1, sizes=word_counts(["a b", "c"], ["x", "y z"]))
    with pytest.raises(ValueError, match="count from 0 or 1, not 2"):
        parse_links("1-1", base=2)


# --- the record -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    path = tmp_path_factory.mktemp("models") / "mt"
    with single_thread():
        save_model_dir(path, tiny_transformer(seed=3), tokenizer())
    return path


def test_the_record_round_trips_through_the_model_directory(model_dir, tmp_path):
    directory = tmp_path / "mt"
    shutil.copytree(model_dir, directory)
    assert read_method(directory) == DEFAULT
    chosen = AlignmentMethod("shift", 1, (0, 2), "source", "grow-diag-final-and", "dev.gold", 0.25)
    write_method(directory, chosen)
    assert read_method(directory) == chosen
    meta = json.loads((directory / "config.json").read_text())
    assert meta["alignment"] == {"method": "shift", "layer": 1, "heads": [0, 2],
                                 "normalize": "source", "links": "grow-diag-final-and",
                                 "spelling": 0.0, "linked": 0.0, "blend": 0.0,
                                 "blend_layer": None, "confidence": 0.0,
                                 "chosen_on": "dev.gold", "aer": 0.25}  # fmt: skip
    assert meta["model"] == json.loads((model_dir / "config.json").read_text())["model"]
    Translator.load(directory)  # still a model directory


def test_a_guided_training_record_and_the_default(model_dir):
    guided = {"method": "predict", "layer": 1, "heads": [3], "chosen_on": "guided training"}
    method = method_from_meta({"alignment": guided})
    assert method == AlignmentMethod("predict", 1, (3,), "target", "argmax", "guided training")
    assert method_from_meta({}) == DEFAULT == method_from_meta({"alignment": None})
    # the default's layer is the penultimate (0-based), every head
    assert DEFAULT.resolve(n_layers=6, n_heads=8) == AlignmentMethod("predict", 4, None)
    assert DEFAULT.resolve(n_layers=1, n_heads=8).layer == 0


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ({"method": "attention"}, "method must be one of"),
        ({"method": "predict", "head": [1]}, r"unknown keys \['head'\]"),
        ({"method": "erase", "layer": 1}, "erase method has no layer"),
        ({"method": "predict", "layer": -1}, "layer counts from 0"),
        ({"method": "predict", "heads": []}, "heads must be null or indices"),
        ({"method": "predict", "links": "union"}, "links must be one of"),
        ([1, 2], "expected an object"),
    ],
)
def test_bad_records_are_refused_naming_the_file(record, message):
    with pytest.raises(ValueError, match=f"model/config.json: 'alignment'.*{message}"):
        method_from_meta({"alignment": record}, "model/config.json")


def test_a_record_beyond_the_model_is_refused_when_used():
    with pytest.raises(ValueError, match="decoder layers 0..1, not 2"):
        AlignmentMethod("predict", 2).resolve(n_layers=2, n_heads=4)
    with pytest.raises(ValueError, match="heads 0..3, not 4"):
        AlignmentMethod("predict", 0, (4,)).resolve(n_layers=2, n_heads=4)


# --- erasure and choosing -------------------------------------------------------------------


def test_erasure_is_the_drop_in_log_probability_with_a_word_hidden(model_dir):
    translator = Translator.load(model_dir)
    model, tok = translator.model, translator.tokenizer
    src, tgt = tok.encode(SOURCE), tok.encode(TARGET)
    scores = erasure_scores(model, src, tgt, tok.pieces(src), tok.pieces(tgt))
    assert scores.shape == (len(TARGET.split()), len(SOURCE.split()))
    assert torch.equal(scores, erase_pair(translator, SOURCE, TARGET))

    def log_p(ids: list[int]) -> torch.Tensor:  # [T] log p of each target token, one at a time
        read = torch.tensor([[model.config.start_id, *tgt[:-1]]])
        with torch.inference_mode():
            logits = model(torch.tensor([ids]), read)[0].log_softmax(-1)
        return logits[torch.arange(len(tgt)), torch.tensor(tgt)]

    from heedful.explain.alignment_methods import source_words, target_words

    words_in, words_out = source_words(tok.pieces(src)), target_words(tok.pieces(tgt))
    whole = log_p(src)
    for k, group in enumerate(words_in):
        hidden = [model.config.pad_id if p in group else i for p, i in enumerate(src)]
        drop = whole - log_p(hidden)
        expected = torch.stack([drop[g].mean() for g in words_out])
        assert torch.allclose(scores[:, k], expected, atol=1e-5)


def test_choose_finds_the_one_head_and_reading_that_matches_the_gold():
    """8 one-piece words a side; in layer 2, head 3, the row where target word j is read looks
    at source word perm[j]; every other head is noise."""
    perm = [3, 0, 6, 1, 7, 2, 5, 4]
    torch.manual_seed(0)
    cross = torch.rand(2, 3, 9, 9).softmax(-1)  # [L, H, T, S], pieces + </s> on both sides
    cross[1, 2] = torch.eye(9)[[8, *perm]]  # row 0 (reads <s>) on </s>; row j + 1 reads word j
    pieces = [f"▁{c}" for c in "abcdefgh"] + ["</s>"]
    pair = Pair(Attended("", "", pieces, pieces, None, None, cross))
    truth = {(i, j) for j, i in enumerate(perm)}
    assert links_of(pair, AlignmentMethod("shift", 1, (2,))) == truth
    gold = [Gold(truth, set(truth))]
    best, tried = choose([pair], gold, "hand-made", methods=("predict", "shift"))
    assert best.aer == 0.0 and best.chosen_on == "hand-made"
    assert (best.method, best.layer) == ("shift", 1)
    assert links_of(pair, best) == truth
    assert evaluate([pair], gold, best) == 0.0
    # read one row too early (predict), the same head links word j to perm[j - 1]
    assert min(c.aer for c in tried if c.method == "predict") > 0.5
    # the same head in a full-context pass, the causal pass noise: "full" wins
    noise = torch.rand(2, 3, 9, 9).softmax(-1)
    full = Pair(replace(pair.attended, cross=noise, cross_full=cross))
    best, _ = choose([full], gold, "hand-made", methods=("predict", "shift", "full"))
    assert (best.method, best.layer, best.aer) == ("full", 1, 0.0)
    with pytest.raises(ValueError, match="full-context pass"):
        choose([pair], gold, "hand-made", methods=("full",))
    with pytest.raises(ValueError, match="needs the pair's erasure scores"):
        choose([full], gold, "hand-made")


def test_choose_weighs_the_words_spelling_where_it_helps():
    """Words spelt alike on both sides; every head attends one word off: the model alone gets
    no link right, and with the spelling the choice gets every link."""
    words = ["▁animal", "▁control", "▁nation", "▁public", "▁minister", "▁central"]
    pieces = [*words, "</s>"]
    n = len(words)
    torch.manual_seed(0)
    off = torch.eye(n + 1)[[n, *[(j + 1) % n for j in range(n)]]]  # row j + 1 reads word j
    cross = (off + 0.05 * torch.rand(2, 3, n + 1, n + 1)).softmax(-1)
    pair = Pair(Attended("", "", pieces, pieces, None, None, cross))
    truth = {(j, j) for j in range(n)}
    gold = [Gold(truth, set(truth))]
    best, tried = choose([pair], gold, "hand-made", methods=("shift",))
    assert best.spelling > 0 and best.aer == 0.0 and links_of(pair, best) == truth
    # (blended with the predict reading, a row's own word is the word after: some links right)
    assert min(c.aer for c in tried if not c.spelling and not c.blend) > 0.5


def test_choose_weighs_the_words_the_training_linked_where_it_helps():
    """Words spelt nothing alike; every head attends one word off; the training's links join
    each source word to its target word: only with them does the choice get every link, and
    without their table it tries no such weight."""
    sources = ["▁dog", "▁house", "▁cat", "▁tree", "▁water", "▁bread"]
    targets = ["▁chien", "▁maison", "▁chat", "▁arbre", "▁eau", "▁pain"]
    n = len(sources)
    torch.manual_seed(0)
    off = torch.eye(n + 1)[[n, *[(j + 1) % n for j in range(n)]]]  # row j + 1 reads word j
    cross = (off + 0.05 * torch.rand(2, 3, n + 1, n + 1)).softmax(-1)
    attended = Attended("", "", [*sources, "</s>"], [*targets, "</s>"], None, None, cross)
    truth = {(j, j) for j in range(n)}
    gold = [Gold(truth, set(truth))]
    pair = Pair(attended, linked=torch.eye(n))
    best, tried = choose([pair], gold, "hand-made", methods=("shift",))
    assert best.linked > 0 and best.aer == 0.0 and links_of(pair, best) == truth
    assert min(c.aer for c in tried if not c.linked and not c.blend) > 0.5
    _, without = choose([Pair(attended)], gold, "hand-made", methods=("shift",))
    assert not any(c.linked for c in without)
    with pytest.raises(ValueError, match="has no linked-words.tsv"):
        links_of(Pair(attended), best)


def test_align_weighs_the_model_directory_s_linked_words(model_dir, files, tmp_path, capsys):
    from heedful.explain.alignment_choice import linked_of
    from heedful.explain.linked_words import LinkedWords

    args = ["--source", files("src", SOURCES), "--target", files("tgt", TARGETS)]
    assert main(["align", "--model", str(model_dir), *args, "--linked", "1"]) == 1
    assert "has no linked-words.tsv" in capsys.readouterr().err
    directory = tmp_path / "mt"
    shutil.copytree(model_dir, directory)
    pairs = zip(SOURCES, TARGETS, strict=True)
    words = [(s.rstrip(".").split(), t.rstrip(".").split()) for s, t in pairs]
    links = [{(i, i) for i in range(min(len(s), len(t)))} for s, t in words]
    LinkedWords.count([s for s, _ in words], [t for _, t in words], links).write(directory)
    translator = Translator.load(directory)
    assert translator.linked_words is not None
    assert main(["align", "--model", str(directory), *args, "--linked", "1"]) == 0
    method = replace(read_method(directory), linked=1.0).resolve(2, 4)
    forced = [translator.attend(s, t) for s, t in zip(SOURCES, TARGETS, strict=True)]
    expected = [links_of(Pair(a, linked=linked_of(translator, a)), method) for a in forced]
    assert capsys.readouterr().out.splitlines() == [format_links(e) for e in expected]
    assert [align_pair(translator, a, method) for a in forced] == expected


def test_the_model_s_own_links_make_its_table(model_dir, files, tmp_path, capsys):
    """``--write-linked``: the pairs' words split as eflomal's are ("duerme." -> "duerme", "."),
    aligned by the recorded method without table, spelling or blend, counted; the same table
    batch by batch as all at once; then ``--linked`` reads it."""
    from heedful.explain.alignment_choice import align_ids
    from heedful.explain.alignment_choice import own_linked_words as own
    from heedful.explain.linked_words import FILE, LinkedWords
    from heedful.wordalign import words_with_spans

    directory = tmp_path / "mt"
    shutil.copytree(model_dir, directory)
    recorded = AlignmentMethod("shift", 1, (2,), links="intersection", spelling=2.0, blend=0.5)
    write_method(directory, recorded)
    translator = Translator.load(directory)
    args = ["align", "--model", str(directory), "--source", files("src", SOURCES),
            "--target", files("tgt", TARGETS)]  # fmt: skip
    assert main([*args, "--write-linked"]) == 0
    assert "wrote" in capsys.readouterr().err
    plain = AlignmentMethod("shift", 1, (2,), links="intersection").resolve(2, 4)
    pairs = zip(SOURCES, TARGETS, strict=True)
    split = [(words_with_spans(s)[0], words_with_spans(t)[0]) for s, t in pairs]
    assert split[2] == (["Tom", "duerme", "."], ["Tom", "sleeps", "."])
    ids = [(translator.tokenizer.encode(" ".join(s)), translator.tokenizer.encode(" ".join(t)))
           for s, t in split]  # fmt: skip
    links = align_ids(translator, ids, plain)
    expected = LinkedWords.count([s for s, _ in split], [t for _, t in split], links)
    written = LinkedWords.load(directory)
    assert written.dice == pytest.approx(expected.dice, rel=1e-3)
    source_words = {w.lower() for s, _ in split for w in s}
    target_words = {w.lower() for _, t in split for w in t}
    assert written.dice and all(s in source_words and t in target_words for s, t in written.dice)
    assert written.origin == f"the model's own links ({plain.describe()}) over 3 pairs of src"
    one_by_one, left_out = own(translator, SOURCES, TARGETS, plain, "src", batch_size=1)
    assert left_out == 0 and one_by_one.dice == pytest.approx(expected.dice, rel=1e-6)
    with pytest.raises(ValueError, match="cannot come from a method that reads one"):
        own(translator, SOURCES, TARGETS, replace(plain, linked=1.0), "src")
    assert main([*args, "--linked", "1"]) == 0  # the table is read
    assert capsys.readouterr().out.count("\n") == 3
    assert (directory / FILE).read_text(encoding="utf-8").startswith("# the model's own links")
    for extra, message in (
        (["--write-linked", "--linked", "1"], "cannot come from a method that reads one"),
        (["--write-linked", "--method", "erase"], "counts attention links, not erase's"),
    ):
        assert main([*args, *extra]) == 1
        assert message in capsys.readouterr().err
    assert main(["align", "--model", str(directory), "Hola.", "--write-linked"]) == 1
    assert "--write-linked needs --source and --target" in capsys.readouterr().err


def test_a_blend_multiplies_two_readings_made_to_sum_to_one():
    first = torch.tensor([[2.0, 2.0, 0.0], [1.0, 0.0, 3.0]])
    second = torch.tensor([[0.0, 1.0, 1.0], [1.0, 1.0, 2.0]])
    expected = (
        torch.tensor([[0.5, 0.5, 0.0], [0.25, 0.0, 0.75]]).sqrt()
        * (torch.tensor([[0.0, 0.5, 0.5], [0.25, 0.25, 0.5]]) + 1e-6).sqrt()
    )
    assert torch.allclose(blended(first, second, 0.5), expected)
    assert torch.allclose(blended(first, second, 0.0), first / first.sum(1, keepdim=True))
    method = AlignmentMethod("shift", 1, (0,), blend=0.5)
    assert method.resolve(3, 4).blend_layer == 2  # the last layer by default
    assert method.resolve(3, 4).record()["blend_layer"] == 2
    assert AlignmentMethod.from_record(method.resolve(3, 4).record()) == method.resolve(3, 4)
    assert "blended with predict, the last, all heads (weight 0.5)" in method.describe()
    assert AlignmentMethod().resolve(3, 4).blend_layer is None  # no blend: no layer
    with pytest.raises(ValueError, match="blend weight must be from 0 to below 1"):
        AlignmentMethod(blend=1.0)
    with pytest.raises(ValueError, match="no attention to blend"):
        AlignmentMethod("erase", blend=0.5)
    with pytest.raises(ValueError, match="not 3 to blend"):
        AlignmentMethod(blend=0.5, blend_layer=3).resolve(3, 4)


def test_choose_blends_a_second_reading_where_both_readings_agree():
    """The guided reading (shift, layer 1, head 1) gives each target word its own source word
    0.45 and the next word 0.55; the last layer's predict reading gives it 0.45 and the word two
    after 0.55. Alone, each links every word wrong; blended, only the right word has weight in
    both."""
    n = 6
    sources, targets = [f"▁w{k}" for k in range(n)], [f"▁v{k}" for k in range(n)]
    cross = torch.full((2, 2, n + 1, n + 1), 1.0 / (n + 1))
    for j in range(n):
        cross[0, 0, j + 1] = 0.0  # shift: row j + 1 reads target word j
        cross[0, 0, j + 1, j], cross[0, 0, j + 1, (j + 1) % n] = 0.45, 0.55
        cross[1, :, j] = 0.0  # predict: row j
        cross[1, :, j, j], cross[1, :, j, (j + 2) % n] = 0.45, 0.55
        cross[0, 1, j + 1] = 0.0  # the other head of the first layer: another word entirely
        cross[0, 1, j + 1, (j + 3) % n] = 1.0
    pair = Pair(Attended("", "", [*sources, "</s>"], [*targets, "</s>"], None, None, cross))
    truth = {(j, j) for j in range(n)}
    gold = [Gold(truth, set(truth))]
    best, tried = choose([pair], gold, "hand-made", methods=("shift",))
    assert best.blend > 0 and best.aer == 0.0
    assert links_of(pair, best) == truth
    assert min(c.aer for c in tried if not c.blend) > 0.5


def test_a_confidence_keeps_only_the_links_that_hold_a_share_of_their_target_word():
    scores = torch.tensor([[0.9, 0.05, 0.05], [0.3, 0.4, 0.3], [0.05, 0.15, 0.8]])
    assert link(scores) == {(0, 0), (1, 1), (2, 2)}
    assert link(scores, confidence=0.5) == {(0, 0), (2, 2)}  # "1" holds 0.4 of its word's
    assert link(scores, confidence=0.35) == {(0, 0), (1, 1), (2, 2)}
    assert link(scores, links="intersection", confidence=0.85) == {(0, 0)}
    # the shares are of the weighed scores: the linked words' table makes "1" - "1" sure
    table = torch.tensor([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]])
    assert link(scores, linked_prior=table, linked=1.0, confidence=0.5) == {(0, 0), (1, 1), (2, 2)}
    method = AlignmentMethod("shift", 1, (0,), links="intersection", confidence=0.5)
    assert AlignmentMethod.from_record(method.record()) == method
    assert method_from_meta({"alignment": {"method": "shift"}}).confidence == 0.0
    assert "each link 0.5 or more of its target word's scores" in method.describe()
    with pytest.raises(ValueError, match="confidence must be from 0 to below 1"):
        AlignmentMethod(confidence=1.0)


def test_choose_keeps_only_sure_links_where_the_gold_leaves_a_word_unlinked():
    """The guided reading gives each target word its own source word 0.9, but word 2 (a word
    the other language lacks) spreads over all, 0.3 at most, on source word 5, which no other
    target word reads (so linking both ways keeps it too); the gold links it to none."""
    n = 5
    sources, targets = [f"▁w{k}" for k in range(n + 1)], [f"▁v{k}" for k in range(n)]
    cross = torch.full((2, 2, n + 1, n + 2), 1.0 / (n + 2))
    for j in range(n):
        cross[0, 0, j + 1] = 0.1 / n  # shift: row j + 1 reads target word j
        cross[0, 0, j + 1, j] = 0.9
    cross[0, 0, 3, : n + 1] = torch.tensor([0.1, 0.15, 0.15, 0.15, 0.15, 0.3])
    pair = Pair(Attended("", "", [*sources, "</s>"], [*targets, "</s>"], None, None, cross))
    truth = {(j, j) for j in range(n) if j != 2}
    best, tried = choose([pair], [Gold(truth, set(truth))], "hand-made", methods=("shift",))
    assert best.confidence > 0 and best.aer == 0.0
    assert links_of(pair, best) == truth
    assert min(c.aer for c in tried if not c.confidence) > 0.0


def test_choose_tries_the_confidence_on_its_best_readings_before_blending(monkeypatch):
    """Head 1 is sure of each word the gold links (0.9) and spreads the two words it leaves
    unlinked, 0.3 at most, on extra source words; head 2 sends those two, and word 4, to words
    already linked. Linked both ways, the mean of the heads misses word 4 (AER 0.2), head 1
    links the two unlinked words (0.25); only head 1 with a confidence is right, and no step
    that starts from the mean of the heads finds it."""
    n, extra = 5, 2
    sources, targets = [f"▁w{k}" for k in range(n + extra)], [f"▁v{k}" for k in range(n)]
    width = n + extra + 1
    cross = torch.full((2, 2, n + 1, width), 1.0 / width)
    for j in range(n):  # shift: row j + 1 reads target word j
        cross[0, :, j + 1] = 0.0
        cross[0, 0, j + 1, j], cross[0, 0, j + 1, -1] = 0.9, 0.1
    for j, k in ((2, 5), (3, 6)):
        cross[0, 0, j + 1, :n], cross[0, 0, j + 1, k] = 0.12, 0.3
    for j, k in ((0, 0), (1, 1), (2, 0), (3, 1), (4, 0)):
        cross[0, 1, j + 1, k] = 1.0
    pair = Pair(Attended("", "", [*sources, "</s>"], [*targets, "</s>"], None, None, cross))
    truth = {(j, j) for j in (0, 1, 4)}
    gold = [Gold(truth, set(truth))]
    best, _ = choose([pair], gold, "hand-made", methods=("shift",))
    assert (best.heads, best.confidence, best.aer) == ((0,), 0.5, 0.0)
    monkeypatch.setattr(alignment_choice, "SURE_FIRST", 0)  # the confidence tried last only
    best, _ = choose([pair], gold, "hand-made", methods=("shift",))
    assert best.heads is None and best.aer > 0.1


# --- the command ----------------------------------------------------------------------------

SOURCES = [SOURCE, "El perro come.", "Tom duerme."]
TARGETS = [TARGET, "The dog eats.", "Tom sleeps."]


@pytest.fixture
def files(tmp_path):
    def write(name: str, lines: list[str]):
        (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        return str(tmp_path / name)

    return write


def test_align_scores_a_one_based_gold_and_uses_the_options(model_dir, files, capsys):
    translator = Translator.load(model_dir)
    pairs = [Pair(translator.attend(s, t)) for s, t in zip(SOURCES, TARGETS, strict=True)]
    method = AlignmentMethod("shift", 0, (1,), "source", "grow-diag-final-and")
    expected = [links_of(p, method) for p in pairs]
    one_based = [" ".join(f"{i + 1}-{j + 1}" for i, j in sorted(links)) for links in expected]
    args = ["align", "--model", str(model_dir), "--source", files("src", SOURCES),
            "--target", files("tgt", TARGETS), "--gold", files("gold", one_based),
            "--gold-base", "1", "--method", "shift", "--layer", "1", "--heads", "2",
            "--normalize", "source", "--links", "grow-diag-final-and"]  # fmt: skip
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines() == [format_links(links) for links in expected]
    assert (
        "using layer 1: AER 0.0000 (shift, layer 1, heads 2, normalized per source word"
        in captured.err
    )
    bad = files("bad", ["1-1", "1-1", "3-1"])  # "Tom duerme." has 2 words
    assert main([*args[:8], bad, "--gold-base", "1"]) == 1
    assert "bad, line 3: '3-1' points past the sentence pair's words" in capsys.readouterr().err


def test_align_choose_records_the_best_and_align_then_uses_it(model_dir, files, tmp_path, capsys):
    directory = tmp_path / "mt"
    shutil.copytree(model_dir, directory)
    translator = Translator.load(directory)
    pairs = prepare(translator, SOURCES, TARGETS, erase=True)
    truth = AlignmentMethod("predict", 1, (3,), "source", "argmax")
    gold_lines = [format_links(links_of(p, truth)) for p in pairs]
    args = ["--model", str(directory), "--source", files("src", SOURCES),
            "--target", files("tgt", TARGETS)]  # fmt: skip
    assert main(["align", *args, "--gold", files("gold", gold_lines), "--choose"]) == 0
    captured = capsys.readouterr()
    recorded = read_method(directory)
    assert recorded.aer == 0.0 and recorded.chosen_on.endswith("gold")
    assert f"chosen: {recorded.describe()}, AER 0.0000" in captured.err
    assert captured.out.splitlines() == gold_lines
    # by default now: the recorded method, whatever it is (the gold may have ties)
    assert main(["align", *args]) == 0
    assert capsys.readouterr().out.splitlines() == [
        format_links(links_of(p, recorded)) for p in pairs
    ]
    # and the old default on request
    assert main(["align", *args, "--method", "predict", "--layer", "1", "--heads", "all",
                 "--normalize", "target", "--links", "argmax"]) == 0  # fmt: skip
    old = DEFAULT.resolve(2, 4)
    assert capsys.readouterr().out.splitlines() == [format_links(links_of(p, old)) for p in pairs]


def test_align_erase_and_refusals(model_dir, files, capsys):
    translator = Translator.load(model_dir)
    args = ["align", "--model", str(model_dir), "--source", files("src", SOURCES),
            "--target", files("tgt", TARGETS)]  # fmt: skip
    assert main([*args, "--method", "erase"]) == 0
    expected = [link(erase_pair(translator, s, t)) for s, t in zip(SOURCES, TARGETS, strict=True)]
    assert capsys.readouterr().out.splitlines() == [format_links(e) for e in expected]
    forced = [translator.attend(s, t) for s, t in zip(SOURCES, TARGETS, strict=True)]
    assert [align_pair(translator, a, AlignmentMethod("erase")) for a in forced] == expected
    shift = AlignmentMethod("shift", 1, (0, 3), links="grow-diag-final-and")
    assert align_pair(translator, forced[0], shift) == links_of(Pair(forced[0]), shift)
    assert main([*args, "--method", "erase", "--layer", "1"]) == 1
    assert "erase method has no layer" in capsys.readouterr().err
    assert main([*args, "--heads", "5"]) == 1
    assert "the model has heads 1..4" in capsys.readouterr().err
    assert main([*args, "--choose"]) == 1
    assert "--choose needs --gold" in capsys.readouterr().err
    assert main([*args, "--spelling", "-1"]) == 1
    assert "--spelling must be 0 or more" in capsys.readouterr().err
    assert main([*args, "--confidence", "1"]) == 1
    assert "confidence must be from 0 to below 1, not 1.0" in capsys.readouterr().err
    assert main([*args, "--confidence", "0.6"]) == 0
    sure = AlignmentMethod(links="argmax", confidence=0.6).resolve(2, 4)
    expected = [links_of(Pair(a), sure) for a in forced]
    assert capsys.readouterr().out.splitlines() == [format_links(e) for e in expected]
    assert sum(map(len, expected)) < sum(len(links_of(Pair(a), replace(sure, confidence=0.0)))
                                         for a in forced)  # fmt: skip
    assert main([*args, "--spelling", "2"]) == 0  # the pairs' words spelt alike: "Tom" - "Tom"
    spelt = AlignmentMethod(links="argmax", spelling=2.0).resolve(2, 4)
    expected = [links_of(Pair(a), spelt) for a in forced]
    assert capsys.readouterr().out.splitlines() == [format_links(e) for e in expected]


def test_align_help_documents_the_gold_format(capsys):
    with pytest.raises(SystemExit):
        main(["align", "--help"])
    out = capsys.readouterr().out
    for phrase in [
        "i-j  a sure link",
        "i?j or ipj",
        "--gold-base",
        "refused with the file and line",
    ]:
        assert phrase in out
