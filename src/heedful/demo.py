"""`make demo`: the first thing a new user runs.

Until the bundled translation models exist, it trains the ``tiny`` preset to reverse random
sequences (about 30 seconds on a CPU), translates a few, and shows one cross-attention table: each
output symbol should attend to its mirror image in the input.
"""

from __future__ import annotations

import argparse
import string
import time

import torch

from heedful.attended import Attended
from heedful.explain.tables import format_table
from heedful.explain.views import views
from heedful.toy import FIRST_SYMBOL, ToyTask, greedy_decode, token_accuracy, train_toy

LETTERS = string.ascii_lowercase


def symbols(ids: list[int]) -> list[str]:
    return [LETTERS[i - FIRST_SYMBOL] for i in ids]


def toy_attended(model, task: ToyTask, seq: list[int]) -> Attended:
    """Translate one sequence greedily, then force-decode the output to read every weight."""
    src, _, _ = task.batch([seq])
    output = greedy_decode(model, src, task.max_length + 2)[0]
    tgt_in = torch.tensor([[model.config.start_id] + output])
    with torch.no_grad():
        attention = model(src, tgt_in, return_attention=True).attention
    return Attended(
        source=" ".join(symbols(seq)),
        translation=" ".join(symbols(output)),
        source_pieces=symbols(seq) + ["</s>"],
        target_pieces=symbols(output) + ["</s>"],
        encoder_self=attention.encoder_self[:, 0],
        decoder_self=attention.decoder_self[:, 0],
        cross=attention.cross[:, 0],
    )


def toy_demo(steps: int) -> None:
    task = ToyTask(kind="reverse")
    print(f"Training the tiny preset to reverse random sequences ({steps} steps, ~30 s)...")
    start = time.monotonic()
    model = train_toy(task, steps=steps, log=lambda line: print("  " + line))
    accuracy = token_accuracy(model, task)
    print(
        f"trained in {time.monotonic() - start:.0f} s; "
        f"greedy token accuracy on fresh sequences: {accuracy:.1%}\n"
    )
    examples = task.sample(4, torch.Generator().manual_seed(7))
    for seq in examples:
        attended = toy_attended(model, task, seq)
        print(f"  {attended.source:<22} ->  {attended.translation}")
    attended = toy_attended(model, task, examples[0])
    cross = views(attended)["cross"]
    print(f"\nWhere each output symbol looked in the input ({attended.source}):\n")
    print(format_table(cross, layer=cross.n_layers - 1, head=None, top=2))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="heedful's demo")
    parser.add_argument("--steps", type=int, default=700, help="toy training steps")
    args = parser.parse_args(argv)
    toy_demo(args.steps)


if __name__ == "__main__":
    main()
