"""What several commands share: the progress bar of the ones that run for minutes (``evaluate``,
``heads``), on stderr, shown only on a terminal and without ``--quiet``, so that pipes, logs and
``--json`` output stay clean; and the old spellings of renamed options (DEVELOPERS.md, "Names")."""

from __future__ import annotations

import argparse
import sys


def add_quiet_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def progress_bar(total: int, unit: str, *, quiet: bool, desc: str | None = None):
    """A tqdm bar on stderr, disabled with ``quiet`` or when stderr is not a terminal."""
    from tqdm import tqdm

    return tqdm(
        total=total, unit=unit, desc=desc, file=sys.stderr, leave=False, dynamic_ncols=True,
        disable=quiet or not sys.stderr.isatty(),
    )  # fmt: skip


def add_old_spelling(parser: argparse.ArgumentParser, old: str, new: str, **kwargs) -> None:
    """Still accept ``old``, what option ``new`` was called before, for one release: hidden from
    --help, it sets what ``new`` sets, and says on stderr that it is deprecated. ``kwargs``: what
    ``new`` was declared with that reads its value (``type``)."""
    dest = new.removeprefix("--").replace("-", "_")
    parser.add_argument(old, dest=dest, action=_OldSpelling, new=new, **kwargs)


class _OldSpelling(argparse.Action):
    def __init__(self, option_strings, dest, new: str, **kwargs):
        super().__init__(
            option_strings, dest, default=argparse.SUPPRESS, help=argparse.SUPPRESS, **kwargs
        )
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(
            f"{parser.prog}: warning: {option_string} is deprecated, use {self.new}",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)
