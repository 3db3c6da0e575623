"""The recipe's pieces: label-smoothed loss, the learning-rate schedule, the typed config with
--set overrides, and one update (accumulation, clipping, bf16)."""

import dataclasses
import math
import types
from pathlib import Path
from typing import Literal, Union, get_args, get_origin, get_type_hints

import pytest
import torch
import torch.nn.functional as F

from heedful import ModelConfig, Transformer
from heedful.training.batching import Batch
from heedful.training.config import SECTIONS, ConfigError, build, load_config
from heedful.training.loss import label_smoothed_loss
from heedful.training.schedule import cooldown_factor, learning_rate
from heedful.training.step import build_optimizer, train_step

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def one_thread():
    """Two threads on 2 shared cores are much slower than one; results do not depend on it."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


# --- loss -------------------------------------------------------------------------------------


def test_loss_without_smoothing_is_cross_entropy_over_real_tokens():
    logits = torch.randn(2, 5, 11)
    labels = torch.tensor([[4, 5, 2, 0, 0], [7, 8, 9, 10, 2]])
    sums = label_smoothed_loss(logits, labels, epsilon=0.0)
    expected = F.cross_entropy(
        logits.flatten(0, 1), labels.flatten(), ignore_index=0, reduction="sum"
    )
    torch.testing.assert_close(sums.loss, expected)
    torch.testing.assert_close(sums.nll, expected)
    assert sums.tokens == 8


def test_smoothed_loss_is_cross_entropy_against_the_smoothed_distribution():
    eps, vocab = 0.1, 7
    logits = torch.randn(1, 3, vocab, dtype=torch.float64)
    labels = torch.tensor([[3, 2, 0]])
    q = torch.full((2, vocab), eps / (vocab - 1))  # uniform over every class but padding (0)
    q[:, 0] = 0.0
    q[0, 3] += 1 - eps
    q[1, 2] += 1 - eps
    expected = -(q * logits[0, :2].log_softmax(-1)).sum()
    sums = label_smoothed_loss(logits, labels, epsilon=eps)
    assert sums.loss.item() == pytest.approx(expected.item(), rel=1e-6)
    assert sums.tokens == 2


def test_padding_positions_do_not_change_loss_or_gradient():
    logits = torch.randn(1, 4, 9, requires_grad=True)
    labels = torch.tensor([[5, 6, 0, 0]])
    label_smoothed_loss(logits, labels).loss.backward()
    assert logits.grad[0, 2:].abs().sum() == 0
    other = logits.detach().clone()
    other[0, 2:] = 100.0
    assert label_smoothed_loss(other, labels).loss == label_smoothed_loss(logits, labels).loss


def _formula_loss(logits, labels, epsilon, pad_id):
    """The loss written out for autograd: what the hand-written backward pass must match."""
    log_probs = logits.float().log_softmax(-1)
    real = labels != pad_id
    nll = -log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)
    uniform = -(log_probs.sum(-1) - log_probs[..., pad_id]) / (log_probs.shape[-1] - 1)
    return (((1 - epsilon) * nll + epsilon * uniform) * real).sum()


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("rows", [4, 1000])  # several blocks, the last one short; one block
def test_loss_gradient_matches_autograd_through_the_formula(dtype, rows, monkeypatch):
    from heedful.training import loss as loss_module

    monkeypatch.setattr(loss_module._SmoothedCrossEntropy, "ROWS", rows)
    logits = (torch.randn(3, 5, 13) * 4).to(dtype)
    labels = torch.randint(0, 13, (3, 5))
    labels[0, 3:] = 3  # padding (id 3 here), also inside a row
    labels[2, 1] = 3
    ours, theirs = logits.clone().requires_grad_(), logits.clone().requires_grad_()
    sums = label_smoothed_loss(ours, labels, epsilon=0.1, pad_id=3)
    (sums.loss * 0.7).backward()
    expected = _formula_loss(theirs, labels, 0.1, 3)
    (expected * 0.7).backward()
    torch.testing.assert_close(sums.loss, expected)
    assert ours.grad.dtype == dtype
    atol = 1e-6 if dtype == torch.float32 else 4e-3
    torch.testing.assert_close(ours.grad, theirs.grad, atol=atol, rtol=0.02)
    assert ours.grad[labels == 3].abs().sum() == 0


def test_loss_passes_gradcheck_in_float64():
    logits = torch.randn(2, 4, 6, dtype=torch.float64, requires_grad=True)
    labels = torch.tensor([[1, 5, 2, 0], [4, 0, 0, 0]])
    assert torch.autograd.gradcheck(
        lambda x: label_smoothed_loss(x, labels, epsilon=0.2).loss, (logits,)
    )


# --- schedule ---------------------------------------------------------------------------------


def test_learning_rate_at_hand_computed_steps():
    # d_model = 512, warmup = 4000: 512^-0.5 = 0.044194174, 4000^-1.5 = 3.9528471e-6
    lr = lambda step, scale=1.0: learning_rate(step, d_model=512, warmup_steps=4000, scale=scale)  # noqa: E731
    assert lr(1) == pytest.approx(0.044194174 * 3.9528471e-6, rel=1e-6)  # 1.7469e-7
    assert lr(100) == pytest.approx(1.7469281e-5, rel=1e-6)  # still warming up: linear
    assert lr(4000) == pytest.approx(6.9877124e-4, rel=1e-6)  # the peak: 0.044194 / sqrt(4000)
    assert lr(16000) == pytest.approx(3.4938562e-4, rel=1e-6)  # 4x the steps: half the rate
    assert lr(4000, scale=2.0) == pytest.approx(2 * 6.9877124e-4, rel=1e-6)
    assert lr(3999) < lr(4000) > lr(4001)
    with pytest.raises(ValueError):
        lr(0)


def test_cooldown_takes_the_rate_linearly_to_zero_over_the_last_steps():
    factor = lambda step: cooldown_factor(step, max_steps=1000, cooldown_steps=200)  # noqa: E731
    assert factor(1) == factor(800) == 1.0  # untouched before the last 200 updates
    assert factor(801) == pytest.approx(200 / 200)
    assert factor(900) == pytest.approx(101 / 200)
    assert factor(1000) == pytest.approx(1 / 200)  # the last update still moves the weights
    assert [factor(s) for s in range(801, 1001)] == sorted(
        (factor(s) for s in range(801, 1001)), reverse=True
    )
    assert cooldown_factor(999, max_steps=1000, cooldown_steps=0) == 1.0  # off by default


def test_cooldown_longer_than_the_run_is_refused():
    build({"optim": {"cooldown_steps": 300}, "train": {"max_steps": 300}})  # all of it: fine
    with pytest.raises(ConfigError, match="cooldown_steps"):
        build({"optim": {"cooldown_steps": 301}, "train": {"max_steps": 300}})


# --- config -----------------------------------------------------------------------------------


def example_value(hint, current):
    """A valid value different from ``current`` for a field's declared type."""
    if get_origin(hint) is Literal:
        return next(o for o in get_args(hint) if o != current)
    options = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
    hint = next(o for o in options if o is not type(None))
    if get_origin(hint) is tuple:
        return ["xx", "yy"]
    if hint is bool:
        return not current
    if hint is int:
        return (current or 0) + 3
    if hint is float:
        return (current or 0.0) + 0.25
    assert hint is str, hint
    return f"{current}-changed"


