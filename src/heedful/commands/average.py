"""`heedful average DIR... --out DIR`: average the weights of checkpoints (paper §6.1).

heedful average runs/es-en/checkpoints/step-* --out runs/es-en-avg5
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("directories", nargs="+", metavar="DIR", help="model directories")
    parser.add_argument("--out", required=True, help="the model directory to write")


def run(args: argparse.Namespace) -> int:
    from heedful.training.average import average_model_dirs

    average_model_dirs(args.directories, args.out)
    print(f"wrote the average of {len(args.directories)} checkpoints to {args.out}")
    return 0
