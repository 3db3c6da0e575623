"""`heedful average`: checkpoint averaging arithmetic and its refusals."""

import pytest
import torch

from heedful import ModelConfig, Transformer
from heedful.checkpoint import load_model_dir, save_model_dir, unique_state_dict
from heedful.cli import main
from heedful.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def tokenizer():
    words = "uno dos tres cuatro cinco one two three four five".split()
    return Tokenizer.train([" ".join(words[i:] + words[:i]) for i in range(10)], 40)


def save(directory, tokenizer, seed, **overrides):
    torch.manual_seed(seed)
    model = Transformer(ModelConfig.tiny(tokenizer.vocab_size, **overrides))
    save_model_dir(directory, model, tokenizer, data={"src": "es", "tgt": "en"})
    return unique_state_dict(model)


def test_average_is_the_elementwise_mean(tmp_path, tokenizer, capsys):
    weights = [save(tmp_path / f"c{i}", tokenizer, seed=i) for i in range(3)]
    dirs = [str(tmp_path / f"c{i}") for i in range(3)]
    assert main(["average", *dirs, "--out", str(tmp_path / "avg")]) == 0
    assert "average of 3 checkpoints" in capsys.readouterr().out
    model, _, meta = load_model_dir(tmp_path / "avg")
    averaged = unique_state_dict(model)
    assert set(averaged) == set(weights[0])
    for name, value in averaged.items():
        a, b, c = (w[name].double() for w in weights)
        torch.testing.assert_close(value, ((a + b + c) / 3).float(), rtol=0, atol=0)
        assert not torch.equal(value, weights[0][name]) or a.eq(b).all()
    # tied embeddings stay tied, and the data section and provenance are kept
    assert model.generator.weight is model.src_embed.tokens.weight
    assert meta["data"] == {"src": "es", "tgt": "en"}
    assert meta["averaged_from"] == dirs


def test_average_of_one_is_the_identity(tmp_path, tokenizer):
    weights = save(tmp_path / "c", tokenizer, seed=5)
    main(["average", str(tmp_path / "c"), "--out", str(tmp_path / "avg")])
    model, _, _ = load_model_dir(tmp_path / "avg")
    for name, value in unique_state_dict(model).items():
        assert torch.equal(value, weights[name])


def test_average_refuses_different_models_and_its_own_input(tmp_path, tokenizer, capsys):
    a, b, c = (str(tmp_path / name) for name in "abc")
    save(a, tokenizer, seed=0)
    save(b, tokenizer, seed=1, d_ff=128)
    assert main(["average", a, b, "--out", str(tmp_path / "x")]) == 1
    assert "model differs" in capsys.readouterr().err
    assert main(["average", a, "--out", a]) == 1
    assert "is one of the inputs" in capsys.readouterr().err
    save(c, tokenizer, seed=2)
    Tokenizer.train(["hola mundo adios mundo", "hello world bye world"] * 5, 30).save(
        tmp_path / "c" / "spm.model"
    )
    assert main(["average", a, c, "--out", str(tmp_path / "y")]) == 1
    assert "sentencepiece model differs" in capsys.readouterr().err
