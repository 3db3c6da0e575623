"""Training throughput: target tokens per second for a full optimizer step (forward, label-
smoothed loss, backward, Adam), heedful against a model built from ``torch.nn.Transformer`` with
the same sizes, in the same run.

    python bench/train_throughput.py [--sizes small base] [--threads 2] [--json out.json]

Both models get the same batch (128 sentences x 32 tokens a side, vocabulary 8,000, shared
embeddings and output projection, dropout 0.1), the same loss and the same optimizer, through
heedful's own ``train_step``. Steps alternate between the two so that noise from other work on
the machine hits both alike, and each model's fastest timed step counts. The achieved GFLOP/s
(3 x the forward pass's multiply-adds x 2) is set against a matrix-multiply ceiling measured
here, in the same precision.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time

import torch
from torch import nn

from heedful import ModelConfig, Transformer
from heedful.cli import ALLOCATOR_ENV
from heedful.layers import sinusoidal_positions
from heedful.training.batching import Batch
from heedful.training.step import build_optimizer, train_step

VOCAB, BATCH, LENGTH = 8000, 128, 32
STEPS = {"small": (2, 5), "base": (1, 3)}  # (warm-up steps, timed steps) per model


class TorchTransformer(nn.Module):
    """The peer: torch.nn.Transformer with the paper's embeddings, positions and tied output."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        self.tokens = nn.Embedding(config.tgt_vocab_size, config.d_model, padding_idx=0)
        self.register_buffer("positions", sinusoidal_positions(512, config.d_model), False)
        self.transformer = nn.Transformer(
            config.d_model, config.n_heads, config.n_encoder_layers, config.n_decoder_layers,
            config.d_ff, config.dropout, batch_first=True,
        )  # fmt: skip
        self.dropout = nn.Dropout(config.dropout)
        self.generator = nn.Linear(config.d_model, config.tgt_vocab_size, bias=False)
        self.generator.weight = self.tokens.weight

    def embed(self, ids):
        x = self.tokens(ids) * math.sqrt(self.config.d_model) + self.positions[: ids.shape[1]]
        return self.dropout(x)

    def forward(self, src, tgt):
        t = tgt.shape[1]
        causal = torch.ones(t, t, dtype=torch.bool).triu(1)  # True = may not attend (torch's way)
        pad_src, pad_tgt = src == 0, tgt == 0
        x = self.transformer(
            self.embed(src), self.embed(tgt), tgt_mask=causal, src_key_padding_mask=pad_src,
            tgt_key_padding_mask=pad_tgt, memory_key_padding_mask=pad_src, tgt_is_causal=True,
        )  # fmt: skip
        return self.generator(x)


def forward_flops(c: ModelConfig, batch: int, s: int, t: int) -> float:
    """Multiply-adds x 2 of one forward pass (matrix products only)."""
    d, f = c.d_model, c.d_ff
    encoder = c.n_encoder_layers * batch * s * (4 * d * d + 2 * d * f + 2 * s * d)
    decoder = c.n_decoder_layers * batch * (
        t * (4 * d * d + 2 * t * d)  # self-attention: projections, scores and values
        + t * 2 * d * d + s * 2 * d * d + t * 2 * s * d  # cross-attention (K, V over the source)
        + t * 2 * d * f  # feed-forward
    )  # fmt: skip
    output = batch * t * d * c.tgt_vocab_size
    return 2.0 * (encoder + decoder + output)


def matmul_ceiling(dtype: torch.dtype, n: int = 2048, repeats: int = 5) -> float:
    """GFLOP/s of an n x n x n matrix product, best of ``repeats``."""
    a, b = torch.randn(n, n).to(dtype), torch.randn(n, n).to(dtype)
    a @ b
    best = min(_time(lambda: a @ b) for _ in range(repeats))
    return 2 * n**3 / best / 1e9


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def make_batch(seed: int = 0) -> Batch:
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, VOCAB, (BATCH, LENGTH), generator=g)
    labels = torch.randint(4, VOCAB, (BATCH, LENGTH), generator=g)
    labels[:, -1] = 2
    tgt_in = torch.cat([torch.ones(BATCH, 1, dtype=torch.long), labels[:, :-1]], dim=1)
    return Batch(src, tgt_in, labels)


