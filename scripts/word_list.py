"""Write a model directory's word list (``source-words.txt``, heedful.lexicon) from the training
split its config.json names, as ``heedful train`` writes it: for a model trained before the list
kept each word's usual case, or to check a list against its corpus.

    python scripts/word_list.py models/es-en [--data ../shared/data] [--check]

``--check``: write nothing; say whether the directory's list holds the same words, in the same
order and the same forms, as the corpus gives.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from heedful.data import normalize_pairs, read_split
from heedful.lexicon import Lexicon

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    data = json.loads((args.model / "config.json").read_text(encoding="utf-8"))["data"]
    columns = tuple(data["columns"]) if data.get("columns") else None
    text = read_split(args.data, data["train"], data["src"], data["tgt"], columns)
    text, _ = normalize_pairs(text.head(data.get("train_pairs")))
    counted = Lexicon.count(text.sources)
    old = Lexicon.load(args.model)
    same = old is not None and old.forms == counted.forms
    cased = sum(form != word for form, word in zip(counted.forms, counted.words, strict=True))
    print(f"{args.model}: {len(counted):,} words, {cased:,} usually not in lower case; "
          f"the list there {'holds the same words' if same else 'differs'}")  # fmt: skip
    if args.check:
        sys.exit(0 if same else 1)
    counted.write(args.model)
    print(f"wrote {args.model / 'source-words.txt'}")


if __name__ == "__main__":
    main()
