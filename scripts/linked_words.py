"""Write a model directory's table of the words its training links joined (``linked-words.tsv``,
heedful.explain.linked_words) from a guided-alignment run made before ``heedful train`` wrote it:
the run's training pairs (read and augmented again as its config says) and the eflomal links it
kept (RUN/alignments.txt, whose fingerprint must match those pairs).

    python scripts/linked_words.py RUN [--out MODEL_DIR]    (default: RUN itself)
    python scripts/linked_words.py --config configs/X.yaml --out MODEL_DIR
    python scripts/linked_words.py --config configs/X.yaml --out MODEL_DIR --own

With ``--config`` (a run whose directory is gone: the run config it was trained with), the pairs
are aligned with eflomal again, as ``heedful train`` aligns them; eflomal samples, so these are
not exactly the links the run trained on. With ``--own`` the model in MODEL_DIR aligns them
itself (heedful.explain.alignment_choice.own_linked_words: its recorded method without the
table, the spelling, a blend or a confidence, linking by ``--links``): a table from the model
alone.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from heedful.data import normalize_pairs, read_split
from heedful.data.augment import augment
from heedful.explain.linked_words import FILE
from heedful.training.alignment import LINKS_FILE, count_linked_words, fingerprint, word_links
from heedful.training.config import load_config
from heedful.training.trainer import load_run_config
from heedful.wordalign import read_pharaoh


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, nargs="?")
    parser.add_argument("--config", type=Path, help="the run config, where the run is gone")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--own", action="store_true", help="the model in --out aligns the pairs")
    parser.add_argument(
        "--links", default="grow-diag-final-and", help="with --own (default: %(default)s)"
    )
    args = parser.parse_args()
    if (args.run is None) == (args.config is None):
        parser.error("give a run directory or --config FILE (not both)")
    if args.config is not None and args.out is None:
        parser.error("--config needs --out MODEL_DIR")
    if args.run is not None:
        config = load_config(None, base=load_run_config(args.run))
    else:
        config = load_config(args.config)
    data = config.data
    text = read_split(data.root, data.train, data.src, data.tgt, data.columns)
    text, _ = normalize_pairs(text.head(data.train_pairs))
    if config.augment.any():
        text, _ = augment(text, config.augment, src=data.src, tgt=data.tgt, seed=config.train.seed)
    if args.own:
        if args.out is None:
            parser.error("--own needs --out MODEL_DIR (the model that aligns)")
        return write_own(text, args.out, args.links, data.train)
    if args.run is not None:
        lines = (args.run / LINKS_FILE).read_text(encoding="utf-8").split("\n")
        if lines[0] != fingerprint(text) or len(lines) != len(text) + 1:
            raise SystemExit(f"{args.run / LINKS_FILE} was made for other pairs than the run's")
        links = [read_pharaoh(line) for line in lines[1:]]
    else:
        with tempfile.TemporaryDirectory(prefix="heedful-links-") as tmp:
            links = word_links(text, Path(tmp), print)
    table = count_linked_words(text, links)
    out = args.out or args.run
    table.write(out)
    print(f"wrote {out / FILE}: {len(table.dice):,} word pairs from {len(text):,} training pairs")


def write_own(text, model_dir: Path, links: str, train: str) -> None:
    from dataclasses import replace

    from tqdm import tqdm

    from heedful.explain.alignment_choice import own_linked_words
    from heedful.explain.alignment_methods import read_method
    from heedful.translator import Translator

    translator = Translator.load(model_dir)
    config = translator.config
    method = replace(read_method(model_dir).attention_alone(), links=links)
    method = method.resolve(config.n_decoder_layers, config.n_heads)
    with tqdm(total=len(text), unit="pair", desc="aligning") as bar:
        table, _ = own_linked_words(translator, text.sources, text.targets, method, train, bar=bar)
    table.write(model_dir)
    print(f"wrote {model_dir / FILE}: {len(table.dice):,} word pairs; {table.origin}")


if __name__ == "__main__":
    main()
