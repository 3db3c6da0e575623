"""Training for real input: augmentation (heedful.data.augment), digits split, guided alignment
(heedful.wordalign, heedful.training.alignment), fine-tuning from a model directory, and exact
resume with all of them on."""

import shutil
from pathlib import Path

import pytest
import torch
from test_training_resume import CONFIG, SETTINGS, N, assert_same_run, finish, heedful

from heedful.checkpoint import load_model_dir, load_tensors
from heedful.config import ModelConfig
from heedful.data import read_split
from heedful.data.augment import Augmentation, augment, casual, proper_nouns, title_case
from heedful.data.corpus import normalize_pairs
from heedful.data.readers import ParallelText
from heedful.lexicon import Lexicon
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.training.alignment import AlignmentHead, alignment_loss, batch_entries
from heedful.training.progress import read_log
from heedful.wordalign import (
    eflomal_links,
    piece_links,
    piece_spans,
    symmetrize,
    word_of_pieces,
    words_with_spans,
)

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
ES_EN = REPO / "models" / "es-en"


@pytest.fixture(scope="module")
def spanish():
    """2,000 normalised Tatoeba Spanish-English training pairs."""
    text = read_split(DATA, "tatoeba/spa-eng/train.tsv", "es", "en", ("en", "es")).head(2000)
    return normalize_pairs(text)[0]


# --- augmentation -------------------------------------------------------------------------------


def test_augmentation_is_deterministic_given_the_seed_and_keeps_the_original_pairs(spanish):
    plan = Augmentation(names=0.1, numbers=0.05, caps=0.05, title=0.05, casual=0.05, concat=0.05)
    a, counts = augment(spanish, plan, src="es", tgt="en", seed=3)
    b, _ = augment(spanish, plan, src="es", tgt="en", seed=3)
    c, _ = augment(spanish, plan, src="es", tgt="en", seed=4)
    assert a.sources == b.sources and a.targets == b.targets
    assert a.sources != c.sources
    assert a.sources[: len(spanish)] == spanish.sources
    assert len(a) == len(spanish) + sum(counts.values())
    assert all(counts[k] > 0 for k in ("names", "numbers", "caps", "title", "casual", "concat"))


def test_names_are_replaced_by_the_same_unseen_name_on_both_sides(spanish):
    a, counts = augment(spanish, Augmentation(names=0.1), src="es", tgt="en", seed=1)
    added = list(zip(a.sources[len(spanish) :], a.targets[len(spanish) :], strict=True))
    assert counts["names"] == len(added) > 100
    originals = set(zip(spanish.sources, spanish.targets, strict=True))
    known = {w.strip(".,?!¿¡") for s in spanish.sources + spanish.targets for w in s.split()}
    new_names = 0
    for s, t in added:
        assert (s, t) not in originals
        fresh = [w.strip(".,?!¿¡") for w in s.split() if w.strip(".,?!¿¡") not in known]
        fresh = [w for w in fresh if w[:1].isupper()]
        new_names += bool(fresh)
        assert all(w in t for w in fresh), (s, t)  # the same name on the target side
    assert new_names > 0.8 * len(added)


def test_proper_nouns_are_learned_from_the_corpus():
    texts = ["I saw Tom.", "Tom is here.", "Ask Tom.", "Call Tom now.", "The dog.", "A The."] + [
        "Is Paris big?",
        "I like Paris.",
        "We saw Paris.",
        "paris",
    ]
    nouns = proper_nouns(texts, min_count=3, lower_share=0.05)
    assert "Tom" in nouns and "Paris" not in nouns and "The" not in nouns


def test_numbers_are_replaced_on_both_sides_with_each_language_s_decimal_separator():
    pairs = ParallelText(["Compré 3 manzanas.", "Tengo dos perros."] * 50,
                         ["I bought 3 apples.", "I have two dogs."] * 50, "test")  # fmt: skip
    a, counts = augment(pairs, Augmentation(numbers=2.0), src="es", tgt="en", seed=5)
    added = list(zip(a.sources[100:], a.targets[100:], strict=True))
    assert counts["numbers"] == len(added) == 200
    decimals = 0
    for s, t in added:
        number_s = [w for w in s.split() if any(c.isdigit() for c in w)]
        number_t = [w for w in t.split() if any(c.isdigit() for c in w)]
        assert len(number_s) == len(number_t) == 1, (s, t)
        if "," in number_s[0]:
            decimals += 1
            assert number_t[0] == number_s[0].replace(",", "."), (s, t)
        else:
            assert number_s[0] == number_t[0], (s, t)
    assert decimals > 10


