"""Turn a training run into a bundled model: pick the best candidate on dev, save it in bf16,
write its model card.

    python scripts/bundle_model.py RUN_DIR models/es-en --command "heedful train ..." \
        --config configs/tatoeba-es-en.yaml --wall "75 min"

Candidates: the run's best checkpoint (by greedy dev BLEU during training), the averages of its
last 4 saves and of all the saves it kept (paper §6.1), and its latest state. Each is scored
with `heedful evaluate` (beam 4, the whole dev split, detokenised sacreBLEU); the best BLEU wins.
An existing bundled model is replaced only if the new one scores higher, or, with
``--max-drop X``, no more than X BLEU lower (a model fine-tuned for real input may trade a
little clean BLEU for robustness; issue 29 allows 0.5). ``--card-extra FILE`` appends a markdown
file (e.g. the robustness and alignment tables) to the card.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

from heedful.checkpoint import load_model_dir, read_json, save_model_dir
from heedful.explain.linked_words import LinkedWords
from heedful.lexicon import Lexicon
from heedful.training.average import average_model_dirs

CREDIT = {
    "tatoeba": (
        "Tatoeba (tatoeba.org), pairs via www.manythings.org/anki. Licence: CC BY 2.0 FR "
        "(see ../shared/data/tatoeba/*/ABOUT.txt). The weights are derived from this data."
    ),
}


def evaluate(model_dir: Path, dev: Path, beam: int, limit: int | None = None,
             coverage_penalty: float | None = None) -> dict:  # fmt: skip
    """``heedful evaluate``'s scores; ``coverage_penalty`` None: the directory's own."""
    extra = [] if limit is None else ["--limit", str(limit)]
    if coverage_penalty is not None:
        extra += ["--coverage-penalty", str(coverage_penalty)]
    out = subprocess.run(
        [sys.executable, "-m", "heedful", "evaluate", "--model", str(model_dir),
         "--data", str(dev), "--beam", str(beam), "--json", *extra],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout)


def candidates(run: Path, work: Path) -> dict[str, Path]:
    found = {}
    if (run / "best" / "config.json").is_file():
        found["best"] = run / "best"
    saves = sorted((run / "checkpoints").glob("step-*"), key=lambda p: int(p.name.split("-")[1]))
    for n in sorted({4, len(saves)}):  # the last 4 saves, and all that were kept
        if 2 <= n <= len(saves):
            last = saves[-n:]
            average_model_dirs(last, work / f"average-{n}")
            found[f"average of {', '.join(p.name for p in last)}"] = work / f"average-{n}"
    found["latest"] = run
    return found


def model_card(name: str, meta: dict, scores: dict, args, run: Path, params: int, pick: str) -> str:
    data = meta.get("data", {})
    config = read_json(run / "train_config.json")
    log = [json.loads(line) for line in (run / "log.jsonl").read_text().splitlines()]
    steps = max((r["step"] for r in log if "step" in r), default=0)
    src, tgt = data.get("src", "?"), data.get("tgt", "?")
    m = meta["model"]
    shape = (
        f"d_model {m['d_model']}, {m['n_encoder_layers']}+{m['n_decoder_layers']} layers, "
        f"{m['n_heads']} heads, d_ff {m['d_ff']}, "
        f"{'pre-LN' if m['norm_first'] else 'post-LN'}, shared embeddings ({m['share_embeddings']})"
    )
    start = config["train"].get("init_from")
    origin = (
        f"fine-tuned with heedful from `{Path(start).name}` (the model bundled before; its card"
        " is in the git history) on Tatoeba pairs"
        if start
        else "trained from scratch with heedful on Tatoeba pairs"
    )
    return f"""# heedful {name}: {src} → {tgt}

A Transformer (Vaswani et al., 2017) {origin}.

| | |
| --- | --- |
| architecture | {shape} |
| parameters | {params:,} |
| vocabulary | one joint sentencepiece BPE of {m["src_vocab_size"]:,} pieces |
| weights | bf16 safetensors (computed in fp32 when loaded) |
| training steps | {steps:,} (batches of ≤ {config["train"]["batch_tokens"]:,} tokens) |
| checkpoint | {pick} |
| hardware | {args.hardware} |
| wall time | {args.wall} |

## Dev scores

`heedful evaluate` with beam 4 and the paper's length penalty (GNMT form, α = 0.6), maximum
length source + 50, on the dev split ({data["dev"]}, {scores["sentences"]:,} sentences),
detokenised sacreBLEU, measured on the bf16 weights as shipped:

