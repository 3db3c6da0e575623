"""The inputs ``bench/decode.py --bundled`` times a bundled model on: its dev set, as it comes,
and a long-tailed file made from it.

- ``dev``: every source line of the model's dev split (config.json's ``data.dev``), in file order,
  with its reference (a source with several references comes once per reference, as in the file).
- ``long-tail``: the same dev sources mixed with ``PARAGRAPHS`` paragraphs (2-6 consecutive dev
  sentences joined by a space) and ``LONG`` long sentences (dev statements joined into one
  sentence of 40-80 words with ", " and the language's "and"), made by ``bench/robustness.py``'s
  own makers (``paragraph_items``, ``long_items``, which draw from the distinct dev pairs), then
  shuffled together; all drawn from one ``random.Random(SEED)``, so the file is the same at every
  run and in every process. No references: it measures speed only.

``limit`` keeps the first ``limit`` inputs of either (quick runs).
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

BENCH = str(Path(__file__).resolve().parent)
if BENCH not in sys.path:  # run as a script, bench/ is there already
    sys.path.insert(0, BENCH)
import robustness  # noqa: E402  bench/robustness.py, whose makers the long tail uses

WORKLOADS = ("dev", "long-tail")
SEED, PARAGRAPHS, LONG = 34, 300, 300  # 34: the issue that asked for the long tail


def read_dev(directory: Path) -> tuple[list[str], list[str], str, str]:
    """The dev split named by a model directory's config.json: (sources, references, source
    language, target language)."""
    from heedful.data.readers import read_split

    data = json.loads((directory / "config.json").read_text())["data"]
    root = data.get("root") or Path(__file__).resolve().parents[2] / "shared" / "data"
    dev = read_split(root, data["dev"], data["src"], data["tgt"], tuple(data["columns"]))
    return dev.sources, dev.targets, data["src"], data["tgt"]


def long_tail(
    sources: list[str], references: list[str], src: str, tgt: str, *, seed: int = SEED,
    paragraphs: int = PARAGRAPHS, long: int = LONG,
) -> list[str]:  # fmt: skip
    """``sources`` mixed with ``paragraphs`` paragraphs and ``long`` long sentences made from
    the pairs (``robustness.paragraph_items`` and ``long_items``, one item per call), shuffled;
    the same for the same arguments."""
    rng = random.Random(seed)
    first: dict[str, str] = {}  # each source once, with its first reference, in file order
    for source, reference in zip(sources, references, strict=True):
        first.setdefault(source, reference)
    pairs = [robustness.Pair(s, t) for s, t in first.items()]
    names, _ = robustness.name_candidates(pairs, src, tgt)  # kept capitalised inside a sentence
    made = [robustness.paragraph_items(pairs, rng, 1)[0].src for _ in range(paragraphs)]
    made += [robustness.long_items(pairs, src, tgt, rng, 1, names)[0].src for _ in range(long)]
    mixed = sources + made
    rng.shuffle(mixed)
    return mixed


def inputs(directory: Path, workload: str, limit: int = 0) -> tuple[list[str], list[str] | None]:
    """(sources, references or None) of a workload for a bundled model directory; ``limit``:
    only the first so many (0: all)."""
    sources, references, src, tgt = read_dev(directory)
    if workload == "long-tail":
        sources, references = long_tail(sources, references, src, tgt), None
    elif workload != "dev":
        raise ValueError(f"unknown workload {workload!r}, expected one of {WORKLOADS}")
    if limit:
        sources = sources[:limit]
        references = references[:limit] if references is not None else None
    return sources, references
