"""heedful.loading: one table tells every kind of model directory heedful reads apart, and
everything that loads a model by its directory goes through it (issue 32)."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest
from attention_views_support import tiny_lm, tiny_transformer, tokenizer
from test_interop_marian import make_marian_dir

from heedful import loading
from heedful.checkpoint import save_model_dir
from heedful.config import ModelConfig
from heedful.explain.attender import attender
from heedful.interop.marian import MarianTokenizer
from heedful.lm import DecoderOnlyLM
from heedful.loading import FORMATS, load_model, model_format
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.translator import Translator

# format -> (its task, the model class it loads, the tokenizer class, meta's "format")
EXPECTED = {
    "heedful": ("translation", Transformer, Tokenizer, "heedful"),
    "heedful-lm": ("lm", DecoderOnlyLM, Tokenizer, "heedful"),
    "marian": ("translation", Transformer, MarianTokenizer, "marian"),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("formats")
    save_model_dir(root / "heedful", tiny_transformer(), tokenizer())
    save_model_dir(root / "heedful-lm", tiny_lm(), tokenizer())
    make_marian_dir(root / "marian", "shared-tied")
    return root


def test_the_table_has_every_format_once():
    assert sorted(f.name for f in FORMATS) == sorted(EXPECTED)
    assert {f.task for f in FORMATS} == set(loading.TASKS)


@pytest.mark.parametrize("name", list(EXPECTED))
def test_each_format_is_recognised_by_its_entry_alone_and_loaded(root, name):
    task, model_class, tokenizer_class, meta_format = EXPECTED[name]
    directory = root / name
    assert [f.name for f in FORMATS if f.recognise(directory)] == [name]
    assert model_format(str(directory)).name == name
    model, tok, meta = load_model(directory, task=task)
    assert type(model) is model_class and not model.training
    assert isinstance(tok, tokenizer_class) and meta["format"] == meta_format
    assert tok.vocab_size <= model.config.tgt_vocab_size


def test_a_model_of_the_other_task_is_refused_before_it_is_loaded(root, tmp_path):
    lm = tmp_path / "lm"
    shutil.copytree(root / "heedful-lm", lm)
    (lm / "model.safetensors").unlink()  # refused for its task, not for the missing weights
    said = f"{lm / 'config.json'}: a DecoderOnlyLM cannot translate; use `heedful lm`"
    with pytest.raises(ValueError, match=f"^{said}"):
        load_model(lm, task="translation")
    with pytest.raises(ValueError, match=f"^{said}"):
        Translator.load(lm)
    with pytest.raises(ValueError, match="a Transformer is not a language model"):
        load_model(root / "heedful", task="lm")
    with pytest.raises(ValueError, match="a Marian model is not a language model"):
        load_model(root / "marian", task="lm")
    with pytest.raises(ValueError, match="task must be one of"):
        load_model(root / "heedful", task="speech")


@pytest.mark.parametrize(
    "config, error, said",
    [
        (None, FileNotFoundError, "model directory not found"),
        ("", FileNotFoundError, "missing file: .*config.json"),
        ("{", ValueError, "config.json: not valid JSON"),
        ("[]", ValueError, "config.json: not a heedful model directory"),
        ({"model_type": "bert"}, ValueError, "config.json: not a heedful model directory"),
        (
            {"format": "heedful", "architecture": "GPT", "model": ModelConfig.tiny(9).to_dict()},
            ValueError,
            "config.json: unknown architecture 'GPT'",
        ),
    ],
)
def test_an_unknown_directory_gets_the_clear_error(tmp_path, config, error, said):
    directory = tmp_path / "model"
    if config is not None:
        directory.mkdir()
    if config:
        text = config if isinstance(config, str) else json.dumps(config)
        (directory / "config.json").write_text(text, encoding="utf-8")
    assert model_format(directory) is None
    for load in (load_model, Translator.load, attender):
        with pytest.raises(error, match=said):
            load(directory)


def test_every_loader_goes_through_the_table(root, monkeypatch, tmp_path):
    """A format added to the table alone is read by Translator.load and `heedful attend`."""
    other = tmp_path / "other"
    shutil.copytree(root / "heedful", other)
    (other / "config.json").write_text(json.dumps({"format": "other"}), encoding="utf-8")
    seen = []

    def load(directory, device="cpu"):
        seen.append(directory)
        return load_model(root / "heedful", device)

    entry = replace(FORMATS[0], name="other", recognise=lambda d: d == other, load=load)
    monkeypatch.setattr(loading, "FORMATS", (*FORMATS, entry))
    assert Translator.load(other).translate(["El gato negro."], beam_size=1)
    assert attender(other)("El gato negro.").cross is not None
    assert seen == [other, other]


def test_the_attender_reads_a_language_model(root):
    attended = attender(root / "heedful-lm")("El gato negro.")
    assert attended.cross is None and attended.decoder_self is not None
    with pytest.raises(ValueError, match="no target to force"):
        attender(root / "heedful-lm")("El gato negro.", "x")
