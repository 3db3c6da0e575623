"""The training state kept in a model directory: everything needed to continue exactly.

    DIR/training_state.safetensors  the weights, Adam's moments and step per parameter, and the
                                    RNG states; its metadata holds the JSON below, so this one
                                    file, written atomically, is a complete checkpoint
    DIR/training_state.json         step, data position, best dev BLEU, ...: a readable copy

``model.safetensors`` beside them is the model a user loads; resuming reads only this file, so a
kill between two writes can never pair weights of one step with an optimizer of another.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from safetensors import SafetensorError, safe_open
from torch import nn

from heedful.checkpoint import (
    atomic_save_tensors,
    atomic_write_json,
    load_tensors,
    load_weights,
    unique_state_dict,
)

STATE_FILE = "training_state.safetensors"
STATE_JSON = "training_state.json"
_MOMENTS = ("exp_avg", "exp_avg_sq", "step")


class DamagedState(ValueError):
    """The training state file is there but cannot be read (truncated, emptied, overwritten)."""


def save_training_state(
    directory: str | Path,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    info: dict[str, Any],
    rng: dict[str, torch.Tensor],
) -> None:
    """Write the state atomically: tensors + info in one file, then the readable JSON copy."""
    directory = Path(directory)
    tensors = {f"model/{k}": v for k, v in unique_state_dict(model).items()}
    names = parameter_names(model)
    for index, moments in optimizer.state_dict()["state"].items():
        for key in _MOMENTS:
            tensors[f"optimizer/{names[index]}/{key}"] = moments[key].detach().cpu()
    tensors.update({f"rng/{k}": v for k, v in rng.items()})
    atomic_save_tensors(directory / STATE_FILE, tensors, metadata={"state": json.dumps(info)})
    atomic_write_json(directory / STATE_JSON, info)


def load_training_state(
    directory: str | Path, model: nn.Module, optimizer: torch.optim.Optimizer
) -> tuple[dict[str, Any], dict[str, torch.Tensor]]:
    """Restore weights and optimizer from DIR; returns (info, RNG states)."""
    path = Path(directory) / STATE_FILE
    try:
        tensors = load_tensors(path)
    except ValueError as e:
        raise DamagedState(str(e)) from e
    info = read_info(directory)
    if not isinstance(info, dict):
        raise DamagedState(f"{path}: no training state in its metadata")
    weights = {k.removeprefix("model/"): v for k, v in tensors.items() if k.startswith("model/")}
    load_weights(model, weights, path)
    device = next(model.parameters()).device
    state = {}
    for index, name in enumerate(parameter_names(model)):
        keys = [f"optimizer/{name}/{key}" for key in _MOMENTS]
        if all(k in tensors for k in keys):
            state[index] = {m: tensors[k] for m, k in zip(_MOMENTS, keys, strict=True)}
            state[index]["exp_avg"] = state[index]["exp_avg"].to(device)
            state[index]["exp_avg_sq"] = state[index]["exp_avg_sq"].to(device)
        elif any(k in tensors for k in keys):
            raise ValueError(f"{path}: optimizer state of {name} is incomplete")
    optimizer.load_state_dict(
        {"state": state, "param_groups": optimizer.state_dict()["param_groups"]}
    )
    rng = {k.removeprefix("rng/"): v for k, v in tensors.items() if k.startswith("rng/")}
    return info, rng


def read_info(directory: str | Path) -> dict[str, Any] | None:
    """The JSON state of DIR's checkpoint without loading its tensors (None if there is none)."""
    path = Path(directory) / STATE_FILE
    if not path.is_file():
        return None
    try:
        with safe_open(path, framework="pt") as f:
            return json.loads((f.metadata() or {}).get("state", "null"))
    except (SafetensorError, OSError, ValueError) as e:  # json's errors are ValueErrors
        raise DamagedState(f"{path}: damaged, not a readable safetensors file ({e})") from e


def parameter_names(model: nn.Module) -> list[str]:
    """Names of ``model.parameters()`` in order (shared tensors once): the optimizer's indices."""
    return [name for name, _ in model.named_parameters()]
