"""`heedful heads`: which heads do the heavy lifting, measured on data.

heedful heads --model DIR --data ../shared/data/tatoeba/spa-eng/dev.tsv --png heads.png

For every (kind, layer, head): confidence (the mean of each query's largest weight), entropy
(nats) and importance (the rise in per-token loss when that head alone is silenced), as a table,
most important first, and optionally a PNG or JSON. Layers and heads count from 1.

--data: for a translation model, a TSV file of pairs; its columns are read as the model was
trained (config.json's data.columns, src, tgt), else source<TAB>target. For a language model,
one text a line. Only the first --max-sentences pairs are used: the measure runs the data once
per head, plus once; a progress bar on stderr counts the heads silenced (on a terminal;
``--quiet`` hides it).
"""

from __future__ import annotations

import argparse
import json
import sys

from heedful.bundled import resolve_model
from heedful.commands.shared import add_old_spelling, add_quiet_argument, progress_bar
from heedful.devices import add_device_argument, pick_device


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model", required=True, metavar="DIR", help="a model directory, or a bundled model's name"
    )
    parser.add_argument("--data", required=True, metavar="FILE", help="pairs (TSV) or texts")
    parser.add_argument(
        "--max-sentences", type=int, default=200, metavar="N", help="use the first N (200)"
    )
    parser.add_argument("--batch-size", type=int, default=32, metavar="N", help="default 32")
    parser.add_argument(
        "--top-heads", type=int, metavar="K", help="show only the K most important heads"
    )
    add_old_spelling(parser, "--top", "--top-heads", type=int)
    parser.add_argument("--png", metavar="FILE", help="write layer x head maps of each measure")
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    add_device_argument(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    from heedful.checkpoint import load_model_dir
    from heedful.explain.heads import (
        format_stats,
        head_stats,
        stats_json,
    )
    from heedful.explain.heatmaps import save_stats_png
    from heedful.lm import DecoderOnlyLM
    from heedful.training.batching import batches_in_order

    if args.max_sentences < 1 or args.batch_size < 1:
        raise ValueError("--max-sentences and --batch-size must be at least 1")
    device = pick_device(args.device)
    model, tokenizer, meta = load_model_dir(resolve_model(args.model), device=device)
    language_model = isinstance(model, DecoderOnlyLM)
    sources, targets = read_data(args.data, meta, language_model, args.max_sentences)
    batches = batches_in_order(tokenizer, model.config, targets, sources, args.batch_size)

    with progress_bar(None, "head", quiet=args.quiet, desc="silencing heads") as bar:

        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)

        stats = head_stats(model, batches, progress=progress)
    if args.json:
        print(json.dumps(stats_json(stats)[: args.top_heads], indent=2))
    else:
        print(format_stats(stats, args.top_heads))
    if args.png:
        print(f"wrote {save_stats_png(stats, args.png)}", file=sys.stderr)
    return 0


def read_data(path: str, meta: dict, language_model: bool, limit: int):
    """(sources or None, targets): the first ``limit`` pairs (or texts) of the file."""
    from heedful.data.readers import read_lines, read_tsv

    if language_model:
        texts = [t for _, t in read_lines(path) if t.strip()][:limit]
        if not texts:
            raise ValueError(f"{path}: no text to measure on")
        return None, texts
    data = meta.get("data", {})
    columns, src, tgt = data.get("columns"), data.get("src"), data.get("tgt")
    if not (columns and src and tgt):
        columns, src, tgt = ("source", "target"), "source", "target"
    pairs = read_tsv(path, tuple(columns), src, tgt).head(limit)
    if not len(pairs):
        raise ValueError(f"{path}: no pairs to measure on")
    return pairs.sources, pairs.targets
