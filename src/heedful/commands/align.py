"""`heedful align`: word alignments from a translation model, in Pharaoh format (``i-j``).

heedful align --model DIR "El gato negro duerme."                 translate, then align
heedful align --model DIR --source src.txt --target tgt.txt       align given pairs
heedful align --model DIR --source src.txt --target tgt.txt --gold gold.txt [--gold-base 1]
heedful align --model DIR --source dev.src --target dev.tgt --gold dev.gold --choose
heedful align --model DIR --source train.src --target train.tgt --write-linked

By default the method the model directory records (config.json, "alignment"), else the default:
cross-attention of the layer before last, averaged over its heads, at the step predicting each
target token (Garg et al., 2019). ``--method``, ``--layer``, ``--heads``, ``--normalize``,
``--links``, ``--spelling``, ``--linked``, ``--blend`` and ``--confidence`` change one part of it
(heedful.explain.alignment_methods). With ``--gold`` the alignment error rate is reported on
stderr, for every layer of an attention method, and the layer with the lowest is used unless
``--layer`` is given. ``--choose`` tries every method on the gold set, prints each one's AER and
records the best in the model directory: choose on development data only. ``--write-linked``
counts the links the model finds itself over the pairs given (its training pairs) into the
model directory's table of linked words (heedful.explain.linked_words), which ``--linked``
weighs: by the recorded method's attention alone (no table, spelling, blend or confidence),
unless the options say otherwise.

Words are the whitespace-separated words of the texts, counted from 0. Output: one line per
pair; when the command translates (no --target), it translates as ``heedful translate
--alignments`` does (casing, numbers, dates and names kept from the model) and the translation
comes first: ``translation ||| 0-0 1-2 ...``.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from heedful.bundled import resolve_model

GOLD_HELP = """gold alignments (--gold FILE): one line per sentence pair, links separated by spaces:
  i-j  a sure link, i?j or ipj  a possible one; i a source word, j a target word,
  words split at whitespace and counted from --gold-base (0 or 1; the Hansards gold of
  Och and Ney counts from 1). A link that is malformed or points past its sentence's words
  is refused with the file and line. AER = 1 - (|A∩S| + |A∩P|) / (|A| + |S|), S the sure
  links, P the possible ones (sure links count as possible)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = GOLD_HELP
    parser.add_argument("text", nargs="?", help="one sentence (or use --source FILE)")
    parser.add_argument(
        "--model", metavar="DIR", help="a translation model (default: the bundled models/es-en)"
    )
    parser.add_argument("--source", metavar="FILE", help="source sentences, one a line")
    parser.add_argument(
        "--target",
        metavar="TEXT|FILE",
        help="the translation to align to (with --source: a FILE of them, one a line)",
    )
    parser.add_argument("--gold", metavar="FILE", help="gold alignments: report AER, pick layer")
    parser.add_argument(
        "--gold-base", type=int, choices=(0, 1), default=0, help="gold indices count from (0)"
    )
    parser.add_argument(
        "--choose",
        action="store_true",
        help="with --gold: try every method, record the best in the model's config.json",
    )
    parser.add_argument(
        "--write-linked",
        action="store_true",
        help="with --source, --target (the model's training pairs): count the links the model "
        "finds itself into the model's linked-words.tsv",
    )
    parser.add_argument(
        "--method",
        choices=("predict", "shift", "full", "erase"),
        help="attention at the step predicting the word, at the step reading it, at that step "
        "in a pass reading the whole target, or erasure",
    )
    parser.add_argument("--layer", type=int, metavar="L", help="layer, from 1; -1 is the last")
    parser.add_argument("--heads", metavar="H,H|all", help="heads to average, from 1 (or all)")
    parser.add_argument(
        "--normalize", choices=("target", "source"), help="per target word (as is) or source word"
    )
    parser.add_argument(
        "--links",
        choices=("argmax", "intersection", "grow-diag-final-and"),
        help="one per target word, or both directions: the links they agree on, or grown",
    )
    parser.add_argument(
        "--spelling", type=float, metavar="W",
        help="weight of how alike two words are spelt, added to the model's scores (0: none; "
        "then no longer the model alone)",
    )  # fmt: skip
    parser.add_argument(
        "--linked", type=float, metavar="W",
        help="weight of how often two words were linked in the training pairs (the model "
        "directory's linked-words.tsv: eflomal's links, or the model's own with "
        "--write-linked; 0: none)",
    )  # fmt: skip
    parser.add_argument(
        "--blend", type=float, metavar="W",
        help="weight (0 to below 1) of a second reading multiplied in: predict, all heads of "
        "--blend-layer (default: the last)",
    )  # fmt: skip
    parser.add_argument("--blend-layer", type=int, metavar="L", help="its layer, from 1")
    parser.add_argument(
        "--confidence", type=float, metavar="C",
        help="keep only links holding this share (0 to below 1) or more of their target word's "
        "scores (0: every link)",
    )  # fmt: skip
    parser.add_argument(
        "--beam", type=int, default=4, metavar="K", help="beam size (default 4); 1 is greedy"
    )