| metric | score |
| --- | ---: |
| BLEU | {scores["bleu"]:.1f} |
| chrF | {scores["chrf"]:.1f} |

```
BLEU {scores["signature"]["bleu"]}
chrF {scores["signature"]["chrf"]}
```

Candidates from the same run, scored the same way before conversion to bf16:
{", ".join(f"{k}: {v:.2f} BLEU" for k, v in args.all_scores.items())}.

## How it was made

```sh
{args.command}
python scripts/bundle_model.py {run} models/{name} ...
```

The run's configuration as recorded in its `train_config.json` (`{args.config}` with the
command's `--set` overrides):

```json
{json.dumps(config, indent=2)}
```

## Data and credit

{CREDIT["tatoeba"]}

Text is normalised (NFKC; every kind of space, including the narrow no-break spaces the French side
puts before `? ! : ;`, becomes one plain space) at training and translation time alike; dev
references are read the same way.

{args.card_extra}
## Known limits

{args.limits}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--command", required=True, help="the training command, for the card")
    parser.add_argument("--config", required=True, help="the config file the run started from")
    parser.add_argument("--wall", required=True, help="training wall time, for the card")
    parser.add_argument("--hardware", default="2 cores of an AMD Zen 4 CPU, shared with other work")
    parser.add_argument("--limits", default="")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--limit", type=int, help="only the first N dev pairs (dry runs)")
    parser.add_argument("--only-best", action="store_true", help="score only the best checkpoint")
    parser.add_argument(
        "--max-drop",
        type=float,
        default=0.0,
        help="replace an existing model scoring up to this much BLEU higher",
    )
    parser.add_argument("--card-extra", type=Path, help="markdown appended to the card")
    parser.add_argument(
        "--coverage-penalty", type=float, default=0.1,
        help="the model's default coverage penalty, config.json generation.coverage_penalty "
        "(heedful.coverage; 0.1 chosen on the bundled models' dev splits)",
    )  # fmt: skip
    args = parser.parse_args()

    train_config = read_json(args.run / "train_config.json")
    data = train_config["data"]
    dev = (Path(__file__).resolve().parents[1] / data["root"] / data["dev"]).resolve()
    with tempfile.TemporaryDirectory() as work:
        scored = {}
        found = candidates(args.run, Path(work))
        if args.only_best:
            found = {"best": found["best"]}
        for label, path in found.items():
            # as the bundle will decode: with its coverage penalty
            found_scores = evaluate(path, dev, args.beam, args.limit, args.coverage_penalty)
            scored[label] = (found_scores, path)
            print(f"{label}: BLEU {scored[label][0]['bleu']:.2f}", file=sys.stderr)
        pick = max(scored, key=lambda k: scored[k][0]["bleu"])
        scores, path = scored[pick]
        if (args.out / "MODEL_CARD.md").is_file():
            old = evaluate(args.out, dev, args.beam, args.limit, args.coverage_penalty)
            if scores["bleu"] <= old["bleu"] - args.max_drop:
                print(f"kept {args.out}: BLEU {old['bleu']:.2f} against {scores['bleu']:.2f}"
                      f" (--max-drop {args.max_drop})")  # fmt: skip
                return
        model, tokenizer, meta = load_model_dir(path)
        args.all_scores = {k: v[0]["bleu"] for k, v in scored.items()}
        extra = {k: meta[k] for k in ("alignment",) if k in meta}  # the guided alignment head
        extra["generation"] = {"coverage_penalty": args.coverage_penalty}
        save_model_dir(args.out, model, tokenizer, data=meta.get("data"), dtype=torch.bfloat16,
                       extra=extra)  # fmt: skip
        # the training sources' word list (heedful.lexicon): an average of saves has none
        lexicon = Lexicon.load(path) or Lexicon.load(args.run)
        if lexicon is not None:
            lexicon.write(args.out)
        # the words the training's alignment links joined (heedful.explain.linked_words)
        linked = LinkedWords.load(path) or LinkedWords.load(args.run)
        if linked is not None:
            linked.write(args.out)
        meta = read_json(args.out / "config.json")
        params = sum(p.numel() for p in model.parameters())
        shipped = evaluate(args.out, dev, args.beam, args.limit)  # the bf16 weights as shipped
        args.card_extra = args.card_extra.read_text(encoding="utf-8") if args.card_extra else ""
        card = model_card(args.out.name, meta, shipped, args, args.run, params, pick)
        (args.out / "MODEL_CARD.md").write_text(card, encoding="utf-8")
        print(json.dumps({"picked": pick, "candidate": scores, "shipped": shipped}, indent=2))


if __name__ == "__main__":
    main()
