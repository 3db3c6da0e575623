"""`heedful evaluate`: sacreBLEU BLEU and chrF of a model on a test set, with their signatures.

heedful evaluate --model DIR --data ../shared/data/tatoeba/spa-eng/dev.tsv --src es --tgt en
heedful evaluate --model DIR --src-file test_2016_flickr.de --ref-file test_2016_flickr.en --json

A TSV file's columns are named by ``--columns`` (e.g. ``en,es``), else by the model's training data
(config.json's data.columns), else English first, as in ManyThings' Tatoeba files. ``--src`` and
``--tgt`` default to the languages the model was trained on, and must be those when given: an
es -> en model scored on en -> es pairs gives a meaningless BLEU, so that is refused. A progress
bar on stderr counts the sentences (on a terminal; ``--quiet`` hides it).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from heedful.bundled import resolve_model
from heedful.checkpoint import CONFIG_FILE, read_json
from heedful.commands.shared import add_quiet_argument, progress_bar
from heedful.commands.translate import add_decoding_arguments, check_workers, decoding_options
from heedful.devices import add_device_argument, pick_device
from heedful.languages import check_language_code
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
    add_device_argument(parser)
    add_quiet_argument(parser)


def run(args: argparse.Namespace) -> int:
    from sacrebleu.metrics import BLEU, CHRF

    from heedful.data.readers import read_aligned, read_tsv

    options = decoding_options(args)
    check_workers(args)
    if bool(args.data) == bool(args.src_file or args.ref_file):
        raise ValueError("give either --data FILE.tsv, or --src-file and --ref-file")
    if not args.data and not (args.src_file and args.ref_file):
        raise ValueError("--src-file and --ref-file go together")
    for flag, code in (("--src", args.src), ("--tgt", args.tgt)):
        if code is not None:
            check_language_code(code, flag)
    model_dir = resolve_model(args.model)
    check_direction(args.src, args.tgt, model_dir)
    device = pick_device(args.device)
    if args.workers > 1 and device.type != "cpu":
        raise ValueError("--workers is for the CPU; give --device cpu, or leave out --workers")
    if args.data:
        data = trained_data(model_dir)
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

    if args.workers > 1:
        hypotheses, seconds = _translate_in_workers(model_dir, pairs.sources, options, args)
    else:
        translator = Translator.load(model_dir, quantize=args.quantize, device=device)
        hypotheses, seconds = _translate(translator, pairs.sources, options, args)
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


def _translate(translator, sources, options, args) -> tuple[list[str], float]:
    """The translations, and the seconds they took, with a progress bar."""
    started = time.perf_counter()
    with progress_bar(len(sources), "sent", quiet=args.quiet) as bar:
        # the encoder runs once per batch: count its rows (a text of several sentences counts
        # each, so the count stops at the total)
        def count(module, inputs, output) -> None:
            bar.update(min(inputs[0].shape[0], bar.total - bar.n))

        hook = translator.model.encoder.register_forward_hook(count)
        try:
            hypotheses = translator.translate(sources, **options)
        finally:
            hook.remove()
    return hypotheses, time.perf_counter() - started


def _translate_in_workers(model_dir, sources, options, args) -> tuple[list[str], float]:
    """``_translate`` with ``--workers`` processes (heedful.pool), in chunks for the progress
    bar; the seconds count from when the workers have loaded the model."""
    from heedful.pool import TranslatorPool

    size = 8 * args.batch_size * args.workers
    with TranslatorPool(model_dir, args.workers, quantize=args.quantize) as pool:
        started = time.perf_counter()
        hypotheses: list[str] = []
        with progress_bar(len(sources), "sent", quiet=args.quiet) as bar:
            for at in range(0, len(sources), size):
                hypotheses += pool.translate(sources[at : at + size], **options)
                bar.update(min(size, len(sources) - at))
        return hypotheses, time.perf_counter() - started


def check_direction(src: str | None, tgt: str | None, model_dir: Path) -> None:
    """Refuse --src / --tgt other than the languages the model was trained on (config.json's
    data.src and data.tgt; a model that does not record them, e.g. an imported one, is taken at
    the user's word)."""
    path = Path(model_dir) / CONFIG_FILE
    data = trained_data(model_dir)
    trained = (data.get("src"), data.get("tgt"))
    for flag, given, known in (("--src", src, trained[0]), ("--tgt", tgt, trained[1])):
        if given is not None and known and given != known:
            raise ValueError(
                f"{flag} {given}: the model translates {trained[0]} → {trained[1]} ({path}'s "
                f"data.src and data.tgt); give --src {trained[0]} --tgt {trained[1]}, or leave "
                "them out"
            )


def trained_data(model_dir: Path) -> dict:
    """config.json's "data" section (languages, TSV columns); empty for a model without one."""
    path = Path(model_dir) / CONFIG_FILE
    meta = read_json(path) if path.is_file() else {}
    data = meta.get("data") if isinstance(meta, dict) else None
    return data if isinstance(data, dict) else {}


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
