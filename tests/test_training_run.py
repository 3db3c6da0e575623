"""`heedful train` end to end on a slice of the real corpora, in the tiny preset: the loss falls,
the model directory is complete, the best checkpoint and early stopping follow dev BLEU."""

import json
from pathlib import Path

import pytest
import torch

from heedful.checkpoint import load_model_dir
from heedful.cli import build_parser, main
from heedful.commands.train import build_config
from heedful.training.config import load_config
from heedful.training.progress import read_log
from heedful.training.trainer import train

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "tiny-smoke.yaml"


@pytest.fixture(autouse=True)
def one_thread():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The tiny model, 80 updates on the first 2,000 Tatoeba es-en pairs."""
    out = tmp_path_factory.mktemp("run") / "es-en"
    config = load_config(SMOKE, [
        "data.train_pairs=2000", "train.max_steps=80", "train.log_every=10",
        "train.save_every=40", "eval.every=40", "eval.bleu_sentences=30", "optim.warmup_steps=60",
        "train.keep_checkpoints=1",
    ])  # fmt: skip
    info = train(config, out)
    return out, info


def test_loss_falls_on_2000_real_pairs(trained):
    out, info = trained
    records = read_log(out / "log.jsonl")
    losses = [r["loss"] for r in records if r["kind"] == "train"]
    dev = [r for r in records if r["kind"] == "dev"]
    vocab = json.loads((out / "config.json").read_text())["model"]["tgt_vocab_size"]
    assert len(losses) == 8 and info["step"] == 80
    assert losses[0] > 0.8 * torch.tensor(vocab).log().item()  # starts near uniform
    assert losses[-1] < losses[0] - 1.5  # nats per token
    assert [r["step"] for r in dev] == [40, 80]
    assert dev[1]["loss"] < dev[0]["loss"] < 0.8 * torch.tensor(vocab).log().item()


def test_run_leaves_a_complete_model_directory(trained):
    out, _ = trained
    model, tokenizer, meta = load_model_dir(out)
    assert meta["data"]["src"] == "es" and meta["data"]["tgt"] == "en"
    assert meta["data"]["normalization"] == meta["normalization"] == "nfkc+spaces"
    assert meta["data"]["counts"]["train"]["read"] == 2000
    assert meta["training"]["step"] == 80
    assert model.config.d_model == 64 and tokenizer.vocab_size == model.config.src_vocab_size
    for name in ("training_state.safetensors", "training_state.json", "train_config.json",
                 "log.jsonl", "curves.png", "best/config.json", "best/model.safetensors",
                 "best/spm.model"):  # fmt: skip
        assert (out / name).is_file(), name
    assert (out / "curves.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # keep_checkpoints=1: of the saves at steps 40 and 80, the last one, a loadable model
    assert [p.name for p in (out / "checkpoints").iterdir()] == ["step-0000080"]
    load_model_dir(out / "checkpoints" / "step-0000080")
    records = read_log(out / "log.jsonl")
    train_record = next(r for r in records if r["kind"] == "train")
    assert {"step", "loss", "lr", "tokens_per_s", "padding"} <= set(train_record)
    assert 0 <= train_record["padding"] < 0.5
    dev_record = next(r for r in records if r["kind"] == "dev")
    assert {"loss", "bleu", "chrf"} <= set(dev_record)


def test_best_checkpoint_is_the_best_dev_bleu(trained):
    out, info = trained
    dev = [r for r in read_log(out / "log.jsonl") if r["kind"] == "dev"]
    best = max(dev, key=lambda r: (r["bleu"], -r["step"]))  # the first of equal scores
    assert info["best"]["step"] == best["step"]
    best_meta = json.loads((out / "best" / "config.json").read_text())
    assert best_meta["training"]["step"] == best["step"]


def test_patience_stops_early(tmp_path):
    config = load_config(
        SMOKE,
        [
            "data.train_pairs=300",
            "train.max_steps=50",
            "train.batch_tokens=256",
            "eval.every=2",
            "eval.bleu_sentences=0",
            "eval.patience=2",
            "optim.lr_scale=0.0",
            "data.dev_pairs=20",
        ],
    )  # fmt: skip  (lr 0: the dev loss never improves after the first evaluation)
    info = train(config, tmp_path / "run")
    assert info["stopped"] == "early"
    assert info["step"] == 6  # evaluations at 2 (best), 4, 6: two without improvement
    assert json.loads((tmp_path / "run" / "training_state.json").read_text())["stopped"] == "early"


def test_command_line_reaches_the_config():
    parser = build_parser()
    args = parser.parse_args(["train", "--config", str(SMOKE), "--out", "x", "--precision",
                              "bf16", "--set", "train.max_steps=7", "model.d_ff=96"])  # fmt: skip
    config, out, resume = build_config(args)
    assert (config.train.precision, config.train.max_steps, config.model["d_ff"]) == ("bf16", 7, 96)
    assert (out, resume) == ("x", False)


def test_cli_errors_speak_plainly(tmp_path, capsys):
    assert main(["train", "--config", str(SMOKE), "--out", str(tmp_path / "x"),
                 "--set", "train.max_stesp=3"]) == 1  # fmt: skip
    assert "unknown key train.max_stesp" in capsys.readouterr().err
    bad = tmp_path / "bad.tsv"
    bad.write_text("Hello.\tHola.\nno tab here\n")
    assert main(["train", "--config", str(SMOKE), "--out", str(tmp_path / "y"), "--set",
                 f"data.root={tmp_path}", "data.train=bad.tsv"]) == 1  # fmt: skip
    assert "bad.tsv, line 2" in capsys.readouterr().err
    assert main(["train", "--resume", str(tmp_path / "nothing")]) == 1
    assert "nothing to resume" in capsys.readouterr().err


def test_a_bundled_model_keeps_the_runs_word_list(trained, tmp_path):
    """scripts/bundle_model.py: the model directory it writes holds the run's source-words.txt
    (heedful.lexicon: names never read, usual case, accents), which an average of saves lacks,
    and a guided run's linked-words.tsv (heedful.explain.linked_words)."""
    import shutil
    import subprocess
    import sys

    from heedful.explain.linked_words import LinkedWords

    out = tmp_path / "run"
    shutil.copytree(trained[0], out)
    LinkedWords.from_pairs([(("hola", "hello"), 0.5)]).write(out)  # as a guided run writes it
    bundled = tmp_path / "es-en"
    subprocess.run(
        [sys.executable, str(REPO / "scripts" / "bundle_model.py"), str(out), str(bundled),
         "--command", "heedful train ...", "--config", str(SMOKE), "--wall", "seconds",
         "--limit", "5"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    words = (out / "source-words.txt").read_text(encoding="utf-8")
    assert words and (bundled / "source-words.txt").read_text(encoding="utf-8") == words
    assert LinkedWords.load(bundled).dice == {("hola", "hello"): 0.5}
    assert (bundled / "MODEL_CARD.md").is_file()
    meta = json.loads((bundled / "config.json").read_text(encoding="utf-8"))
    assert meta["generation"] == {"coverage_penalty": 0.1}  # heedful.coverage, as bundled
