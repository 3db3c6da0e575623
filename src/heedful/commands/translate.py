"""`heedful translate`: translate texts, a file, or stdin line by line.

heedful translate --model DIR "Hola, mundo." "¿Qué tal?"
heedful translate --model DIR -i news.es -o news.en          # a progress bar on stderr
cat news.es | heedful translate --model DIR --beam 5 --json  # one JSON object per line
heedful translate --model DIR --n-best 3 "Hola."             # Moses n-best: i ||| text ||| score
heedful translate --model DIR --sample --top-p 0.9 "Hola."   # draw 4 translations, keep the best
heedful translate --model DIR --json --alignments "Hola."    # with word links (ALIGNMENT_HELP)
heedful translate --model DIR --quantize int8 --workers 2 -i news.es -o news.en  # 2 processes

A text of several sentences is translated sentence by sentence and joined with its own spacing;
ALL CAPS, URLs, e-mail addresses and long numbers are taken care of (``Translator.translate``).
A JSON record is {"source", "translation", "score"} (and "n_best", with --alignments
"alignment", and "warnings" where the translation may be wrong: each names its sentence and
what, as the warnings on stderr do); a text's score is the sum of its sentences'.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path
from typing import TextIO

from heedful.bundled import resolve_model
from heedful.decoding import BATCH_SIZE, BATCH_TOKENS
from heedful.translator import DecodingOptions, Sampling, Translation, Translator

ALIGNMENT_HELP = """word alignments (--alignments): which source word each translated word comes
from, by the method the model directory records (config.json "alignment"; see heedful align).
  with --json, each record (and each "n_best" entry) gets
    "alignment": [{"source": [start, end], "target": [start, end],
                   "source_word": "...", "target_word": "..."}, ...]
  where source[start:end] is the word in the record's "source" and target[start:end] the word
  in its "translation" (offsets count Unicode code points, as Python's str does; end is
  exclusive; punctuation at either end of a word is left out; sorted by source, then target).
  A URL, e-mail address or long number links to itself, and a word carried as it is (an emoji)
  to where it was put back.
  without --json: "translation ||| 0-0 1-2 ..." (Pharaoh format: source word i - target word j,
  words split at whitespace, counted from 0; a span of several words links word by word to one
  of as many, else each word to each); with --n-best: "i ||| text ||| score ||| links"."""


def add_decoding_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `translate` and `evaluate` share."""
    parser.add_argument(
        "--model", metavar="DIR", help="a model directory (default: the bundled models/es-en)"
    )
    parser.add_argument(
        "--beam", type=int, default=4, metavar="K", help="beam size (default 4); 1 is greedy"
    )
    parser.add_argument(
        "--length-penalty", type=float, default=0.6, metavar="A", help="alpha (default 0.6)"
    )
    parser.add_argument(
        "--penalty-form",
        choices=("gnmt", "power"),
        default="gnmt",
        help="gnmt: ((5+|Y|)/6)^alpha (the paper); power: |Y|^alpha (fairseq, HF, CTranslate2)",
    )
    parser.add_argument(
        "--early-stopping",
        action="store_true",
        help="stop a sentence's beam search once it holds --beam finished translations (fairseq, "
        "CTranslate2); by default it goes on while a live one could still win (HF)",
    )
    parser.add_argument(
        "--coverage-penalty", type=float, metavar="B",
        help="beta of the coverage penalty: the beam's translations rescored by how fully they "
        "attend to the source, so that one dropping a phrase loses (Wu et al. 2016; "
        "heedful.coverage); 0: off (default: the model's own, 0.1 for the bundled models)",
    )  # fmt: skip
    parser.add_argument(
        "--max-length", type=int, metavar="N", help="output tokens at most (default: source + 50)"
    )
    parser.add_argument(
        "--batch-size", type=int, default=BATCH_SIZE, metavar="N",
        help=f"sentences per batch (default {BATCH_SIZE})",
    )  # fmt: skip
    parser.add_argument(
        "--batch-tokens", type=int, default=BATCH_TOKENS, metavar="N",
        help=f"source tokens per batch at most, padding counted (default {BATCH_TOKENS:,}); "
        "0: no limit",
    )  # fmt: skip
    parser.add_argument(
        "--quantize",
        choices=("int8",),
        help="int8: int8 linear layers, their inputs quantised at each call (oneDNN's where "
        "the CPU has AMX, else PyTorch's dynamic layers; HEEDFUL_INT8=dynamic or onednn chooses)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, metavar="N",
        help="translate in N processes side by side, each with its share of the threads "
        "(CTranslate2's inter_threads; heedful.pool): faster on many sentences, above all int8; "
        "stdin is then read in chunks, not line by line (default 1)",
    )  # fmt: skip


