"""Nothing in heedful unpickles: a crafted pickle where weights or training state belong is
refused with an error that names the file, and the code it carries never runs."""

from __future__ import annotations

import ast
import builtins
import pickle
import shutil
from pathlib import Path

import pytest
import torch

from heedful.checkpoint import load_model_dir, save_model_dir
from heedful.config import ModelConfig
from heedful.interop.marian import load_marian_model
from heedful.model import Transformer
from heedful.tokenizer import Tokenizer
from heedful.training.state import load_training_state, save_training_state
from heedful.translator import Translator

SRC = Path(__file__).resolve().parents[1] / "src" / "heedful"
UNPICKLERS = ("marshal", "shelve", "dill", "joblib", "cloudpickle")  # pickle: its calls are checked


class Payload:
    """Unpickling this calls open(marker, "w"): the marker file appearing means code ran."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (builtins.open, (str(self.marker), "w"))


def crafted_pickles(marker: Path, tmp_path: Path) -> dict[str, bytes]:
    """A bare pickle, and the zip file torch.save writes, each carrying the payload."""
    torch.save({"weight": torch.zeros(2), "x": Payload(marker)}, tmp_path / "zip.bin")
    return {
        "pickle": pickle.dumps({"weight": Payload(marker)}),
        "torch-zip": (tmp_path / "zip.bin").read_bytes(),
    }


def test_the_payload_is_live(tmp_path):
    """The crafted files are dangerous: a plain unpickler runs the payload."""
    marker = tmp_path / "ran"
    crafted = crafted_pickles(marker, tmp_path)
    pickle.loads(crafted["pickle"])  # what heedful must never do
    assert marker.exists()
    marker.unlink()
    (tmp_path / "zip.pt").write_bytes(crafted["torch-zip"])
    torch.load(tmp_path / "zip.pt", weights_only=False)  # nor this
    assert marker.exists()


@pytest.fixture
def heedful_dir(tmp_path) -> Path:
    tokenizer = Tokenizer.train([f"sentence number {i} of a few" for i in range(200)], 40)
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, n_encoder_layers=1))
    save_model_dir(tmp_path / "model", model, tokenizer)
    return tmp_path / "model"


@pytest.fixture
def marian_dir(tmp_path) -> Path:
    from test_interop_marian import make_marian_dir

    make_marian_dir(tmp_path / "marian", "shared-tied")
    return tmp_path / "marian"


def _assert_refused(load, path: Path, data: bytes, marker: Path, words: str) -> None:
    path.write_bytes(data)
    with pytest.raises(ValueError, match=words) as error:
        load()
    assert path.name in str(error.value)
    assert not marker.exists()


@pytest.mark.parametrize("kind", ["pickle", "torch-zip"])
def test_heedful_directory_refuses_pickled_weights(heedful_dir, tmp_path, kind):
    marker = tmp_path / "ran"
    data = crafted_pickles(marker, tmp_path)[kind]
    weights = heedful_dir / "model.safetensors"
    _assert_refused(lambda: load_model_dir(heedful_dir), weights, data, marker, "safetensors")
    _assert_refused(lambda: Translator.load(heedful_dir), weights, data, marker, "safetensors")


@pytest.mark.parametrize("kind", ["pickle", "torch-zip"])
def test_training_state_refuses_a_pickle(heedful_dir, tmp_path, kind):
    marker = tmp_path / "ran"
    model, _, _ = load_model_dir(heedful_dir)
    optimizer = torch.optim.Adam(model.parameters())
    save_training_state(heedful_dir, model, optimizer, {"step": 1}, {})
    load_training_state(heedful_dir, model, optimizer)  # the genuine file loads
    state = heedful_dir / "training_state.safetensors"
    data = crafted_pickles(marker, tmp_path)[kind]
    _assert_refused(
        lambda: load_training_state(heedful_dir, model, optimizer), state, data, marker,
        "safetensors",
    )  # fmt: skip


@pytest.mark.filterwarnings("ignore:Detected pickle protocol")
@pytest.mark.parametrize("kind", ["pickle", "torch-zip"])
def test_marian_directory_refuses_pickled_weights(marian_dir, tmp_path, kind):
    marker = tmp_path / "ran"
    data = crafted_pickles(marker, tmp_path)[kind]
    load = lambda: load_marian_model(marian_dir)  # noqa: E731
    _assert_refused(load, marian_dir / "model.safetensors", data, marker, "safetensors")

    # pytorch_model.bin is read only when there is no model.safetensors, and then only with
    # torch's weights_only unpickler, which rebuilds tensors and nothing else.
    bin_dir = tmp_path / "bin"
    shutil.copytree(marian_dir, bin_dir)
    (bin_dir / "model.safetensors").unlink()
    load = lambda: load_marian_model(bin_dir)  # noqa: E731
    _assert_refused(load, bin_dir / "pytorch_model.bin", data, marker, "refused")
    _assert_refused(
        lambda: Translator.load(bin_dir), bin_dir / "pytorch_model.bin", data, marker, "refused"
    )


def test_no_module_can_unpickle():
    """Every torch.load in heedful says weights_only=True; no pickle, marshal, shelve, dill or
    joblib loading, no numpy allow_pickle=True, no torch.jit.load."""
    offences = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            where = f"{path.relative_to(SRC.parent)}:{getattr(node, 'lineno', '?')}"
            if isinstance(node, ast.Import | ast.ImportFrom):
                modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
                modules.append(getattr(node, "module", None) or "")
                if any(m.split(".")[0] in UNPICKLERS for m in modules):
                    offences.append(f"{where}: imports {modules}")
                if getattr(node, "module", None) == "pickle" and any(
                    a.name in ("load", "loads", "Unpickler") for a in node.names
                ):
                    offences.append(f"{where}: imports pickle's loaders")
            if not isinstance(node, ast.Call):
                continue
            name = ast.unparse(node.func)
            keywords = {k.arg: ast.unparse(k.value) for k in node.keywords}
            if name.endswith("torch.load") and keywords.get("weights_only") != "True":
                offences.append(f"{where}: torch.load without weights_only=True")
            if name.endswith(("jit.load", "pickle.load", "pickle.loads", "Unpickler")):
                offences.append(f"{where}: {name}")
            if keywords.get("allow_pickle") not in (None, "False"):
                offences.append(f"{where}: allow_pickle={keywords['allow_pickle']}")
    assert not offences, "\n".join(offences)
