"""Checkpoints besides the latest: the last K saves kept for averaging (the paper averages the
last 5, §6.1), what a saved model directory records about its training, and finding the run's
saved models again (to resume from when the training state is damaged)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from heedful.checkpoint import CONFIG_FILE, read_json


def keep_last(folder: Path, step: int, k: int, save: Callable[[Path], None]) -> None:
    """Save ``folder/step-NNNNNNN`` and delete all but the newest k such directories."""
    save(folder / f"step-{step:07d}")
    saved = sorted(p for p in folder.glob("step-*") if p.is_dir())
    for old in saved[:-k]:
        shutil.rmtree(old, ignore_errors=True)


def model_dir_extra(step: int, info: dict[str, Any]) -> dict[str, Any]:
    """config.json's "training" section: the step, and the best dev scores so far."""
    best = info.get("best") or {}
    return {
        "training": {
            "step": step,
            "epoch": info.get("epoch"),
            "batch_index": info.get("batch_index"),  # with epoch: where the data stream is
            "target_tokens": info.get("target_tokens"),
            "best_dev": {
                k: best.get(k) for k in ("step", "loss", "ppl", "bleu", "chrf") if k in best
            },
        }
    }


def saved_models(out: Path) -> list[tuple[Path, dict[str, Any]]]:
    """The run's model directories (DIR, DIR/checkpoints/step-*, DIR/best) with the "training"
    section of their config.json, newest step first; unreadable ones are left out."""
    found = []
    for directory in (out, *sorted((out / "checkpoints").glob("step-*")), out / "best"):
        try:
            training = read_json(directory / CONFIG_FILE)["training"]
            if isinstance(training["step"], int) and not isinstance(training["step"], bool):
                found.append((directory, training))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return sorted(found, key=lambda item: -item[1]["step"])


def best_record(training: dict[str, Any]) -> dict[str, Any] | None:
    """The trainer's record of the best evaluation from a config.json's training.best_dev."""
    best = training.get("best_dev") or {}
    if best.get("bleu") is not None:
        return {"kind": "dev", **best, "metric": best["bleu"]}
    if best.get("loss") is not None:
        return {"kind": "dev", **best, "metric": -best["loss"]}
    return None
