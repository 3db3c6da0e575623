"""Export a model to Argos Translate (the engine under LibreTranslate): an ``.argosmodel`` package.

    >>> export_argos("models/es-en", "translate-es_en-1_0.argosmodel")
    >>> import argostranslate.package, argostranslate.translate
    >>> argostranslate.package.install_from_path("translate-es_en-1_0.argosmodel")
    >>> argostranslate.translate.translate("¿Dónde está la estación?", "es", "en")

A package is a zip archive of one directory, laid out as Argos Translate reads it
(``argostranslate/package.py``)::

    translate-es_en-1_0/
        metadata.json         package_version, argos_version, code, type "translate",
                              from_code, from_name, to_code, to_name
        model/                the CTranslate2 model (heedful.interop.ctranslate2)
        sentencepiece.model   heedful's tokenizer with its normalisation built in
        README.md             where the package came from, and the model card

Argos Translate (``argostranslate/translate.py``) cuts a text into lines, each line into sentences
with its sentence splitter (MiniSBD unless the package holds a ``stanza/`` or ``minisbd/`` model;
none is packed, so it downloads MiniSBD's on first use), each sentence into pieces with
``sentencepiece.model`` alone, and translates them with CTranslate2: beam 4, length penalty
|Y|^0.2, ``replace_unknowns`` (an unknown target token becomes the source piece the alignment heads
look at most), and compute type "auto", which is int8 on a CPU (``ARGOS_COMPUTE_TYPE=float32``
keeps the exported weights). heedful's own steps on real input (``heedful.real_input``: protected
URLs and numbers, ALL CAPS, unreadable words) are not in the package. Only heedful's model
directories export (one sentencepiece model reads the source and writes the target).
"""

from __future__ import annotations

import json
import os
import tempfile
import zipfile
from pathlib import Path

ARGOS_VERSION = "1.9.0"  # the package layout of Argos Translate 1.9 and later


def export_argos(
    model_dir: str | Path,
    out_path: str | Path,
    *,
    source_language: str | None = None,
    target_language: str | None = None,
    package_version: str = "1.0",
    quantization: str | None = None,
    force: bool = False,
) -> Path:
    """Write an Argos Translate package for a heedful model directory; returns ``out_path``.

    ``source_language`` / ``target_language``: ISO 639 codes, by default the model's
    (config.json's data.src and data.tgt). ``quantization``: CTranslate2's weight type, as for
    ``export_ctranslate2``. ``force``: replace ``out_path`` if it exists.
    """
    from heedful.checkpoint import CONFIG_FILE, read_json
    from heedful.interop.ctranslate2 import SPM_FILE, export_ctranslate2
    from heedful.loading import model_format

    model_dir, out_path = Path(model_dir), Path(out_path)
    if out_path.exists() and not force:
        raise FileExistsError(f"{out_path} exists; pass --force to replace it")
    found = model_format(model_dir)
    if found is not None and found.name == "marian":
        raise ValueError(
            f"{model_dir}: a Marian model has two sentencepiece models, and an Argos package "
            "one; only heedful's model directories export to Argos Translate"
        )
    data = read_json(model_dir / CONFIG_FILE).get("data", {})
    from_code = source_language or data.get("src")
    to_code = target_language or data.get("tgt")
    if not from_code or not to_code:
        raise ValueError(
            f"{model_dir / CONFIG_FILE} names no language pair (data.src, data.tgt): pass "
            "--source-language and --target-language"
        )
    metadata = package_metadata(from_code, to_code, package_version)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_path.parent) as tmp:
        root = Path(tmp) / package_name(metadata)
        export_ctranslate2(model_dir, root / "model", quantization=quantization)
        (root / "model" / SPM_FILE).rename(root / "sentencepiece.model")
        (root / "metadata.json").write_text(
            json.dumps(metadata, indent=2, ensure_ascii=False), encoding="utf-8"
        )
        (root / "README.md").write_text(_readme(model_dir, metadata), encoding="utf-8")
        archive = Path(tmp) / "package.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
            for path in sorted(root.rglob("*")):
                zf.write(path, path.relative_to(tmp).as_posix())
        os.replace(archive, out_path)
    return out_path


def package_metadata(from_code: str, to_code: str, package_version: str) -> dict:
    """metadata.json: the fields ``argostranslate.package.IPackage`` reads."""
    from heedful.languages import language_name

    return {
        "package_version": package_version,
        "argos_version": ARGOS_VERSION,
        "code": f"translate-{from_code}_{to_code}",
        "type": "translate",
        "from_code": from_code,
        "from_name": language_name(from_code),
        "to_code": to_code,
        "to_name": language_name(to_code),
        "links": [],
    }


def _readme(model_dir: Path, metadata: dict) -> str:
    import heedful

    card = model_dir / "MODEL_CARD.md"
    lines = [
        f"# {metadata['from_name']} → {metadata['to_name']}, from heedful",
        "",
        f"Exported with `heedful export --to argos` (heedful {heedful.__version__}) from the "
        f"model directory `{model_dir.name}`. `model/` is a CTranslate2 model and "
        "`sentencepiece.model` heedful's tokenizer with its text normalisation (NFKC, every kind "
        "of space one plain space) built in.",
        "",
    ]
    if card.is_file():
        lines += ["The model's card follows.", "", card.read_text(encoding="utf-8")]
    return "\n".join(lines)


def package_name(metadata: dict) -> str:
    """The directory a package installs as: argospm's name for it (translate-es_en-1_0)."""
    version = metadata["package_version"].replace(".", "_")
    return f"{metadata['type']}-{metadata['from_code']}_{metadata['to_code']}-{version}"
