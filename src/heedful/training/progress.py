"""What a run tells its user: a progress bar, a JSONL log of every logged step, and a PNG of
the training and validation curves at the end.

    DIR/log.jsonl    {"kind": "train", "step", "loss", "lr", "tokens_per_s", ...} every log_every
                     {"kind": "dev", "step", "loss", "bleu", "chrf", ...} every evaluation
    DIR/curves.png   loss (train and dev) and dev BLEU / chrF against the step
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

from heedful.files import atomic_write_bytes

LOG_FILE = "log.jsonl"
CURVES_FILE = "curves.png"


class RunLog:
    """Appends records to DIR/log.jsonl (only on the main process)."""

    def __init__(self, directory: Path, *, enabled: bool = True):
        self.path = Path(directory) / LOG_FILE
        self.enabled = enabled

    def truncate_after(self, step: int) -> None:
        """On resume: forget records of steps the resumed run will redo."""
        if not self.enabled or not self.path.is_file():
            return
        kept = [r for r in read_log(self.path) if r.get("step", 0) <= step]
        atomic_write_bytes(self.path, "".join(json.dumps(r) + "\n" for r in kept).encode())

    def write(self, record: dict[str, Any]) -> None:
        if not self.enabled:
            return
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def read_log(path: Path) -> list[dict[str, Any]]:
    """The records of a log.jsonl; a line cut short by a kill is skipped."""
    records = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


class Progress:
    """A tqdm bar (step, loss, lr, tokens/s, ETA) on a terminal; plain lines otherwise."""

    def __init__(self, total: int, *, enabled: bool = True):
        self.total, self.enabled = total, enabled
        self.interactive = enabled and sys.stderr.isatty()
        self.bar: tqdm | None = None
        self.start_step, self.start_time = 0, time.perf_counter()

    def start(self, step: int) -> None:
        """Training starts (or resumes) at ``step``: rates and ETA count from here."""
        self.start_step, self.start_time = step, time.perf_counter()
        if self.interactive:
            self.bar = tqdm(total=self.total, initial=step, unit="step", dynamic_ncols=True)

    def update(self, step: int, record: dict[str, Any] | None = None) -> None:
        if self.bar is not None:
            self.bar.update(step - self.bar.n)
        if record is None:
            return
        fields = {"loss": f"{record['loss']:.3f}", "lr": f"{record['lr']:.2e}",
                  "tok/s": f"{record['tokens_per_s']:,.0f}"}  # fmt: skip
        if self.bar is not None:
            self.bar.set_postfix(fields, refresh=False)
        elif self.enabled:
            done = step - self.start_step
            elapsed = time.perf_counter() - self.start_time
            eta = elapsed / max(done, 1) * (self.total - step)
            text = " ".join(f"{k} {v}" for k, v in fields.items())
            print(f"step {step}/{self.total} {text} ETA {_duration(eta)}", flush=True)

    def say(self, message: str) -> None:
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(message)
        else:
            print(message, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def plot_curves(log_path: Path, png_path: Path) -> None:
    """Training and dev loss, and dev BLEU / chrF, against the step (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_log(log_path) if Path(log_path).is_file() else []
    train = [r for r in records if r.get("kind") == "train"]
    dev = [r for r in records if r.get("kind") == "dev"]
    fig, (ax_loss, ax_bleu) = plt.subplots(1, 2, figsize=(11, 4))
    ax_loss.plot([r["step"] for r in train], [r["loss"] for r in train], label="train")
    ax_loss.plot([r["step"] for r in dev], [r["loss"] for r in dev], "o-", label="dev")
    ax_loss.set(xlabel="step", ylabel="label-smoothed loss per token", title="Loss")
    ax_loss.legend()
    for metric in ("bleu", "chrf"):
        points = [(r["step"], r[metric]) for r in dev if r.get(metric) is not None]
        if points:
            ax_bleu.plot(*zip(*points, strict=True), "o-", label=metric)
    ax_bleu.set(xlabel="step", ylabel="score", title="Dev sacreBLEU and chrF")
    if ax_bleu.lines:
        ax_bleu.legend()
    fig.tight_layout()
    png_path = Path(png_path)
    tmp = png_path.with_name(f".{png_path.name}.tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(png_path)
