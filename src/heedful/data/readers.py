"""Reading parallel text: TSV pair files, line-aligned file pairs, and ``.gz`` of either; and
monolingual text (for a language model): a plain file, or one column of a TSV file.

    tatoeba/spa-eng/train.tsv     English<TAB>Spanish, one pair a line (``columns: [en, es]``)
    multi30k/train.{lang}         train.de + train.en, line i of one translates line i of the other
    notes.txt                     one document (or sentence) a line

Bad input stops with an error that names the file and the line: a line without the tab, files
of different lengths, invalid UTF-8. Nothing is dropped here; filtering, with counts said aloud,
happens in ``heedful.data.corpus``.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path


class DataError(ValueError):
    """Input that cannot be read as parallel text; the message names the file and line."""


@dataclass
class ParallelText:
    """Pairs of raw (not yet normalised) sentences, and where they came from."""

    sources: list[str]
    targets: list[str]
    origin: str  # for messages: "train.tsv" or "train.{de,en}"

    def __len__(self) -> int:
        return len(self.sources)

    def head(self, n: int | None) -> ParallelText:
        """The first n pairs (all of them when n is None)."""
        if n is None:
            return self
        return ParallelText(self.sources[:n], self.targets[:n], self.origin)


def read_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(line number from 1, line without its newline) for a UTF-8 file or a .gz of one."""
    path = Path(path)
    if path.is_dir():
        raise IsADirectoryError(f"{path} is a folder: give a file of text")
    if not path.is_file():
        raise FileNotFoundError(f"data file not found: {path}")
    opener = gzip.open if path.name.endswith(".gz") else open
    number = 0
    try:
        with opener(path, "rb") as f:
            for number, raw in enumerate(f, 1):  # noqa: B007 - number is used after the loop
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise DataError(
                        f"{path}, line {number}: invalid UTF-8 (byte {raw[e.start]:#04x} at "
                        f"column {e.start + 1}); re-encode the file as UTF-8"
                    ) from None
                yield number, line.rstrip("\n").removesuffix("\r")
    except (gzip.BadGzipFile, EOFError, zlib.error) as e:
        raise DataError(f"{path}: broken gzip data after line {number} ({e})") from None


def read_tsv(path: str | Path, columns: tuple[str, str], src: str, tgt: str) -> ParallelText:
    """A file of ``A<TAB>B`` lines whose columns hold the languages ``columns``; returns the
    pairs in the direction src -> tgt."""
    if src == tgt:
        raise DataError(f"source and target are both {src!r}")
    for lang in (src, tgt):
        if lang not in columns:
            raise DataError(f"{path}: columns are {list(columns)}, there is no {lang!r} column")
    i_src, i_tgt = columns.index(src), columns.index(tgt)
    sources, targets = [], []
    for number, line in read_lines(path):
        fields = line.split("\t")
        if len(fields) != 2:
            found = "no tab" if len(fields) == 1 else f"{len(fields) - 1} tabs"
            raise DataError(
                f"{path}, line {number}: expected two columns ({columns[0]}<TAB>{columns[1]}), "
                f"found {found}: {_preview(line)}"
            )
        sources.append(fields[i_src])
        targets.append(fields[i_tgt])
    return ParallelText(sources, targets, str(path))


def read_aligned(src_path: str | Path, tgt_path: str | Path) -> ParallelText:
    """Two files whose line i are translations of each other."""
    src_lines, tgt_lines = read_lines(src_path), read_lines(tgt_path)
    sources, targets = [], []
    while True:
        a, b = next(src_lines, None), next(tgt_lines, None)
        if a is None and b is None:
            break
        if a is None or b is None:
            longer, shorter = (tgt_path, src_path) if a is None else (src_path, tgt_path)
            number = (b or a)[0]
            raise DataError(
                f"{shorter} has {number - 1} lines but {longer} has more (line {number}): the "
                "two files must be line-aligned"
            )
        sources.append(a[1])
        targets.append(b[1])
    return ParallelText(sources, targets, f"{src_path} + {Path(tgt_path).name}")


def read_text(path: str | Path, column: int | None = None) -> list[str]:
    """Every line of a text file (one document a line), or, with ``column`` (from 0), that
    tab-separated field of every line; a line without the field is an error naming it."""
    if column is None:
        return [line for _, line in read_lines(path)]
    if column < 0:
        raise DataError(f"{path}: columns count from 0, not {column}")
    texts = []
    for number, line in read_lines(path):
        fields = line.split("\t")
        if column >= len(fields):
            raise DataError(
                f"{path}, line {number}: expected at least {column + 1} tab-separated columns, "
                f"found {len(fields)}: {_preview(line)}"
            )
        texts.append(fields[column])
    return texts


def read_split(
    root: str | Path,
    pattern: str | Sequence[str],
    src: str,
    tgt: str,
    columns: tuple[str, str] | None,
) -> ParallelText:
    """One split named in a config: ``dir/name.{lang}`` for aligned files (``{lang}`` becomes the
    source and the target language), or a ``.tsv`` / ``.tsv.gz`` file with ``columns``; or a
    list of these, read in order and joined."""
    if not isinstance(pattern, str):
        parts = [read_split(root, p, src, tgt, columns) for p in pattern]
        if not parts:
            raise DataError("the split names no file")
        return ParallelText(
            [s for part in parts for s in part.sources],
            [t for part in parts for t in part.targets],
            " + ".join(part.origin for part in parts),
        )
    path = Path(root) / pattern
    if "{lang}" in pattern:
        return read_aligned(str(path).format(lang=src), str(path).format(lang=tgt))
    if path.name.endswith((".tsv", ".tsv.gz")):
        if columns is None:
            raise DataError(f"{path}: a TSV file needs data.columns, e.g. [en, es]")
        return read_tsv(path, columns, src, tgt)
    raise DataError(
        f"{pattern}: name a .tsv(.gz) file, or line-aligned files with a {{lang}} placeholder "
        "(e.g. multi30k/train.{lang})"
    )


def _preview(line: str, width: int = 60) -> str:
    return repr(line if len(line) <= width else line[:width] + "...")
