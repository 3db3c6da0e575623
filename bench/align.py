"""Alignment error rate on the Hansards en-fr development gold: each of heedful's alignment methods
for one model, against eflomal trained in the same run.

    python bench/align.py [--model models/en-fr] [--json bench/results/align.json] [--no-eflomal]

The model reads the gold's 147 pairs as they are (tokenised, French contractions undone:
"de le", "je ai"), the target forced. Rows (heedful.explain.alignment_methods):
  default          predict, penultimate layer, mean of heads, argmax (what heedful did before)
  per layer        predict / shift / full, each layer's mean of heads, argmax (full: read as
                   shift in a pass reading the whole target, Garg et al.'s full context)
  aggregation      the default with source pieces averaged instead of summed
  tricks           normalized per source word, grow-diag-final-and of both argmax directions
  erase            leave-one-source-word-out drop in log p (argmax, grow-diag-final-and)
  chosen           what `heedful align --choose` picks on this gold (all methods; attention
                   only), and, to see how much choosing on 147 pairs flatters it, 2-fold:
                   chosen on the odd lines and scored on the even ones, and the other way round
  recorded         the model directory's own record, if any
  eflomal          trained unsupervised here on Tatoeba fra-eng train + the gold's sentences
                   (lowercased; Tatoeba split by heedful.wordalign.words_with_spans), both
                   directions, symmetrised (heedful.wordalign.symmetrize). eflomal seeds itself:
                   its AER moves by about 0.005 between runs.
AER = 1 - (|A∩S| + |A∩P|) / (|A| + |S|); P = |A∩P| / |A|; R = |A∩S| / |S|.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
GOLD_DIR = ROOT.parent / "shared/data/align/hansards-en-fr"
TATOEBA = ROOT.parent / "shared/data/tatoeba/fra-eng/train.tsv"


def precision_recall(predicted, gold) -> tuple[float, float]:
    a_p = sum(len(a & g.possible) for a, g in zip(predicted, gold, strict=True))
    a_s = sum(len(a & g.sure) for a, g in zip(predicted, gold, strict=True))
    n_a = sum(len(a) for a in predicted)
    return a_p / max(n_a, 1), a_s / max(sum(len(g.sure) for g in gold), 1)


def row(name: str, predicted, gold, **extra) -> dict:
    from heedful.explain.align import aer

    p, r = precision_recall(predicted, gold)
    return {"method": name, "aer": aer(predicted, gold), "precision": p, "recall": r, **extra}


def mean_over_source_pieces(pair, method):
    """The method's scores with attention to a source word averaged over its pieces, not summed."""
    from heedful.explain.alignment_methods import attention_scores, source_words

    pieces = torch.tensor([len(g) for g in source_words(pair.attended.source_pieces)])
    return attention_scores(pair.attended, method) / pieces


def heedful_rows(model_dir: Path, en: list[str], fr: list[str], gold) -> tuple[list[dict], dict]:
    from heedful.explain.alignment_choice import choose, links_of, prepare
    from heedful.explain.alignment_methods import AlignmentMethod, link, read_method
    from heedful.translator import Translator

    translator = Translator.load(model_dir)
    n_layers, n_heads = translator.config.n_decoder_layers, translator.config.n_heads
    start = time.perf_counter()
    pairs = prepare(translator, en, fr, erase=False)
    attention_s = time.perf_counter() - start
    start = time.perf_counter()
    pairs = prepare(translator, en, fr, erase=True)
    erase_s = time.perf_counter() - start - attention_s  # prepare(erase=True) attends too
    timing = {"forced_attention_s": attention_s, "erasure_s": erase_s, "pairs": len(pairs)}

    def scored(name: str, method: AlignmentMethod) -> dict:
        method = method.resolve(n_layers, n_heads)
        out = row(name, [links_of(p, method) for p in pairs], gold, record=method.record())
        return out

    default = AlignmentMethod()
    rows = [scored("default: predict, penultimate layer, all heads", default)]
    for method in ("predict", "shift", "full"):
        for layer in range(n_layers):
            rows.append(
                scored(f"{method}, layer {layer + 1}, all heads", AlignmentMethod(method, layer))
            )
    for layer in (None, n_layers - 1):
        method = replace(default, layer=layer).resolve(n_layers, n_heads)
        links = [link(mean_over_source_pieces(p, method)) for p in pairs]
        rows.append(row(f"{method.describe()}, mean over source pieces", links, gold))
    for layer in range(n_layers):
        for normalize, links in (
            ("source", "argmax"),
            ("target", "grow-diag-final-and"),
            ("source", "grow-diag-final-and"),
        ):
            rows.append(
                scored(
                    f"predict, layer {layer + 1}, {normalize} / {links}",
                    AlignmentMethod("predict", layer, None, normalize, links),
                )
            )
    rows.append(scored("erase, argmax", AlignmentMethod("erase")))
    rows.append(
        scored("erase, grow-diag-final-and", AlignmentMethod("erase", links="grow-diag-final-and"))
    )

    chosen_on = f"{GOLD_DIR.name}/dev.gold"
    for label, methods in (
        ("all methods", ("predict", "shift", "full", "erase")),
        ("attention only", ("predict", "shift", "full")),
        ("shift only", ("shift",)),
        ("full only", ("full",)),
    ):
        best, _ = choose(pairs, gold, chosen_on, methods)
        rows.append(
            scored(f"chosen ({label}): {best.describe()}", best) | {"record": best.record()}
        )
        halves = [list(range(0, len(pairs), 2)), list(range(1, len(pairs), 2))]
        crossed = []
        for on, off in (halves, halves[::-1]):
            picked, _ = choose([pairs[k] for k in on], [gold[k] for k in on], "half", methods)
            crossed += [
                (k, links_of(pairs[k], picked.resolve(n_layers, n_heads)), picked.describe())
                for k in off
            ]
        crossed.sort()
        rows.append(
            row(
                f"  2-fold, {label} (chosen on one half, scored on the other)",
                [c[1] for c in crossed],
                [gold[k] for k, _, _ in crossed],
                picks=sorted({c[2] for c in crossed}),
            )
        )
    recorded = read_method(model_dir)
    if recorded.chosen_on is not None:
        rows.append(scored(f"recorded in {model_dir.name}: {recorded.describe()}", recorded))
    return rows, timing


