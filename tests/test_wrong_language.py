"""heedful.wrong_language: a sentence already in the target language is kept as written, one in
a third language is warned about, and the model's own language is left alone."""

import warnings
from pathlib import Path

import pytest

from heedful.bundled import model_dir
from heedful.translator import Translator
from heedful.wrong_language import identify, suspect

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "tatoeba" / "spa-eng" / "dev.tsv"


@pytest.fixture(scope="module")
def es_en():
    return Translator.load(model_dir("es-en"))


def test_only_a_long_enough_sentence_translated_with_a_low_score_is_a_suspect():
    assert suspect("Hello, how are you today?", log_prob=-6.0, tokens=10)
    assert not suspect("Hello, how are you today?", log_prob=-1.0, tokens=10)  # -0.1 a token
    assert not suspect("Hello there.", log_prob=-6.0, tokens=4)  # two words: too short to tell
    assert not suspect("gato gato gato gato", log_prob=-6.0, tokens=10)  # one word, repeated


def test_identify_names_a_language_other_than_the_source_only_when_sure():
    found = identify(
        ["I hope everything is fine with you.", "Je voudrais une tasse de café, s'il vous plaît.",
         "Espero que todo vaya bien.", "Tom sells computers."], "es", "en"
    )  # fmt: skip
    assert found == ["en", "fr", None, None]  # the source's own; "Tom sells" too close to call


def test_text_already_in_the_target_language_is_kept_as_written(es_en):
    """Before: "Hello, guys are there? hope was lucky."."""
    text = "Hello, how are you today? I hope everything is fine."
    with pytest.warns(UserWarning, match="2 sentences already in English"):
        (found,) = es_en.translate([text, "El gato negro duerme en el jardín."], alignments=True)[
            :1
        ]
    assert found.text == text
    assert all(text[slice(*k.source)] == found.text[slice(*k.target)] for k in found.alignment)


def test_a_third_language_is_translated_with_a_warning_naming_it(es_en):
    with pytest.warns(UserWarning, match="in French"):
        es_en.translate(["Bonjour, je m'appelle Marie et j'habite à Paris."])


def test_the_model_s_own_language_raises_no_warning(es_en):
    """The dev sources (the first 600), Spanish all: none is taken for another language."""
    sources = [line.split("\t")[1] for line in DEV.read_text(encoding="utf-8").splitlines()][:600]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        es_en.translate(sources, beam_size=1)
    assert not [w for w in seen if "language" in str(w.message)]
