"""bench/agreement.py: women's names in templates, and what counts as agreeing with her."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_spec = importlib.util.spec_from_file_location(
    "bench_agreement", Path(__file__).resolve().parents[1] / "bench" / "agreement.py"
)
ag = importlib.util.module_from_spec(_spec)
sys.modules["bench_agreement"] = ag
_spec.loader.exec_module(ag)


def test_every_name_fills_every_template_where_the_training_text_writes_it():
    names = {"opening": ["Alice"], "inside": ["Rose"]}
    english = ag.inputs("en", names)
    assert len(english) == 2 * len(ag.ADJECTIVES)
    assert ("Alice is ready.", "prête") in english and (
        "I think Rose is ready.",
        "prête",
    ) in english
    spanish = ag.inputs("es", names)
    assert len(spanish) == 2 * len(ag.SPANISH) and ("Alice perdió su libro.", "her") in spanish


def test_a_translation_agrees_with_her_only_in_the_feminine():
    assert ag.agrees("Alice est prête.", "prête") and not ag.agrees("Alice est prêt.", "prête")
    assert ag.agrees("Alicia lost her book.", "her")
    assert not ag.agrees("Alicia lost his book.", "her")
    assert not ag.agrees("She gave him her book.", "her")  # a man in it: no telling


def test_the_names_are_women_the_model_read_and_no_places(tmp_path):
    from heedful.bundled import model_dir

    names = ag.read_names(model_dir("en-fr"), "en")
    every = names["opening"] + names["inside"]
    assert "Alice" in names["opening"] and "Mary" not in every
    assert "Paris" not in every and "Virginia" not in every  # places
    assert "Rose" in names["inside"]  # the training text writes "rose" in lower case
