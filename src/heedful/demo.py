"""`make demo`: the first thing a new user runs.

With the bundled models (models/es-en, models/en-fr) it translates the examples of the explainer
this project starts from, prints where each word of the translation looked (cross-attention, in
the explainer's table form), shows the encoder's heads on "A fire-breathing dragon lives in my
garage.", and writes heatmaps and interactive pages into demo-output/.

Without them it trains the ``tiny`` preset to reverse random sequences (about 30 seconds on a
CPU), translates a few, and shows one cross-attention table: each output symbol should attend to
its mirror image in the input.
"""

from __future__ import annotations

import argparse
import string
import time
from pathlib import Path

import torch

from heedful.attended import Attended
from heedful.bundled import MODELS
from heedful.explain.tables import format_table
from heedful.explain.views import views
from heedful.toy import FIRST_SYMBOL, ToyTask, greedy_decode, token_accuracy, train_toy

LETTERS = string.ascii_lowercase

# The explainer's examples (../shared/attention-explainer.txt): (model, source sentences).
TRANSLATIONS = [
    ("es-en", ["El gato negro duerme en el jardín."]),
    ("en-fr", ["The red car", "How are you?"]),
]
DRAGON = ("en-fr", "A fire-breathing dragon lives in my garage.")


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


def sharpest_layer(view) -> int:
    """The layer whose head-averaged weights are most peaked (mean of each row's maximum): for
    cross-attention, the layer that reads most like a word alignment."""
    confidence = view.weights.float().mean(1).amax(-1).mean(-1)  # [L]
    return int(confidence.argmax())


def bundled_demo(models: Path, out: Path, beam_size: int = 4) -> None:
    from heedful.explain.heatmaps import save_grid, save_map
    from heedful.explain.page import save_page
    from heedful.explain.tables import format_table
    from heedful.explain.words import to_words
    from heedful.translator import Translator

    out.mkdir(parents=True, exist_ok=True)
    translators = {name: Translator.load(models / name) for name in ("es-en", "en-fr")}
    written = []
    for name, sentences in TRANSLATIONS:
        for i, sentence in enumerate(sentences):
            attended = translators[name].attend(sentence, beam_size=beam_size)
            words = to_words(attended)
            cross = views(words)["cross"]
            layer = sharpest_layer(cross)
            print(f"\n[{name}] {sentence}\n   -> {attended.translation}\n")
            print(format_table(cross, layer=layer, head=None, top=2))
            stem = f"{name}-{i + 1}"
            written.append(save_map(cross, out / f"{stem}-cross.png", layer=layer))
            written.append(save_page(attended, out / f"{stem}.html"))
    name, sentence = DRAGON
    attended = translators[name].attend(sentence, beam_size=beam_size)
    encoder = views(to_words(attended))["encoder"]
    layer = encoder.n_layers - 1
    print(f"\n[{name}] {sentence}\n   -> {attended.translation}")
    print(f"\nThe encoder's heads, one by one (layer {layer + 1}):")
    for head in range(encoder.n_heads):
        print()
        print(format_table(encoder, layer=layer, head=head, top=2))
    written.append(save_grid(encoder, out / "dragon-encoder-heads.png"))
    written.append(save_page(attended, out / "dragon.html"))
    print("\nWritten:")
    for path in written:
        print(f"  {path}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="heedful's demo")
    parser.add_argument("--models", type=Path, default=MODELS, help="bundled models' folder")
    parser.add_argument("--out", type=Path, default=Path("demo-output"))
    parser.add_argument("--steps", type=int, default=700, help="toy training steps")
    parser.add_argument("--toy", action="store_true", help="the toy demo even if models exist")
    args = parser.parse_args(argv)
    if not args.toy and all((args.models / name / "config.json").is_file()
                            for name in ("es-en", "en-fr")):  # fmt: skip
        bundled_demo(args.models, args.out)
    else:
        toy_demo(args.steps)


if __name__ == "__main__":
    main()
