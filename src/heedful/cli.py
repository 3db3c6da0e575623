"""`heedful COMMAND ...`: a thin dispatcher. Each command lives in its own module, which provides
``add_arguments(parser)`` and ``run(args) -> int``; the CLI only parses and calls.

Only the command being run is imported (and with it torch): `heedful --version` and `--help`
import neither, and answer in a few hundredths of a second instead of two.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import os
import sys
import warnings

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
    """Re-exec with ALLOCATOR_ENV unless set, or unless HEEDFUL_KEEP_MALLOC=1 asks us not to;
    not for `--version` or `--help` (no command: nothing to allocate)."""
    if os.environ.get("HEEDFUL_KEEP_MALLOC") == "1" or command_in(argv) is None:
        return
    if all(k in os.environ for k in ALLOCATOR_ENV) or os.environ.get("_HEEDFUL_REEXEC"):
        return
    env = {**os.environ, **{k: v for k, v in ALLOCATOR_ENV.items() if k not in os.environ}}
    env["_HEEDFUL_REEXEC"] = "1"
    os.execve(sys.executable, [sys.executable, "-m", "heedful", *argv], env)


def command_in(argv: list[str]) -> str | None:
    """The command argv names: its first word that is not an option (the top level's only
    options, --help and --version, take no value), if it is a command."""
    first = next((a for a in argv if not a.startswith("-")), None)
    return first if first in COMMANDS else None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``argv``, only of the command it names (the others are
    listed, not imported)."""
    parser = argparse.ArgumentParser(
        prog="heedful", description="The Transformer of 'Attention Is All You Need'."
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    wanted = set(COMMANDS) if argv is None else {command_in(argv)}
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        if name in wanted:
            mod = importlib.import_module(module)
            mod.add_arguments(p)
            p.set_defaults(_run=mod.run)
    return parser


def _version() -> str:
    try:  # the installed torch's version, read without importing it
        torch_version = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = "not installed"
    return f"heedful {__version__} (torch {torch_version})"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    command = command_in(argv)
    try:  # Ctrl-C while torch is still being imported is an interruption too, not a traceback
        if not os.environ.get("PYTEST_CURRENT_TEST"):
            ensure_allocator_settings(argv)
        args = build_parser(argv).parse_args(argv)
    except KeyboardInterrupt:
        print(f"heedful {command}: interrupted" if command else "heedful: interrupted",
              file=sys.stderr)  # fmt: skip
        return 130
    default_format = warnings.formatwarning
    warnings.formatwarning = _warning_format(args.command)
    try:
        return args._run(args) or 0
    except KeyboardInterrupt:
        print(f"heedful {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `heedful translate ... | head`: the reader has what it wanted
        # Python would complain again when it flushes stdout at exit: point it at /dev/null
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a process killed by the signal
    except (OSError, ValueError) as e:
        print(f"heedful {args.command}: error: {_said(e)}", file=sys.stderr)
        return 1
    finally:
        warnings.formatwarning = default_format


def _said(error: Exception) -> str:
    """An error in words: the system's own errors as "PATH: reason" ("/proc/nope: No such file
    or directory"), not Python's "[Errno 2] ..."; heedful's own as they are."""
    if isinstance(error, OSError) and error.strerror and error.filename is not None:
        return f"{error.filename}: {error.strerror}"
    return str(error)


def _warning_format(command: str):
    """Warnings as one line, like errors: `heedful translate: warning: ...` (Python's default
    adds the file and line of heedful's code that warned, which means nothing to a CLI user)."""

    def format_warning(message, category, filename, lineno, line=None) -> str:
        kind = "warning" if category is UserWarning else category.__name__
        return f"heedful {command}: {kind}: {message}\n"

    return format_warning


if __name__ == "__main__":
    sys.exit(main())
