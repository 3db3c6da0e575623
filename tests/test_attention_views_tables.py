"""Tables in the explainer's form, JSON, PNG heatmaps, and `heedful attend` end to end."""

from __future__ import annotations

import json

import matplotlib.image
import pytest
import torch
from attention_views_support import (
    SOURCE,
    TARGET,
    forced_attended,
    single_thread,
    tiny_lm,
    tiny_transformer,
    tokenizer,
)

from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.explain.heatmaps import save_grid, save_map
from heedful.explain.tables import format_table, table_json, top_links
from heedful.explain.views import AttentionView, short, views
from heedful.explain.words import to_words
from heedful.translator import Translator


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def hand_made_view() -> AttentionView:
    head_1 = [[0.12, 0.81, 0.07], [0.70, 0.10, 0.20]]  # black -> negro, cat -> gato
    head_2 = [[0.50, 0.30, 0.20], [0.30, 0.30, 0.40]]
    weights = torch.tensor([[head_1, head_2]])  # [L=1, H=2, Q=2, K=3]
    return AttentionView("cross", ["black", "cat"], ["gato", "negro", "</s>"], weights)


def test_the_table_reads_like_the_explainer():
    table = format_table(hand_made_view(), layer=0, head=0, top=2)
    lines = table.splitlines()
    assert lines[0] == "cross-attention, layer 1 of 1, head 1"
    assert lines[2] == "Word   | Main words it attends to"
    assert lines[4] == "black  → negro (0.81), gato (0.12)"
    assert lines[5] == "cat    → gato (0.70), </s> (0.20)"


def test_the_mean_of_the_heads_and_top_k():
    mean = format_table(hand_made_view(), layer=0, head=None, top=1).splitlines()
    assert mean[0] == "cross-attention, layer 1 of 1, mean of 2 heads"
    assert mean[4] == "black  → negro (0.56)"  # (0.81 + 0.30) / 2 = 0.555
    assert mean[5] == "cat    → gato (0.50)"


def test_weights_that_print_as_zero_are_left_out_but_one_key_stays():
    view = AttentionView("decoder", ["a", "b"], ["<s>", "a"], torch.tensor([[[[1.0, 0.0]]]]))
    view.queries, view.weights = ["a"], view.weights[:, :, :1]
    assert top_links(view, 0, None, 3) == [("a", [(0, "<s>", 1.0)])]
    diffuse = AttentionView("encoder", ["x"], ["x", "y"], torch.tensor([[[[0.999, 0.001]]]]))
    assert format_table(diffuse, 0).splitlines()[-1] == "x     → x (1.00)"


def test_json_has_every_row_with_indices_and_weights():
    out = table_json(hand_made_view(), layer=0, head=1, top=2)
    assert (out["kind"], out["layer"], out["head"], out["n_heads"]) == ("cross", 1, 2, 2)
    assert out["keys"] == ["gato", "negro", "</s>"]
    assert out["rows"][1] == {
        "index": 1,
        "word": "cat",
        "attends_to": [
            {"index": 2, "word": "</s>", "weight": 0.4},
            {"index": 0, "word": "gato", "weight": 0.3},
        ],
    }
    json.dumps(out)  # plain data


def _png(path):
    image = matplotlib.image.imread(path)  # fails unless it is a PNG
    return image


def test_heatmaps_are_written_and_not_blank(tmp_path):
    words = views(to_words(forced_attended(tiny_transformer())))
    one = _png(save_map(words["cross"], tmp_path / "map.png", layer=1, head=None))
    grid = _png(save_grid(words["encoder"], tmp_path / "grid.png"))
    for image in (one, grid):
        assert image[..., :3].std() > 0.05  # cells, labels, colour bar: not an empty canvas
    assert grid.shape[1] > one.shape[1]  # 2 layers x 4 heads side by side
    long = AttentionView("encoder", ["w"] * 120, ["w"] * 120, torch.rand(1, 1, 120, 120))
    big = _png(save_map(long, tmp_path / "long.png", 0))
    assert big.shape[0] > one.shape[0] and big.shape[1] > one.shape[1]


# --- the command ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def model_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("models")
    with single_thread():
        save_model_dir(root / "mt", tiny_transformer(), tokenizer())
        save_model_dir(root / "lm", tiny_lm(), tokenizer())
    return root / "mt", root / "lm"