def test_source_side_noise():
    assert casual("¿Dónde está el baño?") == "donde esta el bano"
    assert casual("Él habla francés.") == "el habla frances"
    assert title_case("don't look at me.") == "Don't Look At Me."


# --- digits ---------------------------------------------------------------------------------------


def test_a_loaded_tokenizer_can_split_digits_and_keeps_every_other_id(spanish):
    numbers = [
        f"En {y} pagué {n}00,50 euros a las 2:30." for y in range(1990, 2030) for n in (1, 2)
    ]
    tokenizer = Tokenizer.train(spanish.sources + spanish.targets + numbers * 5, 1000)
    split = tokenizer.with_digits_split()
    assert split.vocab_size == tokenizer.vocab_size
    pieces = split.pieces(split.encode("En 2015 pagué 100,50 euros a las 2:30.", add_eos=False))
    assert all(sum(c.isdigit() for c in p) <= 1 for p in pieces)
    assert "".join(pieces).replace("▁", " ").strip() == "En 2015 pagué 100,50 euros a las 2:30."
    before = tokenizer.pieces(tokenizer.encode("En 2015 a las 2:30.", add_eos=False))
    assert any(sum(c.isdigit() for c in p) > 1 for p in before)  # the test could fail
    plain = "El gato negro duerme en el jardín."
    assert split.encode(plain) == tokenizer.encode(plain)
    shipped = Tokenizer.load(ES_EN / "spm.model")  # the bundled model reads digits one by one
    pieces = shipped.pieces(shipped.encode("En 2015 pagué 100,50 euros.", add_eos=False))
    assert all(sum(c.isdigit() for c in p) <= 1 for p in pieces)


# --- word and piece alignments -------------------------------------------------------------------


def test_words_with_spans():
    words, spans = words_with_spans("L'homme, c'est 7,50.")
    assert words == ["L'", "homme", ",", "c'", "est", "7", ",", "50", "."]
    assert [("L'homme, c'est 7,50.")[a:b] for a, b in spans] == words


def test_grow_diag_final_and_by_hand():
    forward = {(0, 0), (1, 1), (2, 1), (3, 3)}
    reverse = {(0, 0), (1, 1), (2, 2), (3, 2)}
    assert symmetrize(forward, reverse, 4, 4, "intersection") == {(0, 0), (1, 1)}
    assert symmetrize(forward, reverse, 4, 4, "union") == forward | reverse
    # grow: (2, 1) and then (2, 2) neighbour (1, 1); (3, 2) neighbours (2, 1) diagonally and
    # aligns source 3; (3, 3) neighbours (2, 2) and aligns target 3
    assert symmetrize(forward, reverse, 4, 4, "grow-diag-final-and") == forward | reverse
    # final-and: a union link far from the rest joins only if both its words are unaligned
    assert symmetrize({(0, 0), (2, 2)}, {(0, 0)}, 3, 3, "grow-diag-final-and") == {(0, 0), (2, 2)}
    assert symmetrize({(0, 0), (0, 2)}, {(0, 0)}, 3, 3, "grow-diag-final-and") == {(0, 0)}


