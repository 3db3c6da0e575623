"""Exact resume: N steps straight, and N/2 + kill -9 + resume + N/2, give bit-identical weights
and optimizer state on CPU. The kill is a real SIGKILL of a training process. Likewise a Ctrl-C
(SIGINT) at any step: the run saves where it stopped and goes on from there."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from heedful.checkpoint import load_model_dir, load_tensors
from heedful.training.progress import read_log
from heedful.training.schedule import learning_rate
from heedful.training.state import read_info

REPO = Path(__file__).resolve().parents[1]
N = 40
SETTINGS = [
    "data.train_pairs=400", "data.dev_pairs=20", "train.batch_tokens=256", "train.log_every=5",
    f"train.save_every={N // 2}", "eval.every=0", "eval.bleu_sentences=5", "optim.warmup_steps=20",
]  # fmt: skip
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "HEEDFUL_KEEP_MALLOC": "1"}


def heedful(*args, **kwargs):
    command = [sys.executable, "-m", "heedful", "train", *args]
    return subprocess.Popen(command, cwd=REPO, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, **kwargs)  # fmt: skip


def finish(process, timeout=300):
    output, _ = process.communicate(timeout=timeout)
    assert process.returncode == 0, output
    return output


CONFIG = ["--config", "configs/tiny-smoke.yaml"]


@pytest.fixture(scope="module")
def straight(tmp_path_factory):
    """N steps without interruption."""
    out = tmp_path_factory.mktemp("straight") / "run"
    finish(heedful(*CONFIG, "--out", str(out), "--set", *SETTINGS, f"train.max_steps={N}"))
    return out


def test_kill_9_and_resume_is_bit_identical(tmp_path, straight):
    killed = tmp_path / "killed"
    config = CONFIG

    # The same run, meant to go on much longer, killed right after its checkpoint at N/2.
    process = heedful(*config, "--out", str(killed), "--set", *SETTINGS, "train.max_steps=100000")
    deadline = time.monotonic() + 300
    while (info := read_info_safely(killed)) is None or info["step"] < N // 2:
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "no checkpoint at N/2 within 5 minutes"
        time.sleep(0.01)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    info = read_info(killed)
    assert info["step"] == N // 2, "the run got past its next checkpoint before the kill"
    load_model_dir(killed)  # what a kill leaves behind loads

    output = finish(heedful("--resume", str(killed), "--set", f"train.max_steps={N}"))
    assert f"resuming {killed} at step {N // 2}" in output

    assert_same_run(straight, killed)


def test_ctrl_c_saves_where_it_stops_and_resume_is_bit_identical(tmp_path, straight):
    stopped = tmp_path / "stopped"
    process = heedful(*CONFIG, "--out", str(stopped), "--set", *SETTINGS, f"train.max_steps={N}")
    deadline = time.monotonic() + 300
    while not any(r["kind"] == "train" for r in read_log_safely(stopped / "log.jsonl")):
        assert process.poll() is None, process.communicate()[0]
        assert time.monotonic() < deadline, "no logged step within 5 minutes"
        time.sleep(0.01)
    process.send_signal(signal.SIGINT)
    output, _ = process.communicate(timeout=300)
    assert process.returncode == 130, output
    step = read_info(stopped)["step"]
    assert f"SIGINT: stopped and saved at step {step}" in output
    assert 5 <= step < N and step % (N // 2), "the interrupt, not a regular save, saved the state"
    assert not (stopped / "checkpoints" / f"step-{step:07d}").exists()

    output = finish(heedful("--resume", str(stopped)))
    assert f"resuming {stopped} at step {step}" in output
    assert_same_run(straight, stopped)


def assert_same_run(a_dir, b_dir):
    for name in ("model.safetensors", "training_state.safetensors"):
        a, b = load_tensors(a_dir / name), load_tensors(b_dir / name)
        assert set(a) == set(b)
        for key in a:
            assert torch.equal(a[key], b[key]), f"{name}: {key}"
    assert read_info(a_dir)["step"] == read_info(b_dir)["step"] == N
    # The log shows the same losses at the same steps, each step once.
    logs = [[(r["step"], r["loss"]) for r in read_log(d / "log.jsonl") if r["kind"] == "train"]
            for d in (a_dir, b_dir)]  # fmt: skip
    assert logs[0] == logs[1] and [s for s, _ in logs[0]] == list(range(5, N + 1, 5))


def read_log_safely(path):
    try:
        return read_log(path)
    except (OSError, ValueError, json.JSONDecodeError):
        return []


def read_info_safely(directory):
    try:
        return read_info(directory)
    except (OSError, ValueError, json.JSONDecodeError):  # not written yet
        return None


def test_resume_refuses_to_overwrite_a_run_and_to_resume_nothing(tmp_path):
    done = tmp_path / "done"
    settings = [*SETTINGS, "train.max_steps=2", "data.train_pairs=50"]
    finish(heedful("--config", "configs/tiny-smoke.yaml", "--out", str(done), "--set", *settings))
    again = heedful("--config", "configs/tiny-smoke.yaml", "--out", str(done), "--set", *settings)
    output, _ = again.communicate(timeout=300)
    assert again.returncode == 1 and f"--resume {done}" in output


def test_a_run_with_a_cooldown_logs_the_rate_it_used(tmp_path):
    out = tmp_path / "run"
    finish(heedful(*CONFIG, "--out", str(out), "--set", *SETTINGS, "train.max_steps=20",
                   "optim.cooldown_steps=10"))  # fmt: skip
    d_model = load_model_dir(out)[0].config.d_model
    logged = {r["step"]: r["lr"] for r in read_log(out / "log.jsonl") if r["kind"] == "train"}
    paper = lambda step: learning_rate(step, d_model=d_model, warmup_steps=20)  # noqa: E731
    assert logged[5] == pytest.approx(paper(5)) and logged[10] == pytest.approx(paper(10))
    assert logged[15] == pytest.approx(paper(15) * 6 / 10)  # updates 11-20 cool down
    assert logged[20] == pytest.approx(paper(20) * 1 / 10)
