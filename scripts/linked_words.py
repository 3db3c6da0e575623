"""Write a model directory's table of the words its training links joined (``linked-words.tsv``,
heedful.explain.linked_words) from a guided-alignment run made before ``heedful train`` wrote it:
the run's training pairs (read and augmented again as its config says) and the eflomal links it
kept (RUN/alignments.txt, whose fingerprint must match those pairs).

    python scripts/linked_words.py RUN [--out MODEL_DIR]    (default: RUN itself)
"""

from __future__ import annotations

import argparse
from pathlib import Path

from heedful.data import normalize_pairs, read_split
from heedful.data.augment import augment
from heedful.explain.linked_words import FILE
from heedful.training.alignment import LINKS_FILE, count_linked_words, fingerprint
from heedful.training.config import load_config
from heedful.training.trainer import load_run_config
from heedful.wordalign import read_pharaoh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    config = load_config(None, base=load_run_config(args.run))
    data = config.data
    text = read_split(data.root, data.train, data.src, data.tgt, data.columns)
    text, _ = normalize_pairs(text.head(data.train_pairs))
    if config.augment.any():
        text, _ = augment(text, config.augment, src=data.src, tgt=data.tgt, seed=config.train.seed)
    lines = (args.run / LINKS_FILE).read_text(encoding="utf-8").split("\n")
    if lines[0] != fingerprint(text) or len(lines) != len(text) + 1:
        raise SystemExit(f"{args.run / LINKS_FILE} was made for other pairs than the run's")
    table = count_linked_words(text, [read_pharaoh(line) for line in lines[1:]])
    out = args.out or args.run
    table.write(out)
    print(f"wrote {out / FILE}: {len(table.dice):,} word pairs from {len(text):,} training pairs")


if __name__ == "__main__":
    main()