def test_piece_links_follow_the_words():
    tokenizer = Tokenizer.load(ES_EN / "spm.model")
    source, target = "El gato negro.", "The black cat."
    _, s_surfaces = tokenizer.encode_with_spans(source)
    _, t_surfaces = tokenizer.encode_with_spans(target)
    s_spans, t_spans = piece_spans(s_surfaces), piece_spans(t_surfaces)
    assert [source[a:b] for a, b in s_spans] == [s.strip() for s in s_surfaces]
    s_words = word_of_pieces(s_spans, words_with_spans(source)[1])
    t_words = word_of_pieces(t_spans, words_with_spans(target)[1])
    links = piece_links({(0, 0), (1, 2), (2, 1), (3, 3)}, s_words, t_words)
    for s_piece, t_piece in links:
        pair = (s_words[s_piece], t_words[t_piece])
        assert pair in {(0, 0), (1, 2), (2, 1), (3, 3)}
    linked_targets = {t for _, t in links}
    assert linked_targets == set(range(len(t_surfaces)))


def test_eflomal_aligns_names_to_themselves(spanish):
    with_tom = [(s, t) for s, t in zip(spanish.sources, spanish.targets, strict=True)
                if s.split().count("Tom") == 1 and t.split().count("Tom") == 1]  # fmt: skip
    assert len(with_tom) > 50
    sources = [words_with_spans(s)[0] for s in spanish.sources]
    targets = [words_with_spans(t)[0] for t in spanish.targets]
    links = eflomal_links(sources, targets)
    found = total = 0
    for (s, t), x in zip(zip(spanish.sources, spanish.targets, strict=True), links, strict=True):
        if (s, t) in with_tom:
            i = words_with_spans(s)[0].index("Tom")
            j = words_with_spans(t)[0].index("Tom")
            found += (i, j) in x
            total += 1
    assert found > 0.9 * total


# --- the loss -------------------------------------------------------------------------------------


def test_the_alignment_head_sees_what_the_model_computes():
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(50)).eval()
    head = AlignmentHead(model, layer=1, head=1)
    src = torch.tensor([[5, 6, 7, 2, 0], [8, 9, 10, 11, 2]])
    tgt = torch.tensor([[1, 12, 13, 0], [1, 14, 15, 16]])
    out = model(src, tgt, return_attention=True)
    expected = out.attention.cross[1, :, 1]  # [B, T, S]
    got = head.read().log_weights().exp()
    assert torch.allclose(got, expected, atol=1e-5)
    index, weights = batch_entries([[(0, 0), (1, 0), (2, 1)], [(3, 2)]], shift=0)
    assert index.tolist() == [[0, 0, 0], [0, 0, 1], [0, 1, 2], [1, 2, 3]]
    shifted, _ = batch_entries([[(0, 0), (1, 0), (2, 1)], [(3, 2)]])  # where y_t is the input
    assert (shifted[:, 1] == index[:, 1] + 1).all() and (
        shifted[:, [0, 2]] == index[:, [0, 2]]
    ).all()
    assert weights.tolist() == [0.5, 0.5, 1.0, 1.0]
    model(src, tgt)
    loss = alignment_loss(head.read().log_weights(), index, weights)
    by_hand = -(
        0.5 * expected[0, 0, 0].log() + 0.5 * expected[0, 0, 1].log()
        + expected[0, 1, 2].log() + expected[1, 2, 3].log()
    )  # fmt: skip
    assert torch.allclose(loss, by_hand, atol=1e-4)


def test_the_full_context_pass_reads_the_whole_target_and_keeps_padding_out():
    """Garg et al.'s pass: the head's weights are the model's own full-context weights, the rows
    before a changed token change with it, and a padded row reads as the same row unpadded."""
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(50)).eval()
    head = AlignmentHead(model, layer=1, head=1)
    src = torch.tensor([[5, 6, 7, 2, 0], [8, 9, 10, 11, 2]])
    tgt = torch.tensor([[1, 12, 13, 0], [1, 14, 15, 16]])

    def full(tgt):
        model(src, tgt)  # the causal pass, as training runs it first
        return head.read_full_context(tgt).log_weights().exp()

    expected = model(src, tgt, return_attention=True, full_context=True).attention.cross[1, :, 1]
    got = full(tgt)
    assert torch.allclose(got, expected, atol=1e-5)
    causal = model(src, tgt, return_attention=True).attention.cross[1, :, 1]
    assert not torch.allclose(got[1, :3], causal[1, :3], atol=1e-3)
    changed = full(torch.tensor([[1, 12, 13, 0], [1, 14, 15, 17]]))
    assert not torch.allclose(changed[1, :3], got[1, :3], atol=1e-3)  # it reads ahead
    alone = full(torch.tensor([[1, 12, 13]]).expand(2, 3))
    assert torch.allclose(alone[0, :3, :4], got[0, :3, :4], atol=1e-5)  # the pad is not read