def check_workers(args: argparse.Namespace) -> None:
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, not {args.workers}")


def decoding_options(args: argparse.Namespace) -> dict:
    """The shared options as ``DecodingOptions`` fields (``Translator.translate`` keywords)."""
    if args.beam < 1:
        raise ValueError(f"--beam must be at least 1, not {args.beam}")
    if args.batch_size < 1:
        raise ValueError(f"--batch-size must be at least 1, not {args.batch_size}")
    if args.batch_tokens < 0:
        raise ValueError(f"--batch-tokens must be 0 (no limit) or more, not {args.batch_tokens}")
    if args.coverage_penalty is not None and args.coverage_penalty < 0:
        raise ValueError(f"--coverage-penalty must be 0 (off) or more, not {args.coverage_penalty}")
    if args.max_length is not None and args.max_length < 1:
        raise ValueError(f"--max-length must be at least 1, not {args.max_length}")
    return dict(
        beam_size=args.beam,
        length_penalty=args.length_penalty,
        length_penalty_form=args.penalty_form,
        max_length=args.max_length,
        batch_size=args.batch_size,
        batch_tokens=args.batch_tokens or None,
        early_stopping=args.early_stopping,
        coverage_penalty=args.coverage_penalty,
    )


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("texts", nargs="*", metavar="TEXT", help="texts (default: read stdin)")
    add_decoding_arguments(parser)
    parser.add_argument(
        "-i", "--input", metavar="FILE", help="translate each line of FILE (-: stdin, the default)"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (default, or -: stdout)")
    parser.add_argument(
        "--n-best", type=int, default=1, metavar="N", help="translations per source (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per source")
    parser.add_argument(
        "--alignments", action="store_true", help="word links with each translation (below)"
    )
    parser.add_argument(
        "--format", choices=("text", "html"), default="text",
        help="html: each text (line) an HTML fragment, translated with its tags kept around the "
        "words they were around, by word alignment (heedful.markup)",
    )  # fmt: skip
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ALIGNMENT_HELP
    sampling = parser.add_argument_group(
        "sampling", "draw --beam K translations of each source instead of searching, and keep\n"
        "the --n-best of them by score (fairseq's --sampling)",
    )  # fmt: skip
    sampling.add_argument("--sample", action="store_true", help="sample instead of searching")
    sampling.add_argument(
        "--temperature", type=float, metavar="T", help="divide the logits by T (default 1.0)"
    )
    sampling.add_argument(
        "--top-k", type=int, metavar="K", help="draw from the K most probable tokens only"
    )
    sampling.add_argument(
        "--top-p", type=float, metavar="P", help="draw from the fewest tokens reaching P"
    )
    sampling.add_argument("--seed", type=int, help="the same seed draws the same translations")


def sampling_option(args: argparse.Namespace) -> Sampling | None:
    names = ("temperature", "top_k", "top_p", "seed")
    given = {name: getattr(args, name) for name in names if getattr(args, name) is not None}
    if given and not args.sample:
        raise ValueError(f"--{next(iter(given)).replace('_', '-')} needs --sample")
    return Sampling(**given) if args.sample else None


def run(args: argparse.Namespace) -> int:
    # "-" is standard input and output, as for most tools ("-o -" wrote a file named "-")
    args.input = None if args.input == "-" else args.input
    args.output = None if args.output == "-" else args.output
    fields = decoding_options(args)
    if not 1 <= args.n_best <= args.beam:
        raise ValueError(f"--n-best must be between 1 and --beam ({args.beam}), not {args.n_best}")
    options = DecodingOptions(**fields, n_best=args.n_best, sampling=sampling_option(args))
    if args.texts and args.input:
        raise ValueError("give texts or -i FILE, not both")
    if args.input and args.output and Path(args.input).resolve() == Path(args.output).resolve():
        raise ValueError(f"-o {args.output} is the input file: writing would erase it first")
    check_workers(args)
    if args.format == "html" and (args.n_best > 1 or args.alignments):
        raise ValueError("--format html gives one translation a text: no --n-best or --alignments")
    if args.workers > 1:  # the same calls, in processes of their own
        from heedful.pool import TranslatorPool

        translator = TranslatorPool(resolve_model(args.model), args.workers, quantize=args.quantize)
    else:
        translator = Translator.load(resolve_model(args.model), quantize=args.quantize)

    def translate(lines: list[str]) -> list[list[Translation]]:
        if args.format == "html":  # one translation a fragment: no score, n-best or links
            return [[Translation(html, 0.0, [])] for html in _html(translator, lines, options)]
        return translator.translate_n_best(lines, options=options, alignments=args.alignments)

    out: TextIO = sys.stdout
    if args.output:
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)  # as attend --png does
        out = open(args.output, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    writer = Writer(out, args.n_best, args.json, args.alignments)
    try:
        if args.texts:
            writer.write(args.texts, translate(args.texts))
        elif args.input:
            total = sum(1 for _ in _read_lines(args.input))  # checks every line, keeps none
            lines = (line for _, line in _read_lines(args.input))
            for chunk in _chunks(lines, total, 8 * args.batch_size * args.workers):
                writer.write(chunk, translate(chunk))
        elif args.workers > 1:  # stdin in chunks, as a file: the workers share each one
            for chunk in _chunks(stdin_lines(), None, 8 * args.batch_size * args.workers):
                writer.write(chunk, translate(chunk))
                out.flush()
        else:  # stdin, line by line: each answer is written as soon as its line arrives
            for line in stdin_lines():
                writer.write([line], translate([line]))
                out.flush()
    finally:
        if out is not sys.stdout:
            out.close()
        if args.workers > 1:
            translator.close()
    return 0


def stdin_lines():
    """Standard input's lines as ``-i`` reads a file: UTF-8 checked (a line that is not is one
    error naming the line and column), without a byte-order mark or the line's ``\r\n``."""
    raw_lines = getattr(sys.stdin, "buffer", None)
    if raw_lines is None:  # a text stream put in place of stdin (tests)
        raw_lines = (line.encode("utf-8") for line in sys.stdin)
    for number, raw in enumerate(raw_lines, 1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(
                f"stdin, line {number}: invalid UTF-8 (byte {raw[e.start]:#04x} at column "
                f"{e.start + 1}); re-encode it as UTF-8"
            ) from None
        if number == 1:
            line = line.removeprefix("\ufeff")
        yield line.removesuffix("\n").removesuffix("\r")


class Writer:
    """Plain lines; Moses n-best lines (``i ||| text ||| score``); or one JSON object a source;
    with ``alignments``, each translation's word links (``ALIGNMENT_HELP``)."""

    def __init__(self, out: TextIO, n_best: int, as_json: bool, alignments: bool = False):
        self.out, self.n_best, self.as_json, self.alignments = out, n_best, as_json, alignments
        self.index = 0  # of the next source, for n-best lines

    def write(self, sources: list[str], results: list[list[Translation]]) -> None:
        for source, options in zip(sources, results, strict=True):
            best = options[0]
            if self.as_json:
                record = {"source": source, **self._record(best)}
                if self.n_best > 1:
                    record["n_best"] = [self._record(o) for o in options]
                if best.warnings:  # "'We need to buy milk, eggs and bread.': may leave out 'eggs'"
                    record["warnings"] = best.warnings
                self.out.write(json.dumps(record, ensure_ascii=False) + "\n")
            elif self.n_best > 1:
                for o in options:
                    links = f" ||| {self._pharaoh(source, o)}" if self.alignments else ""
                    self.out.write(f"{self.index} ||| {o.text} ||| {o.score:.4f}{links}\n")
            elif self.alignments:
                self.out.write(f"{best.text} ||| {self._pharaoh(source, best)}\n")
            else:
                self.out.write(best.text + "\n")
            self.index += 1

    def _record(self, translation: Translation) -> dict:
        record = {"translation": translation.text, "score": translation.score}
        if self.alignments:
            record["alignment"] = [link.record() for link in translation.alignment or []]
        return record

    @staticmethod
    def _pharaoh(source: str, translation: Translation) -> str:
        from heedful.explain.alignment_spans import pharaoh

        return pharaoh(translation.alignment or [], source, translation.text)


def _html(translator, lines, options) -> list[str]:
    """--format html: each line an HTML fragment, translated with its tags kept."""
    if isinstance(translator, Translator):
        from heedful.markup import translate_html

        return translate_html(translator, lines, options)
    return translator.translate_html(lines, options)  # a TranslatorPool


def _read_lines(path: str) -> Iterator[tuple[int, str]]:
    from heedful.data.readers import read_lines

    return read_lines(path)


def _chunks(lines: Iterable[str], total: int | None, size: int) -> Iterator[list[str]]:
    """Chunks of lines read as they are needed; with a ``total``, a progress bar on stderr (stdin
    has none, as line by line)."""
    from tqdm import tqdm

    bar = tqdm(total=total, unit="sent", file=sys.stderr, leave=False, disable=total is None)
    lines = iter(lines)
    while chunk := list(islice(lines, size)):
        yield chunk
        bar.update(len(chunk))
    bar.close()
