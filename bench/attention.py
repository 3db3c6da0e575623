"""One attention layer's time and peak memory: heedful's paths against raw SDPA and the naive
formula, side by side in one run.

    python bench/attention.py [--lengths 512 2048 8192] [--json bench/results/attention.json]

Part 1 (inference, causal self-attention, batch 1, 8 heads, head dim 64):
  sdpa      torch.nn.functional.scaled_dot_product_attention(is_causal=True), the reference
  fast      heedful.scaled_dot_product_attention, weights not asked for
  weights   heedful's weights path (also returns the [H, L, L] weights)
  window    heedful's restricted self-attention, r = 128 (paper §4)
  naive     softmax(QKᵀ/√d + causal mask) V, written out
Each case runs in a fresh subprocess, so its peak resident memory (over the inputs) is its own.

Part 2 (training shapes, forward + backward): the CPU flash kernel against the plain formula, to
place heedful.attention.PLAIN_BACKWARD_MAX_PAIRS.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

HEADS, D_HEAD, WINDOW = 8, 64, 128
CASES = ["sdpa", "fast", "weights", "window", "naive"]


def rss_mib() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def run_case(case: str, length: int, repeats: int) -> dict:
    from heedful.attention import scaled_dot_product_attention

    torch.manual_seed(0)
    q, k, v = (torch.randn(1, HEADS, length, D_HEAD) for _ in range(3))

    def once():
        with torch.inference_mode():
            if case == "sdpa":
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            if case == "fast":
                return scaled_dot_product_attention(q, k, v, causal=True)[0]
            if case == "weights":
                return scaled_dot_product_attention(q, k, v, causal=True, need_weights=True)
            if case == "window":
                return scaled_dot_product_attention(q, k, v, causal=True, window=WINDOW)[0]
            scores = q @ k.transpose(-2, -1) / math.sqrt(D_HEAD)
            causal = torch.ones(length, length, dtype=torch.bool).tril()
            return scores.masked_fill(~causal, float("-inf")).softmax(-1) @ v

    baseline = rss_mib()
    once()  # warm-up; also reaches the peak
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        once()
        times.append(time.perf_counter() - start)
    # the minimum: the least disturbed run on a shared machine
    return {"seconds": min(times), "extra_mib": max(0.0, peak - baseline)}


def run_training_shapes(lengths: list[int], batch: int = 32, heads: int = 4) -> list[dict]:
    from heedful.attention import _attention_with_weights

    rows = []
    for length in lengths:
        q, k, v = (torch.randn(batch, heads, length, D_HEAD, requires_grad=True) for _ in range(3))
        grad = torch.randn(batch, heads, length, D_HEAD)
        causal = torch.ones(length, length, dtype=torch.bool).tril()
        paths = {
            "flash": lambda q, k, v, _: F.scaled_dot_product_attention(q, k, v, is_causal=True),
            "plain": lambda q, k, v, causal: _attention_with_weights(q, k, v, causal)[0],
        }
        row = {"length": length, "pairs": length * length}
        for name, fn in paths.items():
            times = []
            for i in range(11):
                start = time.perf_counter()
                fn(q, k, v, causal).backward(grad)
                if i:
                    times.append(time.perf_counter() - start)
            row[name] = min(times)
        row["plain_speedup"] = row["flash"] / row["plain"]
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[512, 2048, 8192])
    parser.add_argument("--train-lengths", type=int, nargs="+", default=[16, 32, 64, 96, 128, 256])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", type=Path, default=Path("bench/results/attention.json"))
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--length", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    if args.case:  # child process: one case
        slow = args.case in ("naive", "weights")
        repeats = max(2, 20_000 // args.length) if not slow else max(2, 4096 // args.length)
        print(json.dumps(run_case(args.case, args.length, repeats)))
        return

    results = []
    for length in args.lengths:
        for case in CASES:
            out = subprocess.run(
                [sys.executable, __file__, "--case", case, "--length", str(length),
                 "--threads", str(args.threads)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            results.append({"length": length, "case": case, **json.loads(out.stdout)})
            print(f"  L={length:5d} {case:8s} {results[-1]['seconds']:8.4f} s", file=sys.stderr)
    training = run_training_shapes(args.train_lengths)

    cpu = platform.processor() or "cpu"
    print(
        f"\nOne causal attention layer, batch 1, {HEADS} heads, head dim {D_HEAD}, "
        f"torch {torch.__version__}, {args.threads} threads, {cpu}"
    )
    print("| L | path | time (s) | vs SDPA | extra memory (MiB) |")
    print("| ---: | --- | ---: | ---: | ---: |")
    for row in results:
        sdpa = next(r for r in results if r["length"] == row["length"] and r["case"] == "sdpa")
        row["vs_sdpa"] = row["seconds"] / sdpa["seconds"]
        print(f"| {row['length']} | {row['case']} | {row['seconds']:.4f} | "
              f"{row['vs_sdpa']:.2f}x | {row['extra_mib']:.0f} |")  # fmt: skip
    print(
        f"\nTraining shapes (batch 32, 4 heads, causal, forward + backward), {args.threads} threads"
    )
    print("| L | flash (ms) | plain (ms) | plain speed-up |")
    print("| ---: | ---: | ---: | ---: |")
    for row in training:
        print(f"| {row['length']} | {row['flash'] * 1e3:.1f} | {row['plain'] * 1e3:.1f} | "
              f"{row['plain_speedup']:.2f}x |")  # fmt: skip
    args.json.parent.mkdir(parents=True, exist_ok=True)
    env = {k: os.environ.get(k) for k in ("MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_")}
    args.json.write_text(
        json.dumps(
            {
                "torch": torch.__version__,
                "threads": args.threads,
                "environment": env,
                "inference": results,
                "training": training,
            },
            indent=2,
        )  # fmt: skip
    )
    print(f"\nJSON: {args.json}")


if __name__ == "__main__":
    main()
