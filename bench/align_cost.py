"""What word links with every translation cost: ``Translator.translate(..., alignments=True)``
against the same call without, on dev sentences or the long tail (issue 30: within 10%).

    python bench/align_cost.py                                   # both bundled models
    python bench/align_cost.py --model models/en-fr --sentences 1500 --rounds 6 --beam 4

Both calls run in one process, one thread, in turns (with first, then without first, and so on),
after a warm-up of each; the machine's speed drifts, so the figures are the fastest of each and
the median of the rounds' ratios. The first ``--sentences`` inputs of a workload of
``bench/decode.py --bundled`` (``bench/decode_workloads.py``: the dev split the model's
config.json names, or ``--workload long-tail``, with paragraphs and long sentences mixed in),
text in, text out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import decode_workloads  # noqa: E402

from heedful.bundled import model_dir  # noqa: E402
from heedful.translator import Translator  # noqa: E402


def measure(translator: Translator, sources: list[str], beam: int, rounds: int) -> dict:
    def timed(alignments: bool) -> float:
        start = time.perf_counter()
        translator.translate(sources, beam_size=beam, alignments=alignments)
        return time.perf_counter() - start

    timed(False), timed(True)  # warm-up
    seconds: dict[bool, list[float]] = {False: [], True: []}
    for r in range(rounds):
        for alignments in (True, False) if r % 2 else (False, True):
            seconds[alignments].append(timed(alignments))
    ratios = [w / wo for w, wo in zip(seconds[True], seconds[False], strict=True)]
    return {
        "without_s": seconds[False],
        "with_s": seconds[True],
        "fastest_cost": min(seconds[True]) / min(seconds[False]) - 1,
        "median_cost": statistics.median(ratios) - 1,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, action="append", help="(default: both bundled)")
    parser.add_argument("--workload", choices=decode_workloads.WORKLOADS, default="dev")
    parser.add_argument("--sentences", type=int, default=1500, help="0: all")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    models = args.model or [model_dir("es-en"), model_dir("en-fr")]
    found = {}
    for model in models:
        translator = Translator.load(model)
        sources, _ = decode_workloads.inputs(Path(model), args.workload, args.sentences)
        found[str(model)] = figures = measure(translator, sources, args.beam, args.rounds)
        method = translator.resolved_alignment()
        print(
            f"{model}: {len(sources)} {args.workload} inputs, beam {args.beam}, method "
            f"{method.describe()}; without "
            f"{min(figures['without_s']):.2f} s, with {min(figures['with_s']):.2f} s (fastest): "
            f"{figures['fastest_cost']:+.1%}; median of the rounds {figures['median_cost']:+.1%}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(found, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
