"""The models that come with heedful (models/ in the repository), and the default one."""

from __future__ import annotations

import os
from pathlib import Path

# An editable install (what `make` sets up) runs from the repository: src/heedful/ -> models/.
MODELS = Path(os.environ.get("HEEDFUL_MODELS", Path(__file__).resolve().parents[2] / "models"))
DEFAULT = "es-en"


def model_dir(name: str = DEFAULT) -> Path:
    return MODELS / name


def available() -> list[str]:
    """The names of the bundled models (folders of MODELS holding a config.json)."""
    if not MODELS.is_dir():
        return []
    return sorted(p.name for p in MODELS.iterdir() if (p / "config.json").is_file())


def resolve_model(given: str | os.PathLike | None) -> Path:
    """The directory a command's --model names (a path, or a bundled model's name such as
    ``en-fr``, from any working directory), or the bundled default when none is given."""
    if given is None:
        default = model_dir()
        if not (default / "config.json").is_file():
            raise FileNotFoundError(
                f"no --model given and the bundled default model is missing: {default}"
            )
        return default
    path = Path(given)
    if path.is_dir():
        return path
    bundled = MODELS / str(given)
    if path.name == str(given) and (bundled / "config.json").is_file():
        return bundled
    names = ", ".join(available()) or f"none in {MODELS}"
    raise FileNotFoundError(f"no model directory {given} (bundled models: {names})")
