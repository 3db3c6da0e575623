"""Bad inputs from issue 31, one test (or a few) per item: each is refused, or recovered from, with
one line `heedful COMMAND: error: ...` (or a warning said aloud), never a traceback."""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from heedful import native
from heedful.bundled import MODELS, resolve_model
from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.config import ModelConfig
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.training.config import load_config
from heedful.training.state import read_info
from heedful.training.trainer import train

REPO = Path(__file__).resolve().parents[1]
SMOKE = REPO / "configs" / "tiny-smoke.yaml"
PAIRS = [
    ("the cat eats fish", "el gato come pescado"),
    ("hello world", "hola mundo"),
    ("the house is big", "la casa es grande"),
    ("a dog", "un perro"),
]
# a run of 2 updates on 50 pairs: seconds
QUICK = ["data.train_pairs=50", "data.dev_pairs=10", "data.vocab_size=200", "train.max_steps=2",
         "train.batch_tokens=256", "train.log_every=1", "eval.every=0", "eval.bleu_sentences=0",
         "optim.warmup_steps=2"]  # fmt: skip


def one_line_error(capsys, command: str, *argv) -> str:
    """Run `heedful COMMAND ARGV...` in this process; it must fail with one line on stderr."""
    code = main([command, *map(str, argv)])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 1 and len(lines) == 1, err
    assert lines[0].startswith(f"heedful {command}: error: "), err
    return lines[0]


@pytest.fixture(scope="module")
def tokenizer():
    return Tokenizer.train([t for pair in PAIRS for t in pair] * 20, vocab_size=70)


@pytest.fixture
def model_dir(tmp_path, tokenizer):
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0, max_positions=40))
    data = {"src": "es", "tgt": "en", "columns": ["en", "es"]}
    save_model_dir(tmp_path / "model", model.eval(), tokenizer, data=data)
    return tmp_path / "model"