def test_the_reverse_direction_normalises_over_the_target_pieces():
    """``align.reverse``: the head's scores for each source piece, softmaxed over the decoder
    positions that read a target piece; a source piece linked to k pieces weighs each 1/k."""
    from heedful.training.alignment import reverse_alignment_loss

    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(50)).eval()
    head = AlignmentHead(model, layer=1, head=1)
    src = torch.tensor([[5, 6, 7, 2, 0], [8, 9, 10, 11, 2]])
    tgt = torch.tensor([[1, 12, 13, 0], [1, 14, 15, 16]])
    model(src, tgt)
    targets = tgt != 0
    targets[:, 0] = False
    read = head.read()
    reverse = read.target_log_weights(targets)
    columns = reverse.exp().sum(1)  # every source position's distribution over targets
    assert torch.allclose(columns, torch.ones_like(columns), atol=1e-5)
    assert (reverse.exp()[:, 0] < 1e-6).all() and reverse.exp()[0, 3].max() < 1e-6  # not read
    index, _ = batch_entries([[(0, 0), (0, 1), (1, 1)], [(3, 2)]])  # source 0 -> 2 pieces
    by_hand = -(0.5 * reverse[0, 1, 0] + 0.5 * reverse[0, 2, 0] + reverse[0, 2, 1]
                + reverse[1, 3, 3])  # fmt: skip
    assert torch.allclose(reverse_alignment_loss(reverse, index), by_hand)
    # the scores the forward direction reads: between two target positions, the two directions
    # differ by the rows' normalisers alone, the same for every source position
    forward = read.log_weights()
    gap = (reverse[1, 1] - reverse[1, 2]) - (forward[1, 1] - forward[1, 2])  # [S]
    assert torch.allclose(gap, gap[0].expand_as(gap), atol=1e-4)
    with pytest.raises(RuntimeError, match="no forward pass"):
        head.read()  # read once


def test_the_reverse_loss_is_refused_where_it_cannot_be_read():
    from heedful.training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="align.reverse must be >= 0, not -1"):
        load_config(None, ["align.reverse=-1"])
    with pytest.raises(ConfigError, match="set align.position to shift or full, not predict"):
        load_config(None, ["align.reverse=0.5", "align.position=predict"])
    assert load_config(None, ["align.reverse=0.5", "align.position=full"]).align.reverse == 0.5


# --- runs -----------------------------------------------------------------------------------------

REAL_INPUT = [
    "augment.names=0.2", "augment.numbers=0.1", "augment.caps=0.05", "augment.casual=0.05",
    "augment.concat=0.05", "align.weight=0.5", "data.split_digits=true",
]  # fmt: skip


@pytest.fixture(scope="module")
def straight_real_input(tmp_path_factory):
    out = tmp_path_factory.mktemp("straight-real-input") / "run"
    finish(heedful(*CONFIG, "--out", str(out), "--set", *SETTINGS, *REAL_INPUT,
                   f"train.max_steps={N}"))  # fmt: skip
    return out


def test_guided_alignment_is_logged_and_recorded(straight_real_input):
    """(That the loss falls shows on real runs, not in 40 tiny steps: the bundled en-fr run
    logged 3.22 at step 50, 0.92 at step 300 and 0.48 at step 2,000.)"""
    records = [r for r in read_log(straight_real_input / "log.jsonl") if r["kind"] == "train"]
    assert all(0 < r["align_loss"] < 20 for r in records)
    meta = load_model_dir(straight_real_input)[2]
    assert meta["alignment"] == {"method": "shift", "layer": 0, "heads": [0],
                                 "chosen_on": "guided training (eflomal)"}  # fmt: skip
    assert meta["data"]["augmented"]["names"] > 0
    # the training sources' words (heedful.lexicon), most frequent first
    words = Lexicon.load(straight_real_input)
    assert words is not None and len(words) > 100 and "tom" in words.words[:5]
    links = (straight_real_input / "alignments.txt").read_text().splitlines()
    assert links[0].startswith("# eflomal") and len(links) > 400


