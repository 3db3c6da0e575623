"""What may be wrong with a translation, on the translation itself (``Translation.warnings``):
each names its sentence, a paragraph gathers its sentences', in their order; the same through
``heedful translate --json``. On the bundled en -> fr model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from heedful.bundled import model_dir
from heedful.translator import Translator

EGGS = "We need to buy milk, eggs and bread."


@pytest.fixture(scope="module")
def en_fr():
    return Translator.load(model_dir("en-fr"))


@pytest.mark.filterwarnings("ignore::UserWarning")  # raised too (tests/test_dropped.py...)
def test_each_translation_says_what_may_be_wrong_with_it(en_fr):
    texts = [
        "I have a dog.",
        f"I have a dog. {EGGS} Bonjour, je suis très content de vous voir aujourd'hui.",
        "王",
    ]
    clean, paragraph, unreadable = en_fr.translate(texts, alignments=True)
    assert clean.warnings == []
    assert paragraph.warnings == [
        f"{EGGS!r}: may leave out 'eggs'",
        '"Bonjour, je suis très content de vous voir aujourd\'hui.": already in French, '
        "kept as written",
    ]
    assert unreadable.text == "" and unreadable.warnings == [
        "'王': only characters the model cannot read, left untranslated"
    ]
    (cut,) = en_fr.translate([EGGS], alignments=True, max_length=4)
    assert cut.warnings[-1] == f"{EGGS!r}: cut at the length limit, may be incomplete"


def test_the_json_records_carry_them_where_there_are_any():
    command = [sys.executable, "-m", "heedful", "translate", "--model", str(model_dir("en-fr")),
               "--json", "I have a dog.", EGGS]  # fmt: skip
    out = subprocess.run(command, capture_output=True, text=True, check=True, timeout=120)
    clean, dropping = (json.loads(line) for line in out.stdout.splitlines())
    assert "warnings" not in clean
    assert dropping["warnings"] == [f"{EGGS!r}: may leave out 'eggs'"]
    assert "may leave out a word of its source (the first: " in out.stderr
