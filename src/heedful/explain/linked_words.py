"""Word pairs the training corpus links: a table an alignment method may read beside attention.

    the training pairs and eflomal's links of each (guided alignment's, DIR/alignments.txt)
    -> for each (source word, target word), lower case: Dice's coefficient
       2 · times linked / (times the source word occurs + times the target word occurs)
    -> DIR/linked-words.tsv, one pair a line: "source<TAB>target<TAB>dice", most linked first

An alignment method with ``linked`` > 0 (``heedful.explain.alignment_methods.link``) multiplies
each target word's attention, made to sum to 1 over the source words, by (dice + ``FLOOR``) **
``linked`` before linking: of the source words the head looks at, the one the corpus links to
the target word wins ("house" / "maison" over "the" / "maison"). Every pair never linked in
training gets the same ``FLOOR``, so a word the corpus never saw is left to attention (and
spelling). Like the words' spelling this is no longer attention alone, but it is read from the
model directory: nothing is aligned at translation time.

The links counted may also be the model's own (``alignment_choice.own_linked_words``): after
training, the model aligns its training pairs by a method that reads no table (its guided head,
say) and the table is counted from those links. Then the table comes from the model alone, and
serves as well as eflomal's (bench/README.md, "The model's own linked words"). The file's first
line may say where its links came from (``# ...``; ``LinkedWords.origin``).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import torch
from torch import Tensor

FILE = "linked-words.tsv"
FLOOR = 1e-3  # the weight of a pair never linked in training, before the exponent


def key(word: str) -> str:
    """How the table spells a word: in lower case (the texts are NFKC-normalised already)."""
    return word.lower()


class LinkedWords:
    """Dice's coefficient of each (source word, target word) that training links joined."""

    def __init__(self, by_target: dict[str, dict[str, float]], origin: str | None = None):
        self._by_target = by_target  # target word -> source word -> Dice
        self.origin = origin  # where its links came from, as the file's first line says

    @classmethod
    def from_pairs(cls, dice: Iterable[tuple[tuple[str, str], float]]) -> LinkedWords:
        """The table of ((source word, target word), Dice) items, each word's string kept once
        (a server holds the table)."""
        by_target: dict[str, dict[str, float]] = {}
        for (s, t), value in dice:
            by_target.setdefault(sys.intern(t), {})[sys.intern(s)] = value
        return cls(by_target)

    @property
    def dice(self) -> dict[tuple[str, str], float]:
        """Every (source word, target word) -> Dice, most linked first."""
        flat = {(s, t): d for t, row in self._by_target.items() for s, d in row.items()}
        return dict(sorted(flat.items(), key=lambda item: -item[1]))

    @classmethod
    def count(
        cls,
        sources: Iterable[Sequence[str]],
        targets: Iterable[Sequence[str]],
        links: Iterable[Iterable[tuple[int, int]]],
    ) -> LinkedWords:
        """The table of word-split pairs and their links (source word i, target word j)."""
        linked: Counter[tuple[str, str]] = Counter()
        source_counts: Counter[str] = Counter()
        target_counts: Counter[str] = Counter()
        for source, target, pair_links in zip(sources, targets, links, strict=True):
            source, target = [key(w) for w in source], [key(w) for w in target]
            source_counts.update(source)
            target_counts.update(target)
            linked.update((source[i], target[j]) for i, j in pair_links)
        return cls.from_pairs(
            ((s, t), 2 * n / (source_counts[s] + target_counts[t])) for (s, t), n in linked.items()
        )

    def prior(self, sources: Sequence[str], targets: Sequence[str]) -> Tensor:
        """[target words, source words]: each pair's Dice coefficient, 0 if never linked."""
        prior = torch.zeros(len(targets), len(sources))
        for j, i, dice in self.linked(sources, targets):
            prior[j, i] = dice
        return prior

    def linked(
        self, sources: Sequence[str], targets: Sequence[str]
    ) -> Iterator[tuple[int, int, float]]:
        """``prior``'s values above 0, as (target word, source word, Dice): few."""
        sources = [key(w) for w in sources]
        for j, target in enumerate(targets):
            if row := self._by_target.get(key(target)):
                for i, source in enumerate(sources):
                    if dice := row.get(source):
                        yield j, i, dice

    def write(self, directory: str | Path) -> None:
        from heedful.files import atomic_write_bytes

        head = [] if self.origin is None else [f"# {self.origin}\n"]
        lines = (f"{s}\t{t}\t{d:.4g}\n" for (s, t), d in self.dice.items())
        atomic_write_bytes(Path(directory) / FILE, "".join([*head, *lines]).encode())

    @classmethod
    def load(cls, directory: str | Path) -> LinkedWords | None:
        """A model directory's table; None if it has none. A malformed line is refused with the
        file and line."""
        path = Path(directory) / FILE
        if not path.is_file():
            return None
        lines = path.read_text(encoding="utf-8").split("\n")
        table = cls.from_pairs(_read_pairs(path, lines))
        if lines[0].startswith("# "):
            table.origin = lines[0][2:]
        return table


def _read_pairs(path: Path, lines: list[str]) -> Iterator[tuple[tuple[str, str], float]]:
    for number, line in enumerate(lines, 1):
        if not line or number == 1 and line.startswith("# "):
            continue
        parts = line.split("\t")
        try:
            if len(parts) != 3:
                raise ValueError
            yield (parts[0], parts[1]), float(parts[2])
        except ValueError:
            raise ValueError(
                f"{path}, line {number}: expected source<TAB>target<TAB>dice, not {line!r}"
            ) from None
