"""`heedful align`: word alignments from cross-attention, in Pharaoh format (``i-j``).

heedful align --model DIR "El gato negro duerme."                 translate, then align
heedful align --model DIR --source src.txt --target tgt.txt       align given pairs
heedful align --model DIR --source src.txt --target tgt.txt --gold gold.txt

Each target word is linked to the source word its cross-attention weighs most, in one layer
averaged over its heads: ``--layer L`` (from 1), by default the one before last (Garg et al.,
2019), or, with ``--gold``, the layer with the lowest alignment error rate on the gold set (every
layer's AER is reported on stderr). Words are whitespace-separated words of the text, counted from
0; gold lines use ``i-j`` for sure links and ``i?j`` or ``ipj`` for possible ones.

Output: one line per pair; when the command translates (no --target), the translation comes
first: ``translation ||| 0-0 1-2 ...``.
"""

from __future__ import annotations

import argparse
import sys

from heedful.bundled import resolve_model


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
    parser.add_argument("--layer", type=int, metavar="L", help="layer, from 1; -1 is the last")
    parser.add_argument("--beam", type=int, default=4, metavar="N", help="beam size (default 4)")


def run(args: argparse.Namespace) -> int:
    from heedful.data.readers import read_lines
    from heedful.explain.align import (
        aer,
        align,
        best_layer,
        format_links,
        penultimate,
        read_gold,
    )
    from heedful.explain.views import resolve
    from heedful.explain.words import to_words
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
    gold = None
    if args.gold:
        if targets is None:
            raise ValueError("--gold needs --target: gold links refer to given translations")
        gold = read_gold(args.gold)
        if len(gold) != len(sources):
            raise ValueError(
                f"{args.gold} has {len(gold)} lines but there are {len(sources)} pairs"
            )

    translator = Translator.load(resolve_model(args.model))
    words = []
    for k, (number, source) in enumerate(lines):
        target = None if targets is None else targets[k]
        try:
            words.append(to_words(translator.attend(source, target, beam_size=args.beam)))
        except ValueError as e:  # e.g. an empty line, or one the model cannot read
            if args.source is None:
                raise
            raise ValueError(f"{args.source}, line {number}: {e}") from None
    n_layers = translator.config.n_decoder_layers
    layer = resolve(args.layer, n_layers, "layer")
    if gold is not None:
        best, scores = best_layer(words, gold)
        for k, score in enumerate(scores):
            mark = "  <- best" if k == best else ""
            print(f"layer {k + 1}: AER {score:.4f}{mark}", file=sys.stderr)
        if layer is None:
            layer = best
        else:
            chosen = aer([align(w, layer) for w in words], gold)
            print(f"using layer {layer + 1}: AER {chosen:.4f}", file=sys.stderr)
    if layer is None:
        layer = penultimate(n_layers)
    for w in words:
        links = format_links(align(w, layer))
        print(links if targets is not None else f"{w.translation} ||| {links}")
    return 0
