"""Every kind of model directory heedful reads, told apart in one table.

    >>> model, tokenizer, meta = load_model("models/es-en")
    >>> model, tokenizer, meta = load_model("opus-mt-es-en", task="translation")

=====================  ===========================================  ==============================
format                 recognised by its config.json                loaded by
=====================  ===========================================  ==============================
``heedful``            "format": "heedful", "architecture":         ``checkpoint.load_model_dir``
                       "Transformer" (or none)
``heedful-lm``         "format": "heedful", "architecture":         ``checkpoint.load_model_dir``
                       "DecoderOnlyLM"
``marian``             "model_type": "marian" (HF transformers'     ``interop.marian.
                       ``save_pretrained`` of a Marian / OPUS-MT)   load_marian_model``
=====================  ===========================================  ==============================

Each loader returns ``(model in eval mode, tokenizer, meta)``; ``meta`` is the config.json dict
of a heedful directory, and for an imported one a dict of the same shape ("format", "model",
"generation"). A directory no entry recognises is refused by ``checkpoint.check_model_dir``,
whose errors say what is wrong: no such directory, no config.json, not valid JSON, not a heedful
model directory, an unknown architecture. A new format is a row here, and its loader a module in
``heedful/interop/`` that builds no Translator.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from torch import nn

from heedful.checkpoint import CONFIG_FILE, check_model_dir, load_model_dir
from heedful.interop.marian import is_marian_dir, load_marian_model

Loaded = tuple[nn.Module, Any, dict[str, Any]]  # (model, tokenizer, meta)
TASKS = ("translation", "lm")


@dataclass(frozen=True)
class ModelFormat:
    """One kind of model directory: how to recognise it, what it does, how to load it."""

    name: str
    task: str  # one of TASKS
    what: str  # the model it holds, for errors ("a DecoderOnlyLM cannot translate")
    recognise: Callable[[Path], bool]
    load: Callable[[Path, str | torch.device], Loaded]


def _config(directory: Path) -> dict[str, Any] | None:
    """A directory's config.json as a dict; None where there is none to read."""
    try:
        meta = json.loads((directory / CONFIG_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def _heedful(architecture: str) -> Callable[[Path], bool]:
    def recognise(directory: Path) -> bool:
        meta = _config(directory)
        return (
            meta is not None
            and meta.get("format") == "heedful"
            and meta.get("architecture", "Transformer") == architecture
        )

    return recognise


FORMATS: tuple[ModelFormat, ...] = (
    ModelFormat("heedful", "translation", "Transformer", _heedful("Transformer"), load_model_dir),
    ModelFormat("heedful-lm", "lm", "DecoderOnlyLM", _heedful("DecoderOnlyLM"), load_model_dir),
    ModelFormat("marian", "translation", "Marian model", is_marian_dir, load_marian_model),
)

# what a command says of a model that does the other task
WRONG_TASK = {
    "translation": "{config}: a {what} cannot translate; use `heedful lm` for language models",
    "lm": "{config}: a {what} is not a language model; use `heedful translate` for translation "
    "models",
}


def model_format(directory: str | Path) -> ModelFormat | None:
    """The first entry of FORMATS that recognises ``directory``; None if none does."""
    return next((f for f in FORMATS if f.recognise(Path(directory))), None)


def load_model(
    directory: str | Path, device: str | torch.device = "cpu", *, task: str | None = None
) -> Loaded:
    """Any model directory heedful reads -> (model in eval mode, tokenizer, meta).

    ``task`` ("translation" or "lm"): refuse, before loading anything, a model that does the
    other one. An unrecognised directory gets ``check_model_dir``'s error."""
    if task is not None and task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, not {task!r}")
    directory = Path(directory)
    found = model_format(directory)
    if found is None:
        check_model_dir(directory)  # raises, naming the file and what it lacks
        raise ValueError(f"{directory}: not a model directory heedful reads")
    if task is not None and found.task != task:
        raise ValueError(WRONG_TASK[task].format(config=directory / CONFIG_FILE, what=found.what))
    return found.load(directory, device)