def run(args: argparse.Namespace) -> int:
    from heedful.data.readers import read_lines
    from heedful.explain.align import format_links, read_gold, word_counts
    from heedful.explain.alignment_choice import links_of
    from heedful.explain.alignment_methods import read_method
    from heedful.translator import Translator

    if (args.text is None) == (args.source is None):
        raise ValueError("give one sentence or --source FILE (not both)")
    lines = [(0, args.text)] if args.text is not None else list(read_lines(args.source))
    sources = [text for _, text in lines]
    targets = None
    if args.target is not None:
        targets = [t for _, t in read_lines(args.target)] if args.source else [args.target]
        if len(targets) != len(sources):
            raise ValueError(
                f"{args.target} has {len(targets)} lines but {args.source} has {len(sources)}"
            )
    if args.write_linked and (targets is None or args.gold or args.choose):
        raise ValueError(
            "--write-linked needs --source and --target (the model's training pairs), and "
            "neither --gold nor --choose"
        )
    if args.choose and not args.gold:
        raise ValueError("--choose needs --gold (and --source, --target): it chooses on gold links")
    for name in ("spelling", "linked"):
        if getattr(args, name) is not None and getattr(args, name) < 0:
            raise ValueError(f"--{name} must be 0 or more, not {getattr(args, name)}")
    given = (args.layer, args.heads, args.normalize, args.links, args.spelling, args.linked,
             args.blend, args.blend_layer, args.confidence)  # fmt: skip
    if args.choose and given != (None,) * len(given):
        raise ValueError(
            "--choose chooses the layer, heads, normalization, links, spelling, linked, blend and "
            "confidence itself"
        )
    gold = None
    if args.gold:
        if targets is None:
            raise ValueError("--gold needs --target: gold links refer to given translations")
        gold = read_gold(args.gold, base=args.gold_base, sizes=word_counts(sources, targets))

    model_dir = resolve_model(args.model)
    translator = Translator.load(model_dir)
    if args.choose:
        methods = [args.method] if args.method else ["predict", "shift", "full", "erase"]
        pairs = _pairs(translator, lines, targets, args, methods=methods)
        _check_words(pairs, targets, args)
        method = _choose(pairs, gold, methods, args, model_dir)
    elif args.write_linked:
        return _write_linked(translator, model_dir, sources, targets, args)
    else:
        method = _method(read_method(model_dir), args, translator.config)
        if targets is None:  # translate, as translate does: links on the texts printed
            return _translate_and_align(translator, lines, method, args)
        pairs = _pairs(translator, lines, targets, args, methods=[method.method])
        if gold is not None:
            _check_words(pairs, targets, args)
            method = _report(pairs, gold, method, choose_layer=args.layer is None)
    for pair in pairs:
        print(format_links(links_of(pair, method)))
    return 0


def _translate_and_align(translator, lines, method, args) -> int:
    """Each line's translation (``Translator.translate``: casing, placeholders, sentences) and
    its links by ``method``, counted in the whitespace words of the line and the translation;
    a line the model cannot translate (empty, or only characters outside its vocabulary) is
    refused with its file and line."""
    from heedful.explain.alignment_spans import pharaoh

    for number, source in lines:
        problem = None
        if not source.strip():
            problem = "the source is empty"
        elif not translator._knows_some_of(translator.tokenizer.encode(source)):
            problem = f"{source[:40]!r} holds only characters outside the model's vocabulary"
        if problem is not None:
            raise ValueError(
                problem if args.source is None else f"{args.source}, line {number}: {problem}"
            )
    translator.alignment_method = method
    sources = [source for _, source in lines]
    found = translator.translate(sources, beam_size=args.beam, alignments=True)
    for source, done in zip(sources, found, strict=True):
        print(f"{done.text} ||| {pharaoh(done.alignment or [], source, done.text)}")
    return 0


def _write_linked(translator, model_dir, sources, targets, args) -> int:
    """``--write-linked``: the table of the model's own links over the pairs (by the recorded
    method's attention alone, unless the options say otherwise), written into the model
    directory with a first line saying how it was made."""
    from heedful.explain.alignment_choice import own_linked_words
    from heedful.explain.alignment_methods import read_method
    from heedful.explain.linked_words import FILE

    from .shared import progress_bar

    method = _method(read_method(model_dir).attention_alone(), args, translator.config)
    with progress_bar(len(sources), "pair", quiet=False, desc="aligning") as bar:
        table, left_out = own_linked_words(
            translator, sources, targets, method, Path(args.source).name, bar=bar
        )
    table.write(model_dir)
    print(
        f"wrote {model_dir / FILE}: {len(table.dice):,} word pairs from "
        f"{len(sources) - left_out:,} pairs"
        + (f" ({left_out:,} left out: their pieces split other words)" if left_out else ""),
        file=sys.stderr,
    )
    return 0


