"""Silencing a head, and what each head does on data: confidence, entropy, importance, and
`heedful heads`."""

from __future__ import annotations

import json
import math

import matplotlib.image
import pytest
import torch
from attention_views_support import TATOEBA, single_thread, tiny_lm, tiny_transformer, tokenizer

from heedful.attention import MultiHeadAttention
from heedful.checkpoint import save_model_dir
from heedful.cli import main
from heedful.explain.heads import (
    format_stats,
    head_stats,
    silencing,
    stats_json,
)
from heedful.explain.heatmaps import save_stats_png
from heedful.model import HeadMask
from heedful.training.batching import batches_in_order


@pytest.fixture(autouse=True)
def _one_thread():
    with single_thread():
        yield


def heads_entering(attention: MultiHeadAttention, run) -> torch.Tensor:
    """What ``attention`` hands W^O during ``run()``: Concat(head_1, ..., head_h), per head."""
    seen = []
    hook = attention.out_proj.register_forward_pre_hook(lambda _, args: seen.append(args[0]))
    try:
        with torch.no_grad():
            run()
    finally:
        hook.remove()
    (concat,) = seen
    return concat.unflatten(-1, (attention.n_heads, attention.d_head))  # [B, T, H, d_k]


def assert_only_head_silenced(normal: torch.Tensor, silenced: torch.Tensor, head: int):
    assert normal[..., head, :].abs().max() > 0  # it did contribute
    assert torch.equal(silenced[..., head, :], torch.zeros_like(silenced[..., head, :]))
    others = [h for h in range(normal.shape[-2]) if h != head]
    torch.testing.assert_close(silenced[..., others, :], normal[..., others, :])


def test_masking_a_head_silences_it_alone_in_multi_head_attention():
    torch.manual_seed(0)
    attention = MultiHeadAttention(d_model=32, n_heads=4).eval()
    x, memory = torch.randn(2, 5, 32), torch.randn(2, 7, 32)
    mask = torch.tensor([1.0, 1.0, 0.0, 1.0])
    for kwargs in ({}, {"memory": memory}, {"causal": True}):
        normal = heads_entering(attention, lambda kw=kwargs: attention(x, **kw))
        silenced = heads_entering(attention, lambda kw=kwargs: attention(x, head_mask=mask, **kw))
        assert_only_head_silenced(normal, silenced, head=2)


@pytest.mark.parametrize(
    ("kind", "layer", "head"), [("encoder", 1, 0), ("decoder", 0, 3), ("cross", 1, 2)]
)
def test_masking_a_head_through_the_model(kind, layer, head):
    model = tiny_transformer()
    src, tgt = torch.randint(4, 300, (2, 9)), torch.randint(4, 300, (2, 6))
    stack = model.encoder.layers if kind == "encoder" else model.decoder.layers
    attention = getattr(stack[layer], "cross_attn" if kind == "cross" else "self_attn")
    mask = silencing(model, kind, layer, head)
    silent = [(m == 0).sum() for m in (mask.encoder_self, mask.decoder_self, mask.cross)]
    assert sum(silent) == 1  # one head of all 24
    normal = heads_entering(attention, lambda: model(src, tgt))
    silenced = heads_entering(attention, lambda: model(src, tgt, head_mask=mask))
    assert_only_head_silenced(normal, silenced, head)
    with torch.no_grad():
        assert not torch.allclose(model(src, tgt), model(src, tgt, head_mask=mask))


def test_masking_a_head_of_the_language_model():
    model = tiny_lm()
    ids = torch.randint(4, 300, (2, 8))
    mask = silencing(model, "decoder", 1, 1)
    assert mask.encoder_self is None and mask.cross is None
    attention = model.layers[1].self_attn
    normal = heads_entering(attention, lambda: model(ids))
    silenced = heads_entering(attention, lambda: model(ids, head_mask=mask))
    assert_only_head_silenced(normal, silenced, head=1)


def uniform(attention: MultiHeadAttention) -> None:
    """Zero queries: every score 0, so the head spreads evenly over every key it may see."""
    with torch.no_grad():
        attention.q_proj.weight.zero_()
        attention.q_proj.bias.zero_()


