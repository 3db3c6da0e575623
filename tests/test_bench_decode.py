"""bench/decode.py's tables: CTranslate2 is measured in two configurations, and every ratio is
taken against the faster one (per cell, and per round in the paired table)."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import decode  # noqa: E402


def row(engine: str, rate: float, per_round: list[float], precision: str = "fp32") -> dict:
    return {"size": "es-en dev", "search": "greedy", "precision": precision, "engine": engine,
            "sentences_per_second": rate, "per_round": per_round, "bleu": 50.0}  # fmt: skip


ROWS = [
    row("ct2", 100.0, [100.0, 90.0]),
    row("ct2-workers", 150.0, [80.0, 150.0]),
    row("heedful", 120.0, [120.0, 110.0]),
    row("ct2", 300.0, [300.0, 250.0], "int8"),
    row("ct2-workers", 200.0, [200.0, 180.0], "int8"),
    row("heedful", 240.0, [240.0, 200.0], "int8"),
]


def test_ctranslate2_counts_with_its_faster_configuration():
    merged = {(r["engine"], r["precision"]): r for r in decode.at_best(ROWS)}
    assert {e for e, _ in merged} == {"ct2", "heedful"}
    assert merged["ct2", "fp32"]["sentences_per_second"] == 150.0
    assert merged["ct2", "fp32"]["config"] == "ct2-workers"
    assert merged["ct2", "int8"]["sentences_per_second"] == 300.0
    assert merged["ct2", "int8"]["config"] == "ct2"
    assert merged["ct2", "fp32"]["per_round"] == [100.0, 150.0]  # the faster in each round


def test_ratios_are_against_the_faster_configuration():
    table = decode.table(ROWS)
    assert "| 150.0 | 120.0 | 0.80x |" in table  # not 120 / 100 = 1.20x
    assert "| 300.0 | 240.0 | 0.80x |" in table
    ratios = decode.paired_ratios(ROWS)
    assert ratios["es-en dev", "greedy", "fp32"] == [1.2, 110.0 / 150.0]
    assert ratios["es-en dev", "greedy", "int8"] == [0.8, 0.8]


def test_both_configurations_are_shown():
    lines = decode.ct2_table(ROWS).splitlines()
    assert "1 worker x 2 threads fp32" in lines[0] and "2 workers x 1 thread int8" in lines[0]
    assert lines[2] == "| es-en dev | greedy | 100.0 | 150.0 | 300.0 | 200.0 |"
