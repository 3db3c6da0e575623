"""`heedful attend`: translate a sentence and show where the attention went.

heedful attend --model DIR "El gato negro duerme en el jardín."
heedful attend --model DIR --kind encoder --layer 2 --head 3 --top-words 2 "..."
heedful attend --model DIR --target "The black cat sleeps." --png map.png --html page.html "..."

Prints the translation, then a table in the explainer's form (``black → negro (0.81), gato
(0.12)``) of one kind of attention: by default cross-attention (decoder self-attention for a
language model), in the last layer, averaged over its heads (the last layer is the one whose
output the prediction reads; ``--head`` picks one head). Layers and heads count from 1, and a
negative layer counts from the end. Words are whitespace-separated words of the text; ``--pieces``
shows subword pieces instead. With a language model the text itself is what the model reads.
"""

from __future__ import annotations

import argparse
import json
import sys

from heedful.bundled import resolve_model
from heedful.commands.shared import add_old_spelling
from heedful.devices import add_device_argument, pick_device

KINDS = ("cross", "encoder", "decoder")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("text", nargs="?", help="the sentence (default: the first line of stdin)")
    parser.add_argument(
        "--model", metavar="DIR", help="a model directory (default: the bundled models/es-en)"
    )
    parser.add_argument(
        "--kind",
        choices=KINDS,
        help="cross-attention, encoder or decoder self-attention (default: cross; decoder for "
        "a language model)",
    )
    parser.add_argument(
        "--layer", type=int, metavar="L", help="layer, from 1; -1 is the last (default)"
    )
    parser.add_argument(
        "--head", type=int, metavar="H", help="head, from 1 (default: the mean of the heads)"
    )
    parser.add_argument(
        "--top-words", type=int, default=3, metavar="K", help="words shown per row (default 3)"
    )
    add_old_spelling(parser, "--top", "--top-words", type=int)
    parser.add_argument("--json", action="store_true", help="print JSON instead of the table")
    parser.add_argument("--pieces", action="store_true", help="subword pieces instead of words")
    parser.add_argument("--png", metavar="FILE", help="write the table's heatmap as a PNG")
    parser.add_argument(
        "--grid", metavar="FILE", help="write every layer x head heatmap of the kind as a PNG"
    )
    parser.add_argument(
        "--html", metavar="FILE", help="write an interactive page of every layer and head"
    )
    parser.add_argument(
        "--beam", type=int, default=4, metavar="K", help="beam size (default 4); 1 is greedy"
    )
    parser.add_argument("--target", help="force this translation instead of searching for one")
    add_device_argument(parser)


def run(args: argparse.Namespace) -> int:
    from heedful.explain.attender import attender
    from heedful.explain.heatmaps import save_grid, save_map
    from heedful.explain.page import save_page
    from heedful.explain.tables import format_table, table_json
    from heedful.explain.views import TITLES, default_kind, resolve, views
    from heedful.explain.words import to_words

    text = args.text if args.text is not None else sys.stdin.readline().rstrip("\n")
    if not text.strip():
        raise ValueError("give a sentence to attend to (as an argument or on stdin)")
    if args.top_words < 1:
        raise ValueError(f"--top-words must be at least 1, not {args.top_words}")
    attend = attender(resolve_model(args.model), device=pick_device(args.device))
    attended = attend(text, args.target, beam_size=args.beam)
    shown = attended if args.pieces else to_words(attended)
    available = views(shown)
    kind = args.kind or default_kind(attended)
    if kind not in available:
        have = ", ".join(available)
        raise ValueError(f"this model has no {TITLES[kind]} (it has: {have})")
    view = available[kind]
    layer = resolve(args.layer, view.n_layers, "layer")
    layer = view.n_layers - 1 if layer is None else layer
    head = resolve(args.head, view.n_heads, "head")

    if args.json:
        out = {
            "source": attended.source,
            "translation": attended.translation,
            "score": attended.score,
            "level": "pieces" if args.pieces else "words",
            **table_json(view, layer, head, args.top_words),
        }
        print(json.dumps(out, ensure_ascii=False, indent=2))
    else:
        print(attended.translation)
        print()
        print(format_table(view, layer, head, args.top_words))
    if args.png:
        say(f"wrote {save_map(view, args.png, layer, head)}")
    if args.grid:
        say(f"wrote {save_grid(view, args.grid)}")
    if args.html:
        say(f"wrote {save_page(attended, args.html, kind=kind, layer=layer, head=head)}")
    return 0


def say(message: str) -> None:
    print(message, file=sys.stderr)