@pytest.fixture
def tsv(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("".join(f"{en}\t{es}\n" for en, es in PAIRS), encoding="utf-8")
    return path


def edit_config(model_dir: Path, change) -> None:
    path = model_dir / "config.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps(change(config)))


# --- 1. a model directory is checked before anything is allocated -----------------------------


@pytest.mark.parametrize(
    "field, value, said",
    [
        ("n_heads", 0, "n_heads must be at least 1"),
        ("d_model", 1e9, "d_model must be an integer"),
        ("d_model", -8, "d_model must be at least 1"),
        ("n_encoder_layers", None, "n_encoder_layers must be an integer"),
        ("eos_id", 500, "eos_id (500) must be a token of the vocabulary"),
        ("d_model", 2**20, "needs about"),  # 4 TiB per projection: refused, not attempted
    ],
)
def test_1_a_bad_model_section_is_refused(capsys, model_dir, field, value, said):
    edit_config(model_dir, lambda c: {**c, "model": {**c["model"], field: value}})
    line = one_line_error(capsys, "attend", "--model", model_dir, "hola mundo")
    assert said in line and "config.json" in line


def test_1_a_bad_directory_is_refused(capsys, model_dir, tmp_path):
    edit_config(model_dir, lambda c: {**c, "tokenizer": "../spm.model"})
    shutil.copy(model_dir / "spm.model", tmp_path / "spm.model")
    assert "outside the model directory" in one_line_error(
        capsys, "attend", "--model", model_dir, "hola"
    )
    edit_config(model_dir, lambda c: [c])
    assert "not a heedful model directory" in one_line_error(
        capsys, "attend", "--model", model_dir, "hola"
    )


def test_1_a_tokenizer_of_another_size_is_refused(capsys, model_dir):
    other = Tokenizer.train(["un texto distinto con otras piezas"] * 30 + ["x y z"], vocab_size=40)
    other.save(model_dir / "spm.model")
    assert "pieces" in one_line_error(capsys, "attend", "--model", model_dir, "hola")


# --- 2. one trainer per run directory ---------------------------------------------------------


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished 2-update run, started over a stale lock a 'crashed' process left behind."""
    out = tmp_path_factory.mktemp("run") / "run"
    out.mkdir()
    stale = {"pid": 999999, "host": "elsewhere", "started": "then", "command": "heedful train"}
    (out / "train.lock").write_text(json.dumps(stale))
    config = load_config(SMOKE, [*QUICK, "train.save_every=1", "train.keep_checkpoints=2"])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        train(config, out)
    return out, printed.getvalue()


def test_2_a_stale_lock_is_taken_over_and_released(run):
    out, printed = run
    assert "taking over" in printed and "process 999999 on elsewhere" in printed
    assert read_info(out)["step"] == 2
    assert (out / "train.lock").read_text() == ""  # the run ended: nothing stale left


def test_2_a_second_trainer_is_refused_naming_the_first(capsys, run):
    from heedful.training.lock import run_lock

    out, _ = run
    with run_lock(out):  # the first trainer, in this process
        line = one_line_error(capsys, "train", "--resume", out, "--set", "train.max_steps=3")
    assert f"{out} is in use by another training (process {os.getpid()}" in line
    assert read_info(out)["step"] == 2  # the second never started


# --- 3. resume from a damaged state, and config and data errors --------------------------------


def test_3_a_damaged_state_resumes_from_the_newest_intact_checkpoint(run, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(run[0], out)
    (out / "training_state.safetensors").write_bytes(b"")
    for directory in (out, out / "checkpoints" / "step-0000002", out / "best"):
        weights = directory / "model.safetensors"
        weights.write_bytes(weights.read_bytes()[:100])
    with pytest.warns(UserWarning, match=r"resuming from .*step-0000001 at step 1 instead"):
        assert main(["train", "--resume", str(out)]) == 0
    assert read_info(out)["step"] == 2


def test_3_a_damaged_state_without_a_checkpoint_is_one_error(capsys, run, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(run[0], out)
    state = out / "training_state.safetensors"
    state.write_bytes(state.read_bytes()[:1000])
    for directory in (out, *(out / "checkpoints").iterdir(), out / "best"):
        (directory / "model.safetensors").unlink(missing_ok=True)
    line = one_line_error(capsys, "train", "--resume", out)
    assert "training_state.safetensors" in line and "no intact checkpoint" in line


def test_3_an_empty_training_file_is_named(capsys, tmp_path):
    (tmp_path / "empty.tsv").write_text("")
    line = one_line_error(capsys, "train", "--config", SMOKE, "--out", tmp_path / "x", "--set",
                          *QUICK, f"data.train={tmp_path / 'empty.tsv'}")  # fmt: skip
    assert "empty.tsv: no sentence pairs to train on" in line


@pytest.mark.parametrize(
    "setting, said",
    [("train.max_steps=-5", "train.max_steps must be at least 1, not -5"),
     ("train.batch_tokens=0", "train.batch_tokens must be at least 1, not 0")],
)  # fmt: skip
def test_3_numbers_out_of_range_are_blamed_on_themselves(capsys, tmp_path, setting, said):
    line = one_line_error(capsys, "train", "--config", SMOKE, "--out", tmp_path / "x", "--set",
                          *QUICK, setting)  # fmt: skip
    assert said in line


def test_3_a_vocabulary_smaller_than_asked_is_said(tmp_path):
    config = load_config(SMOKE, [*QUICK, "data.vocab_size=100000", "train.max_steps=1"])
    with pytest.warns(UserWarning, match=r"data.vocab_size is 100,000, but the train split yields"):
        with contextlib.redirect_stdout(io.StringIO()):
            train(config, tmp_path / "run")


# --- 5. the kernel library in the cache is the one heedful built -------------------------------


@pytest.mark.parametrize(
    "damage, said",
    [("replace", "is not the library heedful built"),
     ("unrecorded", "has no record of being built by heedful")],
)  # fmt: skip
def test_5_a_library_heedful_did_not_build_is_not_loaded(fresh_build, damage, said):
    built = native._build()
    genuine = built.read_bytes()
    if damage == "replace":
        built.write_bytes(genuine + b"\0")
    else:  # a library without its recorded hash (or from before hashes were recorded)
        built.with_suffix(".sha256").unlink()
    with pytest.warns(RuntimeWarning, match=said):
        assert native._library() is not None
    assert built.read_bytes() == genuine  # rebuilt: the same compiler gives the same bytes


# --- 8. devices --------------------------------------------------------------------------------


def test_8_a_device_this_machine_lacks_is_one_error(capsys, tmp_path, model_dir):
    gpu = "cuda:99" if torch.cuda.is_available() else "cuda"
    for device, said in ((gpu, f"train.device={gpu}: "), ("tpu", "train.device=tpu: not a device")):
        line = one_line_error(capsys, "train", "--config", SMOKE, "--out", tmp_path / device,
                              "--set", *QUICK, f"train.device={device}")  # fmt: skip
        assert said in line
    rest = {"attend": ["hola"], "heads": ["--data", "x.tsv"],
            "evaluate": ["--src-file", "a", "--ref-file", "b"]}  # fmt: skip
    for command, argv in rest.items():
        line = one_line_error(capsys, command, "--model", model_dir, "--device", "tpu", *argv)
        assert "--device tpu: not a device" in line


def test_8_commands_that_load_a_model_take_device(capsys, model_dir, tsv):
    assert main(["attend", "--model", str(model_dir), "--device", "cpu", "hola mundo"]) == 0
    assert main(["heads", "--model", str(model_dir), "--data", str(tsv), "--device", "cpu"]) == 0
    assert main(["evaluate", "--model", str(model_dir), "--data", str(tsv), "--device", "cpu",
                 "--beam", "1", "--json"]) == 0  # fmt: skip
    assert "Traceback" not in capsys.readouterr().err


# --- 9. evaluate's languages are the model's ---------------------------------------------------


def test_9_evaluate_refuses_languages_the_model_does_not_translate(capsys, model_dir, tsv):
    line = one_line_error(capsys, "evaluate", "--model", model_dir, "--data", tsv, "--src", "en",
                          "--tgt", "es")  # fmt: skip
    assert "--src en: the model translates es → en" in line
    line = one_line_error(capsys, "evaluate", "--model", model_dir, "--data", tsv, "--src", "de")
    assert "--src de: the model translates es → en" in line
    line = one_line_error(capsys, "evaluate", "--model", model_dir, "--data", tsv, "--tgt", "xx")
    assert "--tgt xx: not a language code" in line


# --- 10. progress bars -------------------------------------------------------------------------


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("command", ["evaluate", "heads"])
def test_10_a_progress_bar_on_a_terminal_only_and_not_with_quiet(monkeypatch, model_dir, tsv,
                                                                command):  # fmt: skip
    argv = [command, "--model", str(model_dir), "--data", str(tsv), "--json"]
    argv += ["--beam", "1"] if command == "evaluate" else []
    bar = {"evaluate": "sent/s", "heads": "silencing heads"}[command]
    for stderr, extra, shown in ((Terminal(), [], True), (Terminal(), ["--quiet"], False),
                                 (io.StringIO(), [], False)):  # fmt: skip
        monkeypatch.setattr(sys, "stderr", stderr)
        with contextlib.redirect_stdout(io.StringIO()):
            assert main([*argv, *extra]) == 0
        assert (bar in stderr.getvalue()) == shown, (extra, stderr.getvalue())


# --- 13. --version and --help do not import torch -----------------------------------------------


@pytest.mark.parametrize("flag", ["--version", "--help"])
def test_13_version_and_help_do_not_import_torch(flag):
    code = (
        "import sys\nfrom heedful.cli import main\n"
        f"try:\n    main([{flag!r}])\nexcept SystemExit:\n    pass\n"
        "print('torch imported' if 'torch' in sys.modules else 'no torch')"
    )
    env = {**os.environ, "HEEDFUL_KEEP_MALLOC": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert out.returncode == 0 and out.stdout.splitlines()[-1] == "no torch", out.stdout
    assert "heedful" in out.stdout


# --- 14. smaller things ------------------------------------------------------------------------


def test_14_config_json_records_no_absolute_data_path(run):
    data = json.loads((run[0] / "config.json").read_text())["data"]
    assert data["train"] == "tatoeba/spa-eng/train.tsv" and "root" not in data
    assert not [v for v in data.values() if isinstance(v, str) and os.path.isabs(v)]


def test_14_bundled_models_are_found_from_anywhere_and_listed(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    assert resolve_model("en-fr") == MODELS / "en-fr"
    line = one_line_error(capsys, "attend", "--model", "de-en", "hola")
    assert "no model directory de-en (bundled models: en-fr, es-en" in line


def test_14_a_path_that_cannot_be_used_is_named_in_words(capsys, model_dir, tmp_path):
    # the system's errors as "PATH: reason", not Python's "[Errno 2] ..."; a folder given as
    # the input is called one
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where a folder would be\n")
    line = one_line_error(capsys, "translate", "--model", model_dir, "hola", "-o",
                          blocker / "sub" / "out.txt")  # fmt: skip
    assert line.endswith(f"{blocker / 'sub'}: Not a directory") and "Errno" not in line
    line = one_line_error(capsys, "translate", "--model", model_dir, "-i", tmp_path)
    assert line.endswith(f"{tmp_path} is a folder: give a file of text")


def test_14_a_port_out_of_range_is_one_line(capsys, model_dir):
    line = one_line_error(capsys, "serve", "--model", model_dir, "--port", 99999)
    assert line.endswith("--port must be 0 to 65535, not 99999")  # was bind()'s traceback


def test_14_ctrl_c_while_importing_is_one_line(capsys, monkeypatch):
    def interrupted(name, *args):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib, "import_module", interrupted)
    try:
        code = main(["evaluate", "--model", "x"])
    except KeyboardInterrupt:
        pytest.fail("the interrupt came out as a traceback")
    assert code == 130
    assert capsys.readouterr().err == "heedful evaluate: interrupted\n"
