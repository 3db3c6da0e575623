"""The models that come with heedful (models/ in the repository), and the default one."""

from __future__ import annotations

import os
from pathlib import Path

# An editable install (what `make` sets up) runs from the repository: src/heedful/ -> models/.
MODELS = Path(os.environ.get("HEEDFUL_MODELS", Path(__file__).resolve().parents[2] / "models"))
DEFAULT = "es-en"


def model_dir(name: str = DEFAULT) -> Path:
    return MODELS / name


def resolve_model(given: str | os.PathLike | None) -> Path:
    """The directory a command's --model names, or the bundled default when none is given."""
    if given is not None:
        return Path(given)
    default = model_dir()
    if not (default / "config.json").is_file():
        raise FileNotFoundError(
            f"no --model given and the bundled default model is missing: {default}"
        )
    return default
