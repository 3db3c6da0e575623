"""`heedful train`: train a translation model from a YAML config, or resume a run.

heedful train --config configs/tatoeba-es-en.yaml --out runs/es-en [--set train.max_steps=200]
heedful train --resume runs/es-en [--set train.max_steps=20000]
torchrun --nproc_per_node 2 -m heedful train --config ... --out ...   (DDP)
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", help="YAML file (see configs/)")
    parser.add_argument("--out", help="the model directory to write (latest model + state)")
    parser.add_argument("--resume", metavar="DIR", help="continue the run in DIR exactly")
    parser.add_argument(
        "--set",
        dest="overrides",
        nargs="+",
        action="extend",
        default=[],
        metavar="KEY=VALUE",
        help="override config fields, e.g. train.max_steps=200 model.preset=tiny",
    )
    parser.add_argument(
        "--precision", choices=["fp32", "bf16"], help="the same as --set train.precision=..."
    )


def build_config(args: argparse.Namespace, *, task: str | None = None):
    """(RunConfig, model directory, resume?) from the command line. ``task``: what the caller
    trains (``heedful lm train``: lm); None: what the config says."""
    from heedful.training.config import TRAIN_COMMANDS, load_config
    from heedful.training.trainer import load_run_config

    command = TRAIN_COMMANDS.get(task or "translation")
    overrides = list(args.overrides)
    if getattr(args, "precision", None):
        overrides.append(f"train.precision={args.precision}")
    if args.resume:
        if args.config:
            raise ValueError("give --config to start a run or --resume DIR to continue one")
        if args.out and args.out != args.resume:
            raise ValueError("--resume DIR writes to DIR; leave out --out")
        base = load_run_config(args.resume)
        return load_config(None, overrides, base=base, task=task), args.resume, True
    if not args.config or not args.out:
        raise ValueError(f"{command} needs --config FILE and --out DIR (or --resume DIR)")
    return load_config(args.config, overrides, task=task), args.out, False


def run(args: argparse.Namespace, *, task: str | None = None) -> int:
    """``task``: what the caller trains (``heedful lm train``: lm); None: what the config says."""
    from heedful.training.trainer import train

    config, out, resume = build_config(args, task=task)
    info = train(config, out, resume=resume)
    if str(info.get("stopped")).startswith("interrupted"):
        return 130  # the shell's code for a Ctrl-C; the state is saved and resumable
    best = info.get("best") or {}
    if best.get("bleu") is not None:
        print(
            f"done at step {info['step']}; best dev BLEU {best['bleu']:.2f} at step {best['step']}"
        )
    elif best.get("ppl") is not None:
        print(
            f"done at step {info['step']}; best dev perplexity {best['ppl']:.2f} per token at "
            f"step {best['step']}"
        )
    else:
        print(f"done at step {info['step']}")
    return 0