def test_confidence_and_entropy_of_heads_that_spread_evenly():
    model = tiny_transformer()
    uniform(model.encoder.layers[0].self_attn)
    uniform(model.decoder.layers[1].self_attn)
    uniform(model.decoder.layers[0].cross_attn)
    sources = ["El gato negro duerme en el jardín.", "Hola.", "Tom come manzanas."]
    targets = ["The black cat sleeps in the garden.", "Hi.", "Tom eats apples."]
    tok = tokenizer()
    batches = batches_in_order(tok, model.config, targets, sources, batch_size=2)
    assert batches[0].src.eq(0).any()  # padding that must not count
    S = [len(tok.encode(s)) for s in sources]  # real source tokens, with </s>
    T = [len(tok.encode(t)) for t in targets]  # decoder positions: <s> + target
    stats = {(s.kind, s.layer, s.head): s for s in head_stats(model, batches)}
    assert len(stats) == 3 * 2 * 4

    for head in range(4):
        encoder = stats["encoder", 0, head]  # each real source token: 1/S over S keys
        assert encoder.confidence == pytest.approx(len(S) / sum(S))
        assert encoder.entropy == pytest.approx(sum(s * math.log(s) for s in S) / sum(S))
        cross = stats["cross", 0, head]  # each real target position: 1/S over S keys
        pairs = list(zip(S, T, strict=True))
        assert cross.confidence == pytest.approx(sum(t / s for s, t in pairs) / sum(T))
        assert cross.entropy == pytest.approx(sum(t * math.log(s) for s, t in pairs) / sum(T))
        decoder = stats["decoder", 1, head]  # position t sees t + 1 keys
        assert decoder.confidence == pytest.approx(
            sum(1 / (t + 1) for n in T for t in range(n)) / sum(T)
        )
        assert decoder.entropy == pytest.approx(
            sum(math.log(t + 1) for n in T for t in range(n)) / sum(T)
        )
    assert stats["encoder", 1, 0].confidence > len(S) / sum(S) + 1e-3  # others are not uniform


def test_importance_is_the_loss_rise_when_a_head_is_silenced():
    model = tiny_transformer()
    # A head whose output W^O ignores contributes nothing: silencing it costs nothing.
    d = model.config.d_head
    with torch.no_grad():
        model.decoder.layers[1].cross_attn.out_proj.weight[:, 2 * d : 3 * d] = 0
    tok = tokenizer()
    batches = batches_in_order(
        tok, model.config, ["The cat sleeps.", "Hi."], ["El gato duerme.", "Hola."]
    )
    stats = {(s.kind, s.layer, s.head): s for s in head_stats(model, batches)}
    assert stats["cross", 1, 2].importance == pytest.approx(0.0, abs=1e-6)
    assert all(abs(s.importance) > 1e-5 for k, s in stats.items() if k != ("cross", 1, 2))
    # And a head's importance is the mean loss per token with it silenced minus without.
    (batch,) = batches
    src, read, labels = batch.src, batch.tgt_in, batch.labels

    def loss(mask: HeadMask | None) -> float:
        with torch.no_grad():
            logits = model(src, read, head_mask=mask)
        return float(
            torch.nn.functional.cross_entropy(
                logits.flatten(0, 1), labels.flatten(), ignore_index=0
            )
        )

    rise = loss(silencing(model, "encoder", 0, 1)) - loss(None)
    assert stats["encoder", 0, 1].importance == pytest.approx(rise, abs=1e-5)


def test_the_table_json_and_png(tmp_path):
    model = tiny_lm()
    tok = tokenizer()
    stats = head_stats(model, batches_in_order(tok, model.config, ["Tom eats apples.", "Hi."]))
    assert {s.kind for s in stats} == {"decoder"} and len(stats) == 8
    lines = format_stats(stats).splitlines()
    assert lines[0].split() == ["attention", "layer", "head", "importance", "confidence", "entropy"]
    rises = [float(line.split()[3]) for line in lines[2:]]
    assert rises == sorted(rises, reverse=True) and len(rises) == 8
    assert len(format_stats(stats, top=3).splitlines()) == 2 + 3
    first = stats_json(stats)[0]
    best = max(stats, key=lambda s: s.importance)
    assert (first["layer"], first["head"]) == (best.layer + 1, best.head + 1)
    image = matplotlib.image.imread(save_stats_png(stats, tmp_path / "heads.png"))
    assert image[..., :3].std() > 0.05


def test_heads_command_reads_pairs_the_way_the_model_was_trained(tmp_path, capsys):
    model_dir = tmp_path / "mt"
    save_model_dir(model_dir, tiny_transformer(), tokenizer(),
                   data={"columns": ["en", "es"], "src": "es", "tgt": "en"})  # fmt: skip
    data = tmp_path / "pairs.tsv"
    lines = (TATOEBA / "dev.tsv").read_text(encoding="utf-8").splitlines()[100:106]
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    png = tmp_path / "heads.png"
    args = ["heads", "--model", str(model_dir), "--data", str(data), "--max-sentences", "4"]
    assert main([*args, "--png", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out) == 24 and png.stat().st_size > 1000
    # The same numbers as measuring Spanish -> English on the first 4 pairs directly.
    english, spanish = zip(*(line.split("\t") for line in lines[:4]), strict=True)
    model = tiny_transformer()
    expected = stats_json(
        head_stats(model, batches_in_order(tokenizer(), model.config, english, spanish))
    )
    for got, want in zip(out, expected, strict=True):
        assert (got["kind"], got["layer"], got["head"]) == (
            want["kind"],
            want["layer"],
            want["head"],
        )
        for measure in ("importance", "confidence", "entropy"):
            assert got[measure] == pytest.approx(want[measure], abs=1e-5)

    bad = tmp_path / "bad.tsv"
    bad.write_text("only one column\n", encoding="utf-8")
    assert main(["heads", "--model", str(model_dir), "--data", str(bad)]) == 1
    assert "bad.tsv, line 1: expected two columns" in capsys.readouterr().err
