"""bench/align.py on a tiny model and a hand-made gold set, and its eflomal peer on a made-up
language whose words translate one to one."""

from __future__ import annotations

import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest
from attention_views_support import SOURCE, TARGET, single_thread, tiny_transformer, tokenizer

from heedful.checkpoint import save_model_dir
from heedful.explain.align import Gold, read_gold
from heedful.explain.alignment_choice import evaluate, links_of, prepare
from heedful.explain.alignment_methods import DEFAULT, AlignmentMethod
from heedful.translator import Translator

BENCH = Path(__file__).resolve().parents[1] / "bench" / "align.py"
SOURCES = [SOURCE, "El perro come.", "Tom duerme.", "Ella lee un libro ."]
TARGETS = [TARGET, "The dog eats.", "Tom sleeps.", "She reads a book ."]


def bench():
    spec = importlib.util.spec_from_file_location("bench_align", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def test_every_row_is_the_aer_of_its_method_on_the_gold(tmp_path, monkeypatch, capsys):
    model_dir = tmp_path / "mt"
    save_model_dir(model_dir, tiny_transformer(seed=5), tokenizer())
    translator = Translator.load(model_dir)
    pairs = prepare(translator, SOURCES, TARGETS, erase=True)
    default = DEFAULT.resolve(2, 4)
    gold_dir = tmp_path / "gold"
    gold_dir.mkdir()
    (gold_dir / "dev.en").write_text("\n".join(SOURCES) + "\n", encoding="utf-8")
    (gold_dir / "dev.fr").write_text("\n".join(TARGETS) + "\n", encoding="utf-8")
    lines = [" ".join(f"{i + 1}-{j + 1}" for i, j in sorted(links_of(p, default))) for p in pairs]
    (gold_dir / "dev.gold").write_text("\n".join(lines) + "\n", encoding="utf-8")
    gold = read_gold(gold_dir / "dev.gold", base=1)
    out = tmp_path / "align.json"
    argv = ["align.py", "--model", str(model_dir), "--gold-dir", str(gold_dir), "--no-eflomal",
            "--json", str(out)]  # fmt: skip
    monkeypatch.setattr(sys, "argv", argv)
    bench().main()
    rows = json.loads(out.read_text())["rows"]
    # the gold is the default's own links: AER 0, every link right
    assert rows[0]["method"].startswith("default") and rows[0]["aer"] == 0.0
    assert rows[0]["precision"] == rows[0]["recall"] == 1.0
    checked = 0
    for row in rows:
        if "record" in row:
            method = AlignmentMethod.from_record(row["record"])
            assert row["aer"] == pytest.approx(evaluate(pairs, gold, method), abs=1e-12)
            checked += 1
    assert checked >= 12
    chosen = [r for r in rows if r["method"].startswith("chosen (all methods)")]
    assert chosen[0]["aer"] == 0.0  # the default is a candidate: nothing chosen does worse
    assert any(r["method"].strip().startswith("2-fold") for r in rows)
    table = capsys.readouterr().out
    assert (
        "| default: predict, penultimate layer, all heads | 0.0000 | - | 1.000 | 1.000 |" in table
    )


def test_eflomal_learns_a_one_to_one_code():
    """Source word sK always translates as target word vK, in the same order: eflomal, trained
    on such pairs, should align the gold pairs (the same kind) word for word."""
    rng = random.Random(0)

    def sentence() -> list[int]:
        return rng.sample(range(20), rng.randint(3, 7))

    corpus = []
    for _ in range(400):
        words = sentence()
        corpus.append((" ".join(f"s{k}" for k in words), " ".join(f"v{k}" for k in words)))
    dev = [sentence() for _ in range(10)]
    en = [" ".join(f"S{k}" for k in words) for words in dev]  # case: lowercased for eflomal
    fr = [" ".join(f"v{k}" for k in words) for words in dev]
    gold = [Gold({(i, i) for i in range(len(w))}, {(i, i) for i in range(len(w))}) for w in dev]
    rows, timing = bench().eflomal_rows(en, fr, gold, corpus)
    by_name = {r["method"]: r for r in rows}
    kinds = ("forward", "reverse", "grow-diag-final-and", "intersection")
    assert set(by_name) == {f"eflomal, {kind}" for kind in kinds}
    assert by_name["eflomal, grow-diag-final-and"]["aer"] < 0.05
    assert by_name["eflomal, intersection"]["aer"] < 0.05
    assert timing["eflomal_pairs"] == 410
