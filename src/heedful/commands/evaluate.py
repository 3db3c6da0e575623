"""`heedful evaluate`: sacreBLEU BLEU and chrF of a model on a test set, with their signatures.

heedful evaluate --model DIR --data ../shared/data/tatoeba/spa-eng/dev.tsv --src es --tgt en
heedful evaluate --model DIR --src-file test_2016_flickr.de --ref-file test_2016_flickr.en --json

A TSV file's columns are named by ``--columns`` (e.g. ``en,es``), else by the model's training data
(config.json's data.columns), else English first, as in ManyThings' Tatoeba files. ``--src`` and
``--tgt`` default to the languages the model was trained on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from heedful.bundled import resolve_model
from heedful.commands.translate import add_decoding_arguments, decoding_options
from heedful.translator import Translator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_decoding_arguments(parser)
    parser.add_argument("--data", metavar="FILE.tsv", help="a TSV file of sentence pairs")
    parser.add_argument("--src", metavar="LANG", help="source language (default: the model's)")
    parser.add_argument("--tgt", metavar="LANG", help="target language (default: the model's)")
    parser.add_argument("--columns", metavar="A,B", help="languages of the TSV's two columns")
    parser.add_argument("--src-file", metavar="FILE", help="sources, one a line")
    parser.add_argument("--ref-file", metavar="FILE", help="references, line-aligned with them")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N pairs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    from sacrebleu.metrics import BLEU, CHRF

    from heedful.data.readers import read_aligned, read_tsv

    options = decoding_options(args)
    if bool(args.data) == bool(args.src_file or args.ref_file):
        raise ValueError("give either --data FILE.tsv, or --src-file and --ref-file")
    if not args.data and not (args.src_file and args.ref_file):
        raise ValueError("--src-file and --ref-file go together")
    translator = Translator.load(resolve_model(args.model), quantize=args.quantize)
    if args.data:
        data = translator.meta.get("data") or {}
        src, tgt = args.src or data.get("src"), args.tgt or data.get("tgt")
        if not src or not tgt:
            raise ValueError("name the languages with --src and --tgt")
        columns = _columns(args.columns, data.get("columns"), src, tgt)
        pairs = read_tsv(args.data, columns, src, tgt)
    else:
        pairs = read_aligned(args.src_file, args.ref_file)
    pairs = pairs.head(args.limit)
    if not len(pairs):
        raise ValueError(f"{pairs.origin}: no sentence pairs to evaluate on")

    started = time.perf_counter()
    hypotheses = translator.translate(pairs.sources, **options)
    seconds = time.perf_counter() - started
    bleu, chrf = BLEU(), CHRF()
    bleu_score = bleu.corpus_score(hypotheses, [pairs.targets])
    chrf_score = chrf.corpus_score(hypotheses, [pairs.targets])
    signature = {"bleu": str(bleu.get_signature()), "chrf": str(chrf.get_signature())}
    if args.json:
        result = {
            "bleu": round(bleu_score.score, 2),
            "chrf": round(chrf_score.score, 2),
            "signature": signature,
            "sentences": len(pairs),
            "seconds": round(seconds, 2),
        }
        print(json.dumps(result))
    else:
        print(f"{bleu_score.format(signature=signature['bleu'])}")
        print(f"{chrf_score.format(signature=signature['chrf'])}")
        rate = len(pairs) / seconds if seconds else float("inf")
        print(f"{len(pairs)} sentences in {seconds:.1f} s ({rate:.1f}/s)", file=sys.stderr)
    return 0


def _columns(given: str | None, trained: list[str] | None, src: str, tgt: str) -> tuple[str, str]:
    if given:
        columns = tuple(c.strip() for c in given.split(","))
        if len(columns) != 2 or not all(columns):
            raise ValueError(f"--columns takes two languages like en,es, not {given!r}")
        return columns  # type: ignore[return-value]
    if trained and {src, tgt} == set(trained):
        return tuple(trained)  # type: ignore[return-value]
    if "en" in (src, tgt):
        return ("en", tgt if src == "en" else src)  # ManyThings: English<TAB>other
    raise ValueError("name the TSV file's columns with --columns, e.g. --columns de,fr")
