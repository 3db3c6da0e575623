"""What several commands share: the progress bar of the ones that run for minutes (``evaluate``,
``heads``), on stderr, shown only on a terminal and without ``--quiet``, so that pipes, logs and
``--json`` output stay clean."""

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