def test_attend_prints_the_translation_then_the_table(model_dirs, capsys):
    mt, _ = model_dirs
    assert main(["attend", "--model", str(mt), "--beam", "2", SOURCE]) == 0
    lines = capsys.readouterr().out.splitlines()
    translator = Translator.load(mt)
    expected = to_words(translator.attend(SOURCE, beam_size=2))
    assert lines[0] == expected.translation
    assert lines[2] == "cross-attention, layer 2 of 2, mean of 4 heads"
    rows = lines[6:]
    assert len(rows) == len(expected.target_pieces)
    top = views(expected)["cross"].select(1).argmax(-1)
    for row, word, best in zip(rows, expected.target_pieces, top.tolist(), strict=True):
        assert row.split("→")[0].strip() == short(word)
        assert row.split("→")[1].split(" (")[0].strip() == expected.source_pieces[best]


def test_attend_json_with_a_forced_target_and_every_output_file(model_dirs, capsys, tmp_path):
    mt, _ = model_dirs
    files = {name: tmp_path / name for name in ("map.png", "grid.png", "page.html")}
    code = main(
        ["attend", "--model", str(mt), "--target", TARGET, "--kind", "decoder", "--layer", "1",
         "--head", "3", "--top-words", "2", "--json", "--png", str(files["map.png"]),
         "--grid", str(files["grid.png"]), "--html", str(files["page.html"]), SOURCE]
    )  # fmt: skip
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["translation"] == TARGET
    assert (out["kind"], out["layer"], out["head"], out["level"]) == ("decoder", 1, 3, "words")
    assert [r["word"] for r in out["rows"]] == TARGET.split() + ["</s>"]
    assert out["keys"] == ["<s>"] + TARGET.split()
    forced = views(to_words(forced_attended(Translator.load(mt).model)))["decoder"]
    expected = forced.select(0, 2)
    for i, row in enumerate(out["rows"]):
        assert len(row["attends_to"]) <= 2
        best = row["attends_to"][0]
        assert best["index"] == int(expected[i].argmax())
        assert best["weight"] == pytest.approx(float(expected[i].max()), abs=1e-4)
        # Nothing from the future: producing word i reads up to the pieces of word i itself.
        assert all(link["index"] <= i + 1 for link in row["attends_to"])
    for path in files.values():
        assert path.stat().st_size > 1000
    assert "The black cat sleeps" in files["page.html"].read_text(encoding="utf-8")


def test_attend_on_a_language_model_shows_its_self_attention(model_dirs, capsys):
    _, lm = model_dirs
    assert main(["attend", "--model", str(lm), "--top", "1", TARGET]) == 0  # --top-words' old name
    printed = capsys.readouterr()
    assert "heedful attend: warning: --top is deprecated, use --top-words\n" in printed.err
    lines = printed.out.splitlines()
    assert lines[0] == TARGET
    assert lines[2] == "decoder self-attention, layer 2 of 2, mean of 4 heads"
    assert lines[6].startswith("The ") and "→ <s> (1.00)" in lines[6]  # the first sees only <s>
    assert len(lines[6:]) == len(TARGET.split()) + 1
    assert main(["attend", "--model", str(lm), "--pieces", TARGET]) == 0
    rows = capsys.readouterr().out.splitlines()[6:]
    pieces = tokenizer().pieces(tokenizer().encode(TARGET))
    assert [row.split("→")[0].strip() for row in rows] == pieces


def test_attend_errors_speak_the_users_language(model_dirs, capsys):
    mt, lm = model_dirs
    assert main(["attend", "--model", str(lm), "--kind", "cross", TARGET]) == 1
    assert "no cross-attention" in capsys.readouterr().err
    assert main(["attend", "--model", str(mt), "--layer", "3", "--beam", "1", SOURCE]) == 1
    assert "layer 3 does not exist: choose 1..2" in capsys.readouterr().err
    assert main(["attend", "--model", str(mt), "--head", "5", "--beam", "1", SOURCE]) == 1
    assert "head 5 does not exist: choose 1..4" in capsys.readouterr().err
    assert main(["attend", "--model", str(mt), "--beam", "1", "🙂🙂"]) == 1
    assert "only characters outside the model's vocabulary" in capsys.readouterr().err
