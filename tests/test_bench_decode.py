"""bench/decode.py's tables: CTranslate2 and heedful are each measured in two configurations,
and every ratio is taken between the faster ones (per cell, and per round in the paired
table)."""

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
    row("heedful-workers", 90.0, [90.0, 100.0]),
    row("heedful-workers", 270.0, [180.0, 270.0], "int8"),
]


def test_ctranslate2_counts_with_its_faster_configuration():
    merged = {(r["engine"], r["precision"]): r for r in decode.at_best(ROWS)}
    assert {e for e, _ in merged} == {"ct2", "heedful"}
    assert merged["ct2", "fp32"]["sentences_per_second"] == 150.0
    assert merged["ct2", "fp32"]["config"] == "ct2-workers"
    assert merged["ct2", "int8"]["sentences_per_second"] == 300.0
    assert merged["ct2", "int8"]["config"] == "ct2"
    assert merged["ct2", "fp32"]["per_round"] == [100.0, 150.0]  # the faster in each round
    # heedful the same way: one process of 2 threads, or 2 processes of one
    assert merged["heedful", "fp32"]["sentences_per_second"] == 120.0
    assert merged["heedful", "fp32"]["config"] == "heedful"
    assert merged["heedful", "int8"]["sentences_per_second"] == 270.0
    assert merged["heedful", "int8"]["config"] == "heedful-workers"
    assert merged["heedful", "int8"]["per_round"] == [240.0, 270.0]


def test_ratios_are_against_the_faster_configuration():
    table = decode.table(ROWS)
    assert "| 150.0 | 120.0 | 0.80x |" in table  # not 120 / 100 = 1.20x
    assert "| 300.0 | 270.0 | 0.90x |" in table  # heedful's faster configuration
    ratios = decode.paired_ratios(ROWS)
    assert ratios["es-en dev", "greedy", "fp32"] == [1.2, 110.0 / 150.0]
    assert ratios["es-en dev", "greedy", "int8"] == [0.8, 270.0 / 250.0]


def test_both_configurations_are_shown():
    lines = decode.configs_table(ROWS).splitlines()
    assert (
        "CT2 1 worker x 2 threads fp32" in lines[0] and "CT2 2 workers x 1 thread int8" in lines[0]
    )
    assert "heedful 2 workers x 1 thread int8" in lines[0]
    assert lines[2] == (
        "| es-en dev | greedy | 100.0 | 150.0 | 120.0 | 90.0 | 300.0 | 200.0 | 240.0 | 270.0 |"
    )
