"""Model directories: round trip, tied tensors once, readable files, errors that name the file."""

import json
import os
import stat

import pytest
import torch
from safetensors.torch import load_file

from heedful import ModelConfig, Transformer
from heedful.checkpoint import load_model_dir, save_model_dir
from heedful.tokenizer import Tokenizer, normalize

LINES = [f"the cat number {i} sleeps in garden {i % 7}" for i in range(300)]


@pytest.fixture(scope="module")
def tokenizer():
    return Tokenizer.train(LINES, 120)


def test_round_trip_in_bf16_keeps_the_model(tmp_path, tokenizer):
    torch.manual_seed(0)
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, dropout=0.0)).eval()
    save_model_dir(tmp_path, model, tokenizer, data={"src": "es"}, dtype=torch.bfloat16)
    loaded, tok, meta = load_model_dir(tmp_path)
    assert meta["data"] == {"src": "es"} and meta["architecture"] == "Transformer"
    assert tok.encode("the cat") == tokenizer.encode("the cat")
    for (name, a), (_, b) in zip(
        model.state_dict().items(), loaded.state_dict().items(), strict=True
    ):
        torch.testing.assert_close(b, a.to(torch.bfloat16).float(), msg=name)
    stored = load_file(tmp_path / "model.safetensors")
    assert all(t.dtype == torch.bfloat16 for t in stored.values())
    # the shared embedding (source, target, output projection) is stored once
    tied = {"src_embed.tokens.weight", "tgt_embed.tokens.weight", "generator.weight"}
    assert len(tied & set(stored)) == 1


def test_files_are_readable_by_others(tmp_path, tokenizer):
    save_model_dir(tmp_path, Transformer(ModelConfig.tiny(tokenizer.vocab_size)), tokenizer)
    umask = os.umask(0)
    os.umask(umask)
    for name in ("config.json", "model.safetensors", "spm.model"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_errors_name_the_file(tmp_path, tokenizer):
    with pytest.raises(FileNotFoundError, match="model directory not found"):
        load_model_dir(tmp_path / "nothing")
    save_model_dir(tmp_path, Transformer(ModelConfig.tiny(tokenizer.vocab_size)), tokenizer)
    config = json.loads((tmp_path / "config.json").read_text())
    config["model"]["d_model"] = 128
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(ValueError, match="model.safetensors.*shape"):
        load_model_dir(tmp_path)
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(ValueError, match="config.json: not valid JSON"):
        load_model_dir(tmp_path)
    (tmp_path / "config.json").unlink()
    with pytest.raises(FileNotFoundError, match="config.json"):
        load_model_dir(tmp_path)


def test_normalize_makes_french_spaces_plain():
    assert normalize("Comment allez-vous\u202f?") == "Comment allez-vous ?"
    assert normalize("  a\u00a0b\u2009c  ") == "a b c"
    assert normalize("ﬁn") == "fin"  # NFKC
