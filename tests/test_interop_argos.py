"""`heedful export --to argos`: the package Argos Translate installs and runs gives heedful's
translations, and its sentencepiece model alone reads raw text as heedful's tokenizer does."""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import sentencepiece as spm
from test_interop_marian import make_marian_dir

from heedful.checkpoint import read_json
from heedful.cli import main
from heedful.decoding import DecodingOptions
from heedful.interop.ctranslate2 import normalizing_sentencepiece
from heedful.tokenizer import Tokenizer
from heedful.translator import Translator

ROOT = Path(__file__).resolve().parents[1]
TATOEBA = ROOT / ".." / "shared" / "data" / "tatoeba"
MODELS = ROOT / "models"
PACKAGE = "translate-es_en-1_0"

# Argos Translate's search (argostranslate/translate.py: beam 4, |Y|^0.2, CTranslate2's rules: a
# sentence stops at 4 finished hypotheses, none ends before one token, at most 256 tokens)
ARGOS_DECODING = DecodingOptions(
    beam_size=4, length_penalty=0.2, length_penalty_form="power", early_stopping=True,
    min_length=1, max_length=256,
)  # fmt: skip

# Run in a process of its own, whose Argos Translate directories are the test's (argostranslate.
# settings reads them from the environment once, at import). Argos's sentence splitter would
# download a model on first use: it is replaced by one that keeps each text whole.
ARGOS = """
import json, sys
import argostranslate.package, argostranslate.sbd, argostranslate.translate
for splitter in vars(argostranslate.sbd).values():
    if isinstance(splitter, type) and hasattr(splitter, "split_sentences"):
        splitter.split_sentences = lambda self, text: [text]
request = json.load(sys.stdin)
argostranslate.package.install_from_path(request["package"])
installed = argostranslate.package.get_installed_packages()
translation = argostranslate.translate.get_translation_from_codes("es", "en")
json.dump({
    "installed": [str(p.package_path) for p in installed],
    "pieces": [installed[0].tokenizer.encode(text) for text in request["texts"]],
    "translations": [translation.translate(text) for text in request["texts"]],
    "compute_type": translation.underlying.translator.compute_type,
}, sys.stdout)
"""


@functools.cache
def dev_texts() -> list[str]:
    """Both sides of every Tatoeba dev pair (the French side puts U+202F before ? ! : ;)."""
    texts = []
    for path in sorted(TATOEBA.glob("*/dev.tsv")):
        with open(path, encoding="utf-8") as f:
            texts += [text for line in f for text in line.rstrip("\n").split("\t")[:2]]
    return texts


