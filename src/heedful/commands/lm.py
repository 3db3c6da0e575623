"""`heedful lm`: train, sample and evaluate a decoder-only (GPT-style) language model.

heedful lm train --config configs/lm-tatoeba-en.yaml --out runs/lm [--set train.max_steps=200]
heedful lm train --resume runs/lm
heedful lm sample --model runs/lm --prompt "The black cat" --max-length 50 \\
    --temperature 0.8 --top-k 50 --top-p 0.95 --seed 1
heedful lm evaluate --model runs/lm --data ../shared/data/tatoeba/spa-eng/dev.tsv --column en

Training is `heedful train`'s loop with ``task: lm`` (the same BPE, batching, schedule, bf16,
checkpoints, exact resume and log). ``heedful attend --model runs/lm "..."`` shows the model's
self-attention.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from heedful.commands.shared import add_old_spelling


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from heedful.commands import train as train_command

    sub = parser.add_subparsers(dest="lm_command", metavar="ACTION", required=True)
    p = sub.add_parser("train", help="train from a YAML config (task: lm), or resume a run")
    train_command.add_arguments(p)
    p.set_defaults(_lm_run=run_train)

    p = sub.add_parser("sample", help="continue a prompt, printing tokens as they come")
    p.add_argument("--model", required=True, metavar="DIR", help="a language model directory")
    p.add_argument("--prompt", default="", help="the text to continue (default: nothing)")
    p.add_argument(
        "--max-length",
        type=int,
        default=50,
        metavar="N",
        help="at most N new tokens, end-of-sentence included (default 50)",
    )
    add_old_spelling(p, "--max-new-tokens", "--max-length", type=int)
    p.add_argument(
        "--temperature",
        type=float,
        default=1.0,
        metavar="T",
        help="divide the logits by T: below 1 sharper, above 1 flatter (default 1.0)",
    )
    p.add_argument(
        "--top-k",
        type=int,
        default=0,
        metavar="K",
        help="draw from the K most probable tokens only (default 0: all)",
    )
    p.add_argument(
        "--top-p",
        type=float,
        default=1.0,
        metavar="P",
        help="draw from the fewest tokens whose probability reaches P (default 1)",
    )
    p.add_argument("--seed", type=int, help="the same seed gives the same text")
    p.set_defaults(_lm_run=run_sample)

    p = sub.add_parser("evaluate", help="perplexity per token on a text or TSV file")
    p.add_argument("--model", required=True, metavar="DIR", help="a language model directory")
    p.add_argument(
        "--data",
        required=True,
        metavar="FILE",
        help="one text a line; or a .tsv file with --column",
    )
    p.add_argument(
        "--column",
        metavar="C",
        help="a TSV file's column: from 0, or the language the model was trained on "
        "(default: the model's training column)",
    )
    p.set_defaults(_lm_run=run_evaluate)


def run(args: argparse.Namespace) -> int:
    return args._lm_run(args)


def run_train(args: argparse.Namespace) -> int:
    from heedful.commands import train as train_command

    return train_command.run(args, task="lm")


def load_lm(model_dir: str):
    """(model, tokenizer, meta) of a language model directory; a translation model's is refused
    before it is loaded (``heedful.loading``)."""
    from heedful.loading import load_model

    return load_model(model_dir, task="lm")


def run_sample(args: argparse.Namespace) -> int:
    from heedful.generate import generate

    if args.max_length < 1:
        raise ValueError(f"--max-length must be at least 1, not {args.max_length}")
    model, tokenizer, _ = load_lm(args.model)

    def show(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    generate(
        model, tokenizer, args.prompt, max_new_tokens=args.max_length,
        temperature=args.temperature, top_k=args.top_k, top_p=args.top_p, seed=args.seed,
        on_text=show,
    )  # fmt: skip
    sys.stdout.write("\n")
    return 0


def run_evaluate(args: argparse.Namespace) -> int:
    from heedful.data import read_text
    from heedful.training.text import text_perplexity

    model, tokenizer, meta = load_lm(args.model)
    path = Path(args.data)
    column = None
    if path.name.endswith((".tsv", ".tsv.gz")):
        column = tsv_column(args.column, meta.get("data", {}), path)
        print(f"{path}: column {column}", file=sys.stderr)
    elif args.column is not None:
        raise ValueError(f"--column applies to .tsv files; {path} is read one text a line")
    result = text_perplexity(model, tokenizer, read_text(path, column))
    counts = result["counts"]
    skipped = [f"{n:,} {what}" for n, what in ((counts["empty"], "empty lines"),
               (counts["too_long"], "lines longer than the model's positions")) if n]  # fmt: skip
    print(
        f"perplexity {result['ppl']:.2f} per token (the model's BPE tokens, end-of-sentence "
        f"included; {result['nll']:.4f} nats per token) over {result['tokens']:,} tokens in "
        f"{result['lines']:,} lines" + (f"; skipped {', '.join(skipped)}" if skipped else "")
    )
    return 0


def tsv_column(given: str | None, data: dict, path: Path) -> int:
    """A TSV column from ``--column``: an index from 0, or the language the model was trained on
    (its training column); by default its training column."""
    trained, language = data.get("column"), data.get("language")
    if given is None or given == language:
        if trained is None:
            raise ValueError(f"{path} is a TSV file: give --column (from 0)")
        return trained
    if given.isdigit():
        return int(given)
    known = f"its training column is {trained} ({language})" if trained is not None else "none"
    raise ValueError(
        f"--column {given}: not a column number, and not the model's language ({known}); "
        "give the column number, from 0"
    )
