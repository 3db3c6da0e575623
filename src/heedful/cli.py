"""`heedful COMMAND ...`: a thin dispatcher. Each command lives in its own module, which provides
``add_arguments(parser)`` and ``run(args) -> int``; the CLI only parses and calls.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings

import torch

from heedful import __version__

# name -> (module, one-line help)
COMMANDS = {
    "train": ("heedful.commands.train", "train a translation model from a YAML config"),
    "average": ("heedful.commands.average", "average the weights of several checkpoints"),
    "translate": ("heedful.commands.translate", "translate text, files or stdin"),
    "evaluate": ("heedful.commands.evaluate", "sacreBLEU and chrF of a model on a test set"),
    "export": ("heedful.commands.export", "export a model to another engine (CTranslate2)"),
    "attend": ("heedful.commands.attend", "show what every attention head attends to"),
    "align": ("heedful.commands.align", "word alignments from cross-attention"),
    "heads": ("heedful.commands.heads", "confidence, entropy and importance of every head"),
    "serve": ("heedful.commands.serve", "HTTP API and web page"),
    "lm": ("heedful.commands.lm", "train, sample and evaluate a decoder-only language model"),
}

# glibc giving freed memory back to the OS made a training step 1.5-1.7x slower on our machines;
# these keep it. They must be set before the process starts, so the CLI re-executes itself once.
ALLOCATOR_ENV = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": "100000000000"}


def ensure_allocator_settings(argv: list[str]) -> None:
    """Re-exec with ALLOCATOR_ENV unless set, or unless HEEDFUL_KEEP_MALLOC=1 asks us not to."""
    if os.environ.get("HEEDFUL_KEEP_MALLOC") == "1":
        return
    if all(k in os.environ for k in ALLOCATOR_ENV) or os.environ.get("_HEEDFUL_REEXEC"):
        return
    env = {**os.environ, **{k: v for k, v in ALLOCATOR_ENV.items() if k not in os.environ}}
    env["_HEEDFUL_REEXEC"] = "1"
    os.execve(sys.executable, [sys.executable, "-m", "heedful", *argv], env)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="heedful", description="The Transformer of 'Attention Is All You Need'."
    )
    parser.add_argument(
        "--version",
        action="version",
        version=f"heedful {__version__} (torch {torch.__version__})",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        mod = importlib.import_module(module)
        mod.add_arguments(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not os.environ.get("PYTEST_CURRENT_TEST"):
        ensure_allocator_settings(argv)
    args = build_parser().parse_args(argv)
    default_format = warnings.formatwarning
    warnings.formatwarning = _warning_format(args.command)
    try:
        return args._run(args) or 0
    except (FileNotFoundError, ValueError) as e:
        print(f"heedful {args.command}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"heedful {args.command}: interrupted", file=sys.stderr)
        return 130
    finally:
        warnings.formatwarning = default_format


def _warning_format(command: str):
    """Warnings as one line, like errors: `heedful translate: warning: ...` (Python's default
    adds the file and line of heedful's code that warned, which means nothing to a CLI user)."""

    def format_warning(message, category, filename, lineno, line=None) -> str:
        kind = "warning" if category is UserWarning else category.__name__
        return f"heedful {command}: {kind}: {message}\n"

    return format_warning


if __name__ == "__main__":
    sys.exit(main())