@pytest.mark.parametrize("section", [s for s in SECTIONS if s != "model"])
def test_set_reaches_every_field(section):
    cls = SECTIONS[section]
    hints = get_type_hints(cls)
    for field in dataclasses.fields(cls):
        value = example_value(hints[field.name], getattr(cls(), field.name))
        text = f"[{value[0]}, {value[1]}]" if isinstance(value, list) else str(value)
        config = load_config(None, [f"{section}.{field.name}={text}"])
        got = getattr(getattr(config, section), field.name)
        expected = tuple(value) if isinstance(value, list) else value
        if field.name in ("root", "init_from"):  # paths: from the working directory
            expected = str((Path.cwd() / expected).resolve())
        assert got == expected, f"{section}.{field.name}"


def test_set_reaches_the_model():
    config = load_config(None, ["model.preset=tiny", "model.dropout=0.3", "model.norm_first=true"])
    model = config.model_config(100)
    assert (model.d_model, model.dropout, model.norm_first) == (64, 0.3, True)
    assert model == ModelConfig.tiny(100, dropout=0.3, norm_first=True)


@pytest.mark.parametrize(
    "item, message",
    [
        ("train.max_step=2", "unknown key train.max_step"),
        ("trian.max_steps=2", "unknown key 'trian.max_steps'"),
        ("train.max_steps=abc", "train.max_steps must be an integer"),
        ("train.max_steps=2.5", "train.max_steps must be an integer"),
        ("optim.eps=tiny", "optim.eps"),
        ("train.precision=fp16", "train.precision must be one of fp32, bf16"),
        ("model.d_modle=8", "unknown key model.d_modle"),
        ("model.preset=huge", "model.preset must be one of"),
        ("model.norm_first=3", "model.norm_first must be true or false"),
        ("train.max_steps", "expected section.field=value"),
    ],
)
def test_bad_overrides_are_errors(item, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, [item])