def measure(size: str, precision: str) -> dict[str, float]:
    """Seconds per step of each model (median of the timed steps), steps alternating."""
    config = ModelConfig.preset(size, VOCAB)
    batch = make_batch()
    models = {}
    for name, cls in (("heedful", Transformer), ("nn.Transformer", TorchTransformer)):
        torch.manual_seed(0)
        model = cls(config).train()
        models[name] = (model, build_optimizer(model, beta1=0.9, beta2=0.98, eps=1e-9))
    warmup, timed = STEPS[size]
    times = {name: [] for name in models}
    for i in range(warmup + timed):
        for name, (model, optimizer) in models.items():
            seconds = _time(lambda m=model, o=optimizer: train_step(
                m, o, [batch], update_tokens=batch.target_tokens, lr=1e-4, precision=precision,
            ))  # fmt: skip
            if i >= warmup:
                times[name].append(seconds)
    return {name: statistics.median(t) for name, t in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["small", "base"], choices=list(STEPS))
    parser.add_argument("--precisions", nargs="+", default=["fp32", "bf16"])
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    dtypes = {"fp32": torch.float32, "bf16": torch.bfloat16}
    ceilings = {p: matmul_ceiling(dtypes[p]) for p in args.precisions}
    rows = []
    for size in args.sizes:
        config = ModelConfig.preset(size, VOCAB)
        flops = 3 * forward_flops(config, BATCH, LENGTH, LENGTH)
        for precision in args.precisions:
            seconds = measure(size, precision)
            for name, s in seconds.items():
                rows.append({
                    "size": size, "precision": precision, "model": name,
                    "tokens_per_s": BATCH * LENGTH / s, "seconds_per_step": s,
                    "gflops": flops / s / 1e9, "ceiling_gflops": ceilings[precision],
                })  # fmt: skip
            print(f"measured {size} {precision}", file=sys.stderr, flush=True)
    for row in rows:
        peer = next(r for r in rows if r["size"] == row["size"] and r["model"] == "nn.Transformer"
                    and r["precision"] == row["precision"])  # fmt: skip
        peer_bf16 = next((r for r in rows if r["size"] == row["size"] and r["precision"] == "bf16"
                          and r["model"] == "nn.Transformer"), None)  # fmt: skip
        row["vs_nn_same_precision"] = row["tokens_per_s"] / peer["tokens_per_s"]
        if peer_bf16 is not None:
            row["vs_nn_bf16"] = row["tokens_per_s"] / peer_bf16["tokens_per_s"]
        row["of_ceiling"] = row["gflops"] / row["ceiling_gflops"]
    print_table(rows, ceilings, args.threads)
    result = {
        "benchmark": "train_throughput", "threads": args.threads, "batch": [BATCH, LENGTH],
        "vocab": VOCAB, "torch": torch.__version__, "machine": platform.processor(),
        "matmul_ceiling_gflops": ceilings, "rows": rows,
    }  # fmt: skip
    print(json.dumps(result, indent=2))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)


def print_table(rows, ceilings, threads) -> None:
    print(f"\nTraining step, {BATCH} x {LENGTH} tokens a side, {threads} threads; matmul ceiling "
          + ", ".join(f"{p} {g:,.0f} GFLOP/s" for p, g in ceilings.items()) + "\n")  # fmt: skip
    print("| size | precision | model | target tok/s | vs nn.Transformer | GFLOP/s | of ceiling |")
    print("| --- | --- | --- | ---: | ---: | ---: | ---: |")
    for r in rows:
        print(
            f"| {r['size']} | {r['precision']} | {r['model']} | {r['tokens_per_s']:,.0f} | "
            f"{r['vs_nn_same_precision']:.2f}x | {r['gflops']:,.0f} | {r['of_ceiling']:.0%} |"
        )
    print()


if __name__ == "__main__":
    if (
        not all(k in os.environ for k in ALLOCATOR_ENV)
        and os.environ.get("HEEDFUL_KEEP_MALLOC") != "1"
    ):
        os.execve(sys.executable, [sys.executable, *sys.argv], {**os.environ, **ALLOCATOR_ENV})
    main()