def read_tatoeba(path: Path = TATOEBA) -> list[tuple[str, str]]:
    """(English, French) pairs of a Tatoeba TSV file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")[:2]) for line in lines]


def eflomal_rows(
    en: list[str], fr: list[str], gold, corpus: list[tuple[str, str]]
) -> tuple[list[dict], dict]:
    """eflomal trained on ``corpus`` (raw text pairs, split into words here) and the gold's pairs
    (already words); AER of both directions and two symmetrisations on the gold's pairs."""
    import eflomal

    from heedful.wordalign import symmetrize, words_with_spans

    def words(text: str) -> str:
        return " ".join(words_with_spans(text.lower())[0]) or "_"

    sources = [words(english) for english, _ in corpus] + [s.lower() for s in en]
    targets = [words(french) for _, french in corpus] + [t.lower() for t in fr]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-align-") as tmp:
        forward, reverse = Path(tmp) / "fwd", Path(tmp) / "rev"
        eflomal.Aligner().align(
            sources,
            targets,
            links_filename_fwd=str(forward),
            links_filename_rev=str(reverse),
            quiet=True,
        )
        directions = [
            [
                {tuple(map(int, x.split("-"))) for x in line.split()}
                for line in path.read_text().splitlines()[-len(en) :]
            ]
            for path in (forward, reverse)
        ]
    seconds = time.perf_counter() - start
    rows = [
        row("eflomal, forward", directions[0], gold),
        row("eflomal, reverse", directions[1], gold),
    ]
    for how in ("grow-diag-final-and", "intersection"):
        links = [
            symmetrize(f, r, len(s.split()), len(t.split()), how)
            for f, r, s, t in zip(*directions, en, fr, strict=True)
        ]
        rows.append(row(f"eflomal, {how}", links, gold))
    return rows, {"eflomal_s": seconds, "eflomal_pairs": len(sources)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models/en-fr")
    parser.add_argument("--gold-dir", type=Path, default=GOLD_DIR)
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument("--no-eflomal", action="store_true", help="skip the eflomal peer")
    args = parser.parse_args()
    torch.set_num_threads(1)

    from heedful.explain.align import read_gold, word_counts

    en = (args.gold_dir / "dev.en").read_text(encoding="utf-8").splitlines()
    fr = (args.gold_dir / "dev.fr").read_text(encoding="utf-8").splitlines()
    gold = read_gold(args.gold_dir / "dev.gold", base=1, sizes=word_counts(en, fr))
    rows, timing = heedful_rows(args.model, en, fr, gold)
    if not args.no_eflomal:
        more, seconds = eflomal_rows(en, fr, gold, read_tatoeba())
        rows += more
        timing |= seconds
    default = rows[0]["aer"]
    print(f"AER on {args.gold_dir.name}/dev.gold ({len(gold)} pairs), model {args.model}\n")
    print("| method | AER | vs default | precision | recall |\n| --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        change = f"{(r['aer'] - default) / default:+.0%}" if default else "-"
        cells = [
            r["method"],
            f"{r['aer']:.4f}",
            change,
            f"{r['precision']:.3f}",
            f"{r['recall']:.3f}",
        ]
        print("| " + " | ".join(cells) + " |")
    times = [f"{k} {v:.1f}" if isinstance(v, float) else f"{k} {v}" for k, v in timing.items()]
    print(f"\ntimes (1 thread, seconds): {', '.join(times)}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        result = {
            "model": str(args.model),
            "gold": str(args.gold_dir / "dev.gold"),
            "rows": rows,
            "timing": timing,
            "machine": platform.machine(),
            "argv": sys.argv,
        }
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
