"""Checkpoints besides the latest: the last K saves kept for averaging (the paper averages the
last 5, §6.1), and what a saved model directory records about its training."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any


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
            "target_tokens": info.get("target_tokens"),
            "best_dev": {
                k: best.get(k) for k in ("step", "loss", "ppl", "bleu", "chrf") if k in best
            },
        }
    }