def spanish_sources() -> list[str]:
    """20 Spanish dev sentences, short to long (the dev split is sorted by length)."""
    with open(TATOEBA / "spa-eng" / "dev.tsv", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t")[1] for line in f][::120]


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("argos") / "es_en.argosmodel"
    assert main(["export", "--to", "argos", str(MODELS / "es-en"), str(path)]) == 0
    return path


@pytest.mark.parametrize("name", ["es-en", "en-fr"])
def test_exported_tokenizer_reads_raw_text_as_heedful(name):
    """On every dev sentence of both corpora, sentencepiece with the exported model gives the ids
    heedful's tokenizer gives (heedful.tokenizer.normalize, then its sentencepiece model)."""
    tokenizer = Tokenizer.load(MODELS / name / "spm.model")
    meta = read_json(MODELS / name / "config.json")
    exported = spm.SentencePieceProcessor(
        model_proto=normalizing_sentencepiece(tokenizer, meta, MODELS / name)
    )
    texts = dev_texts()
    ours = [tokenizer.encode(text, add_eos=False) for text in texts]
    assert [exported.encode(text) for text in texts] == ours
    narrow = [i for i, text in enumerate(texts) if "\u202f" in text]
    assert len(narrow) > 100
    # without the normalisation, sentencepiece reads those sentences otherwise
    assert all(tokenizer.sp.encode(texts[i]) != ours[i] for i in narrow)


def test_package_holds_what_argos_translate_reads(package):
    with zipfile.ZipFile(package) as zf:
        names = set(zf.namelist())
        metadata = json.loads(zf.read(f"{PACKAGE}/metadata.json"))
        tokenizer_model = zf.read(f"{PACKAGE}/sentencepiece.model")
    for name in ("metadata.json", "README.md", "sentencepiece.model", "model/model.bin",
                 "model/config.json", "model/shared_vocabulary.json"):  # fmt: skip
        assert f"{PACKAGE}/{name}" in names
    assert all(name.startswith(f"{PACKAGE}/") for name in names)  # one directory
    assert metadata == {
        "package_version": "1.0", "argos_version": "1.9.0", "code": "translate-es_en",
        "type": "translate", "from_code": "es", "from_name": "Spanish", "to_code": "en",
        "to_name": "English", "links": [],
    }  # fmt: skip
    tokenizer = Tokenizer.load(MODELS / "es-en" / "spm.model")
    meta = read_json(MODELS / "es-en" / "config.json")
    assert tokenizer_model == normalizing_sentencepiece(tokenizer, meta, MODELS / "es-en")


def run_argos(package: Path, home: Path, texts: list[str], compute_type: str) -> dict:
    """Install ``package`` into an Argos Translate whose every directory lies under ``home``, and
    translate ``texts`` with it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARGOS_")}
    env.update(
        HOME=str(home), XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"), ARGOS_PACKAGES_DIR=str(home / "packages"),
        ARGOS_DEVICE_TYPE="cpu", ARGOS_INTRA_THREADS="1", ARGOS_COMPUTE_TYPE=compute_type,
    )  # fmt: skip
    request = json.dumps({"package": str(package), "texts": texts})
    done = subprocess.run(
        [sys.executable, "-c", ARGOS], input=request, env=env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_argos_translate_installs_the_package_and_translates_as_heedful(package, tmp_path):
    """Argos Translate's translations of 20 dev sentences equal heedful's with the same search:
    all of them with the exported float32 weights (on 300 dev sentences: 300 of 300), and most
    with Argos's default compute type, "auto", which is int8 on a CPU (19 of 20 here; 289 of 300,
    96%, on 300). heedful's own steps on real input are off (Translator.generate)."""
    texts = spanish_sources()
    translator = Translator.load(MODELS / "es-en")
    tokenizer = translator.tokenizer
    found = translator.generate(tokenizer.encode_batch(texts), options=ARGOS_DECODING)
    ours = [tokenizer.decode(hypotheses[0].tokens) for hypotheses in found]
    assert len(set(ours)) == len(texts)

    rates = {}
    for compute_type in ("float32", "auto"):
        argos = run_argos(package, tmp_path, texts, compute_type)
        assert argos["installed"] == [str(tmp_path / "packages" / PACKAGE)]
        assert argos["pieces"] == [
            tokenizer.pieces(tokenizer.encode(t, add_eos=False)) for t in texts
        ]
        assert compute_type == "auto" or argos["compute_type"] == "float32"
        theirs = argos["translations"]
        differ = [(a, b) for a, b in zip(ours, theirs, strict=True) if a != b]
        rates[compute_type] = 1 - len(differ) / len(texts)
        print(f"{compute_type}: {rates[compute_type]:.0%} the same; heedful | Argos:", differ)
    assert rates["float32"] == 1.0
    assert rates["auto"] >= 0.8
    assert (tmp_path / "packages" / PACKAGE / "sentencepiece.model").is_file()
    assert not (tmp_path / ".local").exists()  # nothing under the default home directories


def test_export_argos_refuses_what_it_cannot_do(package, tmp_path, capsys):
    assert main(["export", "--to", "argos", str(MODELS / "es-en"), str(package)]) == 1
    assert "--force" in capsys.readouterr().err
    make_marian_dir(tmp_path / "marian", "shared-tied")
    assert main(["export", "--to", "argos", str(tmp_path / "marian"), str(tmp_path / "m")]) == 1
    assert "two sentencepiece models" in capsys.readouterr().err
    assert not (tmp_path / "m").exists()