def test_yaml_values_and_scientific_notation(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("optim:\n  eps: 1e-9\ntrain:\n  max_steps: 7\n")
    config = load_config(path, ["optim.clip_norm=1.0", "eval.patience=null"])
    assert (config.optim.eps, config.train.max_steps, config.optim.clip_norm) == (1e-9, 7, 1.0)
    path.write_text("train:\n  max_stesp: 7\n")
    with pytest.raises(ConfigError, match="unknown key train.max_stesp"):
        load_config(path)


def test_data_root_is_relative_to_the_repository_of_the_config():
    config = load_config(REPO / "configs" / "tiny-smoke.yaml")
    assert Path(config.data.root) == (REPO / ".." / "shared" / "data").resolve()
    elsewhere = load_config(REPO / "configs" / "tiny-smoke.yaml", ["data.root=/srv/corpora"])
    assert elsewhere.data.root == "/srv/corpora"


@pytest.mark.parametrize("name", ["tatoeba-es-en", "tatoeba-en-fr", "multi30k-en-de",
                                  "multi30k-de-en", "tiny-smoke"])  # fmt: skip
def test_shipped_configs_load_and_name_existing_files(name):
    config = load_config(REPO / "configs" / f"{name}.yaml")
    data = config.data
    for split in (data.train, data.dev):
        for lang in (data.src, data.tgt):
            assert (Path(data.root) / split.format(lang=lang)).is_file()
    config.model_config(data.vocab_size)  # a valid model


# --- one update -------------------------------------------------------------------------------


def random_batch(seed, b=3, s=6, t=5, vocab=50):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(4, vocab, (b, s), generator=g)
    labels = torch.randint(4, vocab, (b, t), generator=g)
    src[0, -2:] = 0  # some padding
    labels[1, -2:] = 0
    tgt_in = torch.cat([torch.ones(b, 1, dtype=torch.long), labels[:, :-1]], dim=1)
    return Batch(src, tgt_in.masked_fill(labels == 0, 0), labels)


def tiny_model(seed=0):
    torch.manual_seed(seed)
    return Transformer(ModelConfig.tiny(50, dropout=0.0))


def test_accumulated_micro_batches_give_the_big_batch_update():
    a, b = random_batch(1), random_batch(2)
    big = Batch(torch.cat([a.src, b.src]), torch.cat([a.tgt_in, b.tgt_in]),
                torch.cat([a.labels, b.labels]))  # fmt: skip
    tokens = a.target_tokens + b.target_tokens
    models = [tiny_model(), tiny_model()]
    for model, batches in zip(models, ([a, b], [big]), strict=True):
        optimizer = build_optimizer(model, beta1=0.9, beta2=0.98, eps=1e-9)
        stats = train_step(model, optimizer, batches, update_tokens=tokens, lr=1e-3)
        assert stats.tokens == tokens
    for (name, p), q in zip(models[0].named_parameters(), models[1].parameters(), strict=True):
        # (Weights are not compared: Adam turns the float noise of gradients that are zero in
        # exact arithmetic, such as the key projection's bias, into steps of +-lr.)
        torch.testing.assert_close(p.grad, q.grad, rtol=1e-5, atol=1e-7, msg=name)


def test_gradient_is_normalised_by_the_update_tokens():
    batch = random_batch(3)
    grads = []
    for tokens in (batch.target_tokens, 2 * batch.target_tokens):
        model = tiny_model()
        optimizer = build_optimizer(model, beta1=0.9, beta2=0.98, eps=1e-9)
        train_step(model, optimizer, [batch], update_tokens=tokens, lr=0.0)
        grads.append(model.generator.weight.grad)
    torch.testing.assert_close(grads[0], 2 * grads[1])


def test_clipping_bounds_the_gradient_norm():
    model = tiny_model()
    optimizer = build_optimizer(model, beta1=0.9, beta2=0.98, eps=1e-9)
    batch = random_batch(4)
    stats = train_step(model, optimizer, [batch], update_tokens=1, lr=0.0, clip_norm=0.5)
    assert stats.grad_norm > 0.5  # the norm before clipping, summed not averaged: large
    norm = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in model.parameters()]))
    assert norm.item() == pytest.approx(0.5, rel=1e-4)


def test_bf16_autocast_trains_close_to_fp32():
    batch = random_batch(5)
    losses = {}
    for precision in ("fp32", "bf16"):
        model = tiny_model()
        optimizer = build_optimizer(model, beta1=0.9, beta2=0.98, eps=1e-9)
        stats = train_step(
            model, optimizer, [batch], update_tokens=batch.target_tokens, lr=1e-3,
            precision=precision,
        )  # fmt: skip
        losses[precision] = stats.loss / stats.tokens
        assert all(p.dtype == torch.float32 for p in model.parameters())  # fp32 master weights
    assert math.isfinite(losses["bf16"])
    assert losses["bf16"] == pytest.approx(losses["fp32"], rel=0.02)
