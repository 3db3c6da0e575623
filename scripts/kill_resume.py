"""Kill -9 a training run at random moments, resume it each time, and check that it ends
bit-identical to the same run left alone (issue 31: "20 random kills").

    python scripts/kill_resume.py [--kills 20] [--steps 120] [--seed 1] [--out /tmp/kills]

The tiny smoke config on 400 pairs, a checkpoint every 5 steps, one thread. Each kill comes at a
random moment between 1 and 8 seconds after the process starts (so some land while it imports,
some while it trains, some while it writes a checkpoint); the run is then resumed with
``--resume``. After the last kill it runs to the end, and its weights, optimizer state and log are
compared with the straight run's. Takes a few minutes (each start imports torch).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import torch

from heedful.checkpoint import load_tensors
from heedful.training.progress import read_log
from heedful.training.state import read_info

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "OMP_NUM_THREADS": "1"}
SETTINGS = [
    "data.train_pairs=400", "data.dev_pairs=20", "train.batch_tokens=256", "train.log_every=5",
    "train.save_every=5", "eval.every=0", "eval.bleu_sentences=5", "optim.warmup_steps=20",
]  # fmt: skip


def train(*args: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "heedful", "train", *args]
    return subprocess.Popen(command, cwd=REPO, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)  # fmt: skip


def step_of(directory: Path) -> int | None:
    try:
        return read_info(directory)["step"]
    except Exception:  # noqa: BLE001 - nothing written yet, or (being) damaged
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--steps", type=int, default=120)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="/tmp/heedful-kills")
    args = parser.parse_args()
    out = Path(args.out)
    shutil.rmtree(out, ignore_errors=True)
    straight, killed = out / "straight", out / "killed"
    config = ["--config", "configs/tiny-smoke.yaml", "--set", *SETTINGS]
    steps = f"train.max_steps={args.steps}"
    output, _ = train(*config, "--out", str(straight), "--set", steps).communicate()
    if step_of(straight) != args.steps:
        raise SystemExit(f"the straight run failed:\n{output}")
    rng = random.Random(args.seed)
    kills = []
    while len(kills) < args.kills:
        if any(killed.glob("training_state.*")):  # a state to resume (intact or not)
            process = train("--resume", str(killed), "--set", steps)
        else:
            process = train(*config, "--out", str(killed), "--set", steps)
        delay = rng.uniform(1.0, 8.0)
        time.sleep(delay)
        if process.poll() is not None:  # it finished (or failed) first
            output = process.communicate()[0]
            if step_of(killed) == args.steps:
                print(f"the run ended before kill {len(kills) + 1}; {len(kills)} kills")
                break
            raise SystemExit(f"the run stopped on its own:\n{output}")
        os.kill(process.pid, signal.SIGKILL)
        process.communicate()
        kills.append((round(delay, 2), step_of(killed)))
        print(f"kill {len(kills)}: after {delay:.1f} s, at saved step {kills[-1][1]}", flush=True)
    if step_of(killed) != args.steps:
        output, _ = train("--resume", str(killed), "--set", steps).communicate()
        if step_of(killed) != args.steps:
            raise SystemExit(f"the last resume failed:\n{output}")
    for name in ("model.safetensors", "training_state.safetensors"):
        a, b = load_tensors(straight / name), load_tensors(killed / name)
        different = [k for k in a if k not in b or not torch.equal(a[k], b[k])]
        if set(a) != set(b) or different:
            raise SystemExit(f"{name} differs: {different[:5]}")
    logs = [[(r["step"], r["loss"]) for r in read_log(d / "log.jsonl") if r["kind"] == "train"]
            for d in (straight, killed)]  # fmt: skip
    if logs[0] != logs[1]:
        raise SystemExit("the logs differ (a step logged twice, or another loss)")
    print(f"{len(kills)} kills, resumed each time: bit-identical weights, optimizer state and log")


if __name__ == "__main__":
    main()