def test_the_run_keeps_the_words_its_links_joined_and_the_script_counts_them_again(
    straight_real_input, tmp_path
):
    """linked-words.tsv (heedful.explain.linked_words): written with the model; for a run made
    before that, scripts/linked_words.py counts the same table from the run's config and links."""
    import subprocess
    import sys

    from heedful.explain.linked_words import LinkedWords

    table = LinkedWords.load(straight_real_input)
    assert table is not None and table.dice[(".", ".")] > 0.5
    script = Path(__file__).resolve().parents[1] / "scripts" / "linked_words.py"
    done = subprocess.run(
        [sys.executable, str(script), str(straight_real_input), "--out", str(tmp_path)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "word pairs from" in done.stdout
    assert LinkedWords.load(tmp_path).dice == table.dice
    # a run whose directory is gone: its config (JSON is YAML), the pairs aligned again
    config = tmp_path / "run.yaml"
    shutil.copy(straight_real_input / "train_config.json", config)
    again = tmp_path / "again"
    done = subprocess.run(
        [sys.executable, str(script), "--config", str(config), "--out", str(again)],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "aligning" in done.stdout
    realigned = LinkedWords.load(again).dice  # eflomal samples: nearly, not exactly, the same
    shared = set(realigned) & set(table.dice)
    assert len(shared) > 0.8 * max(len(realigned), len(table.dice))
    assert realigned[(".", ".")] > 0.5


def test_resume_with_augmentation_and_alignment_is_bit_identical(tmp_path, straight_real_input):
    half = tmp_path / "half"
    half.mkdir()
    # eflomal takes no seed: the runs share the links the straight run trained on, as a resumed
    # run reads its own
    shutil.copy(straight_real_input / "alignments.txt", half / "alignments.txt")
    finish(heedful(*CONFIG, "--out", str(half), "--set", *SETTINGS, *REAL_INPUT,
                   f"train.max_steps={N // 2}"))  # fmt: skip
    output = finish(heedful("--resume", str(half), "--set", f"train.max_steps={N}"))
    assert "aligning" not in output  # the cached links were read
    assert_same_run(straight_real_input, half)


def test_resume_with_the_full_context_pass_and_the_reverse_loss_is_bit_identical(tmp_path):
    full = [*REAL_INPUT, "align.position=full", "align.reverse=0.5"]
    straight, half = tmp_path / "straight", tmp_path / "half"
    finish(heedful(*CONFIG, "--out", str(straight), "--set", *SETTINGS, *full,
                   f"train.max_steps={N}"))  # fmt: skip
    assert load_model_dir(straight)[2]["alignment"]["method"] == "full"
    half.mkdir()
    shutil.copy(straight / "alignments.txt", half / "alignments.txt")
    finish(heedful(*CONFIG, "--out", str(half), "--set", *SETTINGS, *full,
                   f"train.max_steps={N // 2}"))  # fmt: skip
    finish(heedful("--resume", str(half), "--set", f"train.max_steps={N}"))
    assert_same_run(straight, half)


def test_fine_tuning_starts_from_the_model_directory(tmp_path, straight_real_input):
    out = tmp_path / "tuned"
    finish(
        heedful(
            *CONFIG,
            "--out",
            str(out),
            "--set",
            *SETTINGS,
            "train.max_steps=1",
            "optim.lr_scale=1e-9",
            f"train.init_from={straight_real_input}",
            "model.preset=base",
        )
    )  # fmt: skip  (the preset is ignored: the shape is init's)
    start = load_tensors(straight_real_input / "model.safetensors")
    tuned = load_tensors(out / "model.safetensors")
    assert set(start) == set(tuned)
    assert all(torch.allclose(start[k].float(), tuned[k].float(), atol=1e-5) for k in start)
    assert (out / "spm.model").read_bytes() == (straight_real_input / "spm.model").read_bytes()