def _method(recorded, args, config):
    """The recorded method with the command line's changes, its layer resolved."""
    from heedful.explain.alignment_methods import AlignmentMethod
    from heedful.explain.views import resolve

    method = recorded
    if args.method is not None and args.method != method.method:
        keep = {"links": method.links, "spelling": method.spelling, "linked": method.linked}
        if "erase" not in (args.method, method.method):
            keep |= {"layer": method.layer, "heads": method.heads, "normalize": method.normalize,
                     "blend": method.blend, "blend_layer": method.blend_layer}  # fmt: skip
        method = AlignmentMethod(args.method, **keep)
    changes = {}
    if args.layer is not None:
        changes["layer"] = resolve(args.layer, config.n_decoder_layers, "layer")
    if args.heads is not None:
        changes["heads"] = _heads(args.heads, config.n_heads)
    if args.normalize is not None:
        changes["normalize"] = args.normalize
    if args.links is not None:
        changes["links"] = args.links
    if args.spelling is not None:
        changes["spelling"] = args.spelling
    if args.linked is not None:
        changes["linked"] = args.linked
    if args.blend is not None:
        changes["blend"] = args.blend
    if args.blend_layer is not None:
        changes["blend_layer"] = resolve(args.blend_layer, config.n_decoder_layers, "layer")
    if args.confidence is not None:
        changes["confidence"] = args.confidence
    if changes:
        method = replace(method, chosen_on=None, aer=None, **changes)
    return method.resolve(config.n_decoder_layers, config.n_heads)


def _heads(given: str, n_heads: int) -> tuple[int, ...] | None:
    """'1,3' -> (0, 2); 'all' -> None."""
    if given.strip() == "all":
        return None
    try:
        numbers = [int(h) for h in given.split(",")]
    except ValueError:
        raise ValueError(
            f"--heads takes head numbers from 1 separated by commas, or all, not {given!r}"
        ) from None
    if not numbers or not all(1 <= h <= n_heads for h in numbers):
        raise ValueError(f"--heads {given}: the model has heads 1..{n_heads}")
    return tuple(sorted({h - 1 for h in numbers}))


def _pairs(translator, lines, targets, args, *, methods: list[str]):
    """Each line's attention (its target forced, or its translation found; with the full
    method's pass if ``methods`` hold it) and, for the erase method, its erasure scores."""
    from heedful.explain.alignment_choice import Pair, linked_of
    from heedful.explain.erasure import erase_pair

    pairs = []
    for k, (number, source) in enumerate(lines):
        target = None if targets is None else targets[k]
        try:
            attended = translator.attend(
                source, target, beam_size=args.beam, full_context="full" in methods
            )
            erased = None
            if "erase" in methods:
                erased = erase_pair(
                    translator, source, attended.translation if target is None else target
                )
        except ValueError as e:  # e.g. an empty line, or one the model cannot read
            if args.source is None:
                raise
            raise ValueError(f"{args.source}, line {number}: {e}") from None
        pairs.append(Pair(attended, erased, linked_of(translator, attended)))
    return pairs


def _check_words(pairs, targets, args) -> None:
    """Gold links count whitespace words: the model's words must be the same."""
    from heedful.explain.alignment_methods import source_words, target_words

    for k, (pair, target) in enumerate(zip(pairs, targets, strict=True)):
        a = pair.attended
        seen = (len(source_words(a.source_pieces)), len(target_words(a.target_pieces)))
        given = (len(a.source.split()), len(target.split()))
        if seen != given:
            where = f"{args.source}, line {k + 1}" if args.source else "the pair"
            raise ValueError(
                f"{where}: the model reads {seen[0]} source and {seen[1]} target words where the "
                f"text has {given[0]} and {given[1]}, so gold links cannot be compared"
            )


def _report(pairs, gold, method, *, choose_layer: bool):
    """AER on stderr: every layer's (an attention method without --layer: the best is used),
    then the method's."""
    from heedful.explain.alignment_choice import evaluate

    if method.method != "erase":
        n_layers = pairs[0].attended.cross.shape[0]
        scores = [evaluate(pairs, gold, replace(method, layer=k)) for k in range(n_layers)]
        best = min(range(n_layers), key=scores.__getitem__)
        for k, score in enumerate(scores):
            mark = "  <- best" if k == best else ""
            print(f"layer {k + 1}: AER {score:.4f}{mark}", file=sys.stderr)
        if choose_layer:
            method = replace(method, layer=best)
    score = evaluate(pairs, gold, method)
    where = "" if method.method == "erase" else f" layer {method.layer + 1}:"
    print(f"using{where} AER {score:.4f} ({method.describe()})", file=sys.stderr)
    return method


def _choose(pairs, gold, methods, args, model_dir):
    """Every candidate's AER on stderr; the best recorded in the model directory."""
    from heedful.explain.alignment_choice import choose
    from heedful.explain.alignment_methods import write_method

    best, tried = choose(pairs, gold, chosen_on=args.gold, methods=methods)
    for candidate in tried:
        print(f"AER {candidate.aer:.4f}  {candidate.describe()}", file=sys.stderr)
    best = replace(best, aer=round(best.aer, 4))
    write_method(model_dir, best)
    print(
        f"chosen: {best.describe()}, AER {best.aer:.4f}; recorded in {model_dir}", file=sys.stderr
    )
    return best
