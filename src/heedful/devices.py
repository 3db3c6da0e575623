"""Where a model runs: ``--device`` of the commands that load a model, and ``train.device``.

``cpu``, ``cuda``, ``cuda:N`` or ``auto`` (cuda when this torch sees a GPU, else cpu). A device
this machine or this build of torch cannot use is refused at once, with what it can use instead,
rather than failing deep inside torch.
"""

from __future__ import annotations

import argparse

import torch

CHOICES = "cpu, cuda, cuda:N or auto"


def add_device_argument(parser: argparse.ArgumentParser, default: str = "cpu") -> None:
    """``--device`` (once: a parser that already has it keeps its own)."""
    try:
        parser.add_argument(
            "--device",
            default=default,
            metavar="DEVICE",
            help=f"where the model runs: {CHOICES} (auto: cuda if there is a GPU); "
            f"default {default}",
        )
    except argparse.ArgumentError:  # e.g. shared decoding options already define it
        pass


def pick_device(name: str, setting: str = "--device") -> torch.device:
    """``name`` as a torch.device this process can use, or a ValueError naming ``setting``
    (``--device``, ``train.device``) and what to use instead."""
    said = f"{setting} {name}" if setting.startswith("-") else f"{setting}={name}"
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise ValueError(f"{said}: not a device; use {CHOICES}") from None
    if device.type == "cpu":
        return device
    if device.type != "cuda":
        raise ValueError(f"{said}: heedful runs on the CPU or CUDA GPUs; use {CHOICES}")
    if not torch.cuda.is_available():
        why = (
            f"this torch ({torch.__version__}) is built without CUDA"
            if torch.version.cuda is None
            else "no GPU is visible to it"
        )
        raise ValueError(f"{said}: {why}; use cpu (or auto)")
    count = torch.cuda.device_count()
    if device.index is not None and device.index >= count:
        raise ValueError(f"{said}: there are {count} GPUs, cuda:0 to cuda:{count - 1}")
    return device
