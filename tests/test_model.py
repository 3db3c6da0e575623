"""The encoder-decoder and decoder-only models: masking, caching, observability, presets."""

import pytest
import torch

from heedful import DecoderOnlyLM, HeadMask, ModelConfig, Transformer
from heedful.beam_cache import reorder_beams
from heedful.kv_cache import BeamKeyValue
from heedful.layers import sinusoidal_positions

V = 40


def make(config_overrides=None, cls=Transformer, seed=0):
    torch.manual_seed(seed)
    config = ModelConfig.tiny(V, dropout=0.0, **(config_overrides or {}))
    return cls(config).eval()


def random_ids(b, n, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(3, V, (b, n), generator=g)


VARIANTS = {
    "post-LN": {},
    "pre-LN": {"norm_first": True},
    "window-2": {"attention_window": 2},
    "gelu-concat-unshared": {"activation": "gelu", "positional": "sinusoidal_concat",
                             "share_embeddings": "none", "output_bias": True},
}  # fmt: skip


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("grad", [False, True], ids=["inference", "autograd"])
def test_decoder_is_causal(variant, grad):
    model = make(VARIANTS[variant])
    src, tgt = random_ids(2, 7), random_ids(2, 9, seed=1)
    changed = tgt.clone()
    changed[:, 5:] = random_ids(2, 4, seed=2)
    with torch.set_grad_enabled(grad):
        a, b = model(src, tgt), model(src, changed)
    torch.testing.assert_close(a[:, :5], b[:, :5], atol=1e-5, rtol=1e-5)
    assert (a[:, 5:] - b[:, 5:]).abs().max() > 1e-3  # the later positions do see the change


@pytest.mark.parametrize("variant", VARIANTS)
def test_source_padding_changes_no_logit(variant):
    model = make(VARIANTS[variant])
    src, tgt = random_ids(2, 6), random_ids(2, 5, seed=1)
    padded = torch.cat([src, torch.zeros(2, 4, dtype=torch.long)], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(model(src, tgt), model(padded, tgt), atol=1e-5, rtol=1e-5)
    mixed = padded.clone()
    mixed[1, 6:] = random_ids(1, 4, seed=3)  # real tokens where row 0 has padding
    with torch.no_grad():
        torch.testing.assert_close(model(mixed, tgt)[0], model(src, tgt)[0], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_cached_decoding_equals_full_forward(variant):
    model = make(VARIANTS[variant])
    src = random_ids(3, 8)
    src[2, 5:] = model.config.pad_id
    tgt = random_ids(3, 7, seed=1)
    with torch.no_grad():
        full = model(src, tgt)
        cache = model.start_decoding(model.encode(src))
        steps = []
        for t in range(tgt.shape[1]):
            step = model.decode_step(tgt[:, t : t + 1], cache)
            cache = step.cache
            steps.append(step.logits)
        # and several positions at once after a prefix
        cache = model.start_decoding(model.encode(src))
        first = model.decode_step(tgt[:, :3], cache)
        rest = model.decode_step(tgt[:, 3:], first.cache)
    torch.testing.assert_close(torch.cat(steps, 1), full, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(
        torch.cat([first.logits, rest.logits], 1), full, atol=1e-5, rtol=1e-5
    )
    assert rest.cache.length == tgt.shape[1]
    assert rest.cache.self_kv[0].length == tgt.shape[1]


@pytest.mark.parametrize("variant", ["post-LN", "pre-LN", "window-2"])
def test_decoder_only_cached_equals_full(variant):
    model = make(VARIANTS[variant], cls=DecoderOnlyLM)
    ids = random_ids(2, 10)
    with torch.no_grad():
        full = model(ids)
        cache, steps = model.start_decoding(), []
        for t in range(ids.shape[1]):
            step = model.decode_step(ids[:, t : t + 1], cache)
            cache = step.cache
            steps.append(step.logits)
    torch.testing.assert_close(torch.cat(steps, 1), full, atol=1e-5, rtol=1e-5)
    changed = ids.clone()
    changed[:, 6:] = random_ids(2, 4, seed=5)
    with torch.no_grad():
        torch.testing.assert_close(model(changed)[:, :6], full[:, :6], atol=1e-5, rtol=1e-5)


def test_cache_reorder_follows_the_rows():
    model = make()
    src, tgt = random_ids(3, 6), random_ids(3, 4, seed=1)
    index = torch.tensor([2, 0, 0])
    with torch.no_grad():
        cache = model.start_decoding(model.encode(src))
        step = model.decode_step(tgt[:, :2], cache)
        reordered = model.decode_step(tgt[index, 2:], step.cache.reorder(index))
        expected = model(src[index], tgt[index])
    torch.testing.assert_close(reordered.logits, expected[:, 2:], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("weights", [False, True], ids=["fast", "with-weights"])
def test_beam_cache_follows_each_beams_history(variant, weights):
    """Beams reordered within their sentences, then a sentence leaving: every step's logits (and
    self-attention weights) are those of the full forward pass over each beam's own history."""
    model = make(VARIANTS[variant])
    n, K = 3, 3
    src = random_ids(n, 6)
    g = torch.Generator().manual_seed(4)
    with torch.no_grad():
        cache = model.start_decoding(model.encode(src))
        history = torch.full((n, 1), model.config.start_id)
        sources = torch.arange(n)
        step = model.decode_step(history, cache)
        index = torch.arange(n).repeat_interleave(K)  # each sentence's K beams from its one row
        for t in range(5):
            cache = reorder_beams(step.cache, index, K)
            assert isinstance(cache.self_kv[0], BeamKeyValue)
            sources, history = sources[index], history[index]
            tokens = torch.randint(3, V, (len(index), 1), generator=g)
            history = torch.cat([history, tokens], 1)
            step = model.decode_step(tokens, cache, return_attention=weights)
            full = model(src[sources], history, return_attention=weights)
            expected = full.logits if weights else full
            torch.testing.assert_close(step.logits, expected[:, -1:], atol=1e-5, rtol=1e-5)
            if weights:
                torch.testing.assert_close(
                    step.attention.decoder_self[..., -1, :],
                    full.attention.decoder_self[..., -1, :], atol=1e-5, rtol=1e-5
                )  # fmt: skip
            kept = [0, 2] if t == 3 else list(range(len(index) // K))  # sentence 1 leaves
            beams = torch.randint(0, K, (len(kept), K), generator=g)  # parents within each
            index = (torch.tensor(kept)[:, None] * K + beams).view(-1)
        assert cache.self_kv[0].k.shape[0] == 2  # the room holds the sentences still there


def test_beam_cache_reorders_without_copying():
    model = make()
    src = random_ids(2, 6)
    with torch.no_grad():
        step = model.decode_step(torch.full((2, 1), model.config.start_id),
                                 model.start_decoding(model.encode(src)))  # fmt: skip
        cache = reorder_beams(step.cache, torch.tensor([0, 0, 1, 1]), 2)
        step = model.decode_step(torch.tensor([[5], [6], [7], [8]]), cache)
        swapped = reorder_beams(step.cache, torch.tensor([1, 1, 3, 2]), 2)
    for before, after in zip(step.cache.self_kv, swapped.self_kv, strict=True):
        assert after.room is before.room  # the same buffers: only the beams' origins moved
        assert after.history.origin.tolist() == [[0, 1], [0, 1], [0, 1], [0, 0]]
    # every layer reads one shared history: each step's history and mask are made once
    for layers in (cache.self_kv, step.cache.self_kv, swapped.self_kv):
        assert len(layers) > 1 and len({id(kv.history) for kv in layers}) == 1


@pytest.mark.parametrize("beams", [1, 3])
def test_a_cache_with_capacity_never_grows_and_decodes_the_same(beams):
    """start_decoding(capacity=T) makes room for T positions at the first step: every later
    step writes into the same buffers (a search's longest output, not 16 then 34, ...)."""
    model = make()
    n, T = 2, 30
    src = random_ids(n, 6)
    g = torch.Generator().manual_seed(2)
    with torch.no_grad():
        memory = model.encode(src)
        history = torch.full((n, 1), model.config.start_id)
        step = model.decode_step(history, model.start_decoding(memory, capacity=T))
        index = torch.arange(n).repeat_interleave(beams)
        history, buffers = history[index], None
        for _ in range(T - 1):
            cache = reorder_beams(step.cache, index, beams) if beams > 1 else step.cache
            tokens = torch.randint(3, V, (n * beams, 1), generator=g)
            history = torch.cat([history, tokens], 1)
            step = model.decode_step(tokens, cache)
            room = step.cache.self_kv[0].room
            buffers = buffers or room.k.data_ptr()
            assert room.k.data_ptr() == buffers and room.capacity == T
            index = torch.arange(n * beams)
        full = model(src.repeat_interleave(beams, 0), history)
    torch.testing.assert_close(step.logits, full[:, -1:], atol=1e-5, rtol=1e-5)


def test_a_beam_cache_keeps_its_room_when_a_sentence_leaves():
    """The sentences that stay are copied into buffers as large as before, so the next step
    writes in place (before, the copy held only the positions in use and the next step copied
    everything again to grow it)."""
    model = make()
    n, K, T = 3, 2, 12
    src = random_ids(n, 6)
    with torch.no_grad():
        memory = model.encode(src)
        step = model.decode_step(torch.full((n, 1), model.config.start_id),
                                 model.start_decoding(memory, capacity=T))  # fmt: skip
        first, second = torch.arange(5, 11).view(n * K, 1), torch.arange(11, 15).view(4, 1)
        beams = reorder_beams(step.cache, torch.arange(n).repeat_interleave(K), K)
        step = model.decode_step(first, beams)
        kept = torch.tensor([0, 1, 4, 5])  # sentence 1 leaves
        cache = reorder_beams(step.cache, kept, K)
        rooms = [kv.room for kv in cache.self_kv]
        assert all(room.capacity == T and room.k.shape[0] == 2 for room in rooms)
        step = model.decode_step(second, cache)
        for kv, room in zip(step.cache.self_kv, rooms, strict=True):
            assert kv.room is room  # written in place
        start = torch.full((4, 1), model.config.start_id)
        history = torch.cat([start, first[kept], second], 1)
        full = model(src[torch.tensor([0, 0, 2, 2])], history)
    torch.testing.assert_close(step.logits, full[:, -1:], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("variant", VARIANTS)
def test_asking_for_attention_changes_no_logit(variant):
    model = make(VARIANTS[variant])
    src, tgt = random_ids(2, 9), random_ids(2, 6, seed=1)
    src[1, 6:] = model.config.pad_id
    with torch.no_grad():
        plain = model(src, tgt)
        out = model(src, tgt, return_attention=True)
    assert (out.logits - plain).abs().max() <= 1e-5
    c = model.config
    a = out.attention
    assert a.encoder_self.shape == (c.n_encoder_layers, 2, c.n_heads, 9, 9)
    assert a.decoder_self.shape == (c.n_decoder_layers, 2, c.n_heads, 6, 6)
    assert a.cross.shape == (c.n_decoder_layers, 2, c.n_heads, 6, 9)
    for w in (a.encoder_self, a.decoder_self, a.cross):
        torch.testing.assert_close(w.sum(-1), torch.ones(w.shape[:-1]))
    assert (a.cross[:, 1, :, :, 6:] == 0).all()  # padded source positions
    assert (a.decoder_self.triu(1) == 0).all()  # future target positions
    assert (a.encoder_self[:, 0].triu(1) > 0).any()  # the encoder sees both ways


def test_lm_attention_and_step_attention():
    model = make(cls=DecoderOnlyLM)
    ids = random_ids(1, 5)
    with torch.no_grad():
        out = model(ids, return_attention=True)
        step = model.decode_step(ids, model.start_decoding(), return_attention=True)
    assert out.attention.decoder_self.shape == (2, 1, 4, 5, 5)
    assert (out.attention.decoder_self.triu(1) == 0).all()
    torch.testing.assert_close(step.attention.decoder_self, out.attention.decoder_self)
    assert (out.logits - model(ids)).abs().max() <= 1e-5


def test_head_mask_silences_only_the_chosen_head():
    model = make()
    src, tgt = random_ids(1, 6), random_ids(1, 5, seed=1)
    layers, heads = model.config.n_decoder_layers, model.config.n_heads
    keep_all = HeadMask(cross=torch.ones(layers, heads))
    one_off = torch.ones(layers, heads)
    one_off[1, 2] = 0
    with torch.no_grad():
        base = model(src, tgt)
        same = model(src, tgt, head_mask=keep_all)
        masked = model(src, tgt, head_mask=HeadMask(cross=one_off))
    torch.testing.assert_close(base, same)
    assert (masked - base).abs().max() > 1e-4


def test_sinusoids_follow_the_paper():
    pe = sinusoidal_positions(50, 8)
    pos, i = 7, 2  # PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(...)
    angle = torch.tensor(pos / 10000 ** (2 * i / 8))
    torch.testing.assert_close(pe[pos, 2 * i], angle.sin())
    torch.testing.assert_close(pe[pos, 2 * i + 1], angle.cos())
    concat = sinusoidal_positions(50, 8, "sinusoidal_concat")
    torch.testing.assert_close(concat[pos, i], angle.sin())
    torch.testing.assert_close(concat[pos, 4 + i], angle.cos())


def expected_parameters(v, d, d_ff, n_enc, n_dec):
    attention = 4 * (d * d + d)
    ffn = d * d_ff + d_ff + d_ff * d + d
    norm = 2 * d
    return v * d + n_enc * (attention + ffn + 2 * norm) + n_dec * (2 * attention + ffn + 3 * norm)


@pytest.mark.parametrize("name,d,d_ff", [("base", 512, 2048), ("big", 1024, 4096)])
def test_paper_presets_parameter_count(name, d, d_ff):
    config = ModelConfig.preset(name, 37000)
    assert (config.d_model, config.d_ff, config.n_encoder_layers) == (d, d_ff, 6)
    with torch.device("meta"):
        model = Transformer(config)
    assert model.num_parameters() == expected_parameters(37000, d, d_ff, 6, 6)


def test_config_errors_are_clear():
    with pytest.raises(ValueError, match="divisible"):
        ModelConfig.tiny(10, n_heads=3)
    with pytest.raises(ValueError, match="joint vocabulary"):
        ModelConfig(src_vocab_size=10, tgt_vocab_size=12, share_embeddings="all")
    with pytest.raises(ValueError, match="unknown preset"):
        ModelConfig.preset("huge", 10)
    with pytest.raises(ValueError, match=r"dropout must be in \[0, 1\)"):
        ModelConfig.tiny(10, dropout=1.0)
    with pytest.raises(ValueError, match="unknown ModelConfig field"):
        ModelConfig.from_dict({"src_vocab_size": 1, "tgt_vocab_size": 1, "colour": "red"})
    model = make({"max_positions": 8})
    with pytest.raises(ValueError, match="max_positions"):
        model(random_ids(1, 9), random_ids(1, 2))
    config = ModelConfig.small(100, 120)
    assert config.share_embeddings == "decoder"
    assert ModelConfig.from_dict(config.to_dict()) == config


# --- dropout ----------------------------------------------------------------------------------


def test_dropout_zeroes_about_p_and_keeps_the_expectation():
    from heedful.dropout import Dropout

    dropout = Dropout(0.1).train()
    x = torch.ones(1000, 1000)
    y = dropout(x)
    dropped = (y == 0).float().mean().item()
    assert abs(dropped - 0.1) < 0.002  # 1e6 draws: the standard deviation is 0.0003
    kept = y[y != 0]
    scale = 1 / (1 - dropout.threshold / Dropout.LEVELS)  # of the p actually used
    torch.testing.assert_close(kept, torch.full_like(kept, scale))
    assert abs(y.mean().item() - 1.0) < 0.003
    # neighbouring elements (four to one 64-bit draw) are dropped independently
    pairs = (y.view(-1, 4) == 0).float()
    both = (pairs[:, :-1] * pairs[:, 1:]).mean().item()
    assert abs(both - dropped**2) < 0.002


def test_dropout_gradient_is_its_mask_and_it_follows_the_seed():
    from heedful.dropout import Dropout

    dropout = Dropout(0.3).train()
    x = torch.randn(7, 9, 11, requires_grad=True)
    torch.manual_seed(5)
    y = dropout(x)
    y.sum().backward()
    torch.testing.assert_close(x.grad, y.detach() / x.detach())
    torch.manual_seed(5)
    torch.testing.assert_close(dropout(x), y)
    assert not torch.equal(dropout(x), y)


def test_dropout_is_the_identity_in_eval_and_at_zero_and_keeps_something_near_one():
    from heedful.dropout import Dropout

    x = torch.randn(4, 5)
    assert Dropout(0.5).eval()(x) is x and Dropout(0.0).train()(x) is x
    y = Dropout(0.99999).train()(torch.ones(1_000_000))  # keeps 1 in 32,768: about 30
    assert torch.isfinite(y).all() and 5 < (y != 0).sum() < 80
