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


def build_config(args: argparse.Namespace):
    """(RunConfig, model directory, resume?) from the command line."""
    from heedful.training.config import load_config
    from heedful.training.trainer import load_run_config

    overrides = list(args.overrides)
    if args.precision:
        overrides.append(f"train.precision={args.precision}")
    if args.resume:
        if args.config:
            raise ValueError("give --config to start a run or --resume DIR to continue one")
        if args.out and args.out != args.resume:
            raise ValueError("--resume DIR writes to DIR; leave out --out")
        return load_config(None, overrides, base=load_run_config(args.resume)), args.resume, True
    if not args.config or not args.out:
        raise ValueError("heedful train needs --config FILE and --out DIR (or --resume DIR)")
    return load_config(args.config, overrides), args.out, False


def run(args: argparse.Namespace) -> int:
    from heedful.training.trainer import train

    config, out, resume = build_config(args)
    info = train(config, out, resume=resume)
    best = info.get("best") or {}
    if best.get("bleu") is not None:
        print(
            f"done at step {info['step']}; best dev BLEU {best['bleu']:.2f} at step {best['step']}"
        )
    else:
        print(f"done at step {info['step']}")
    return 0
