"""Attention against torch's own implementation, and the mask rules."""

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from heedful import attention as attention_module
from heedful.attention import MultiHeadAttention, scaled_dot_product_attention
from heedful.config import ModelConfig
from heedful.layers import EncoderLayer


def copy_into_torch_mha(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    with torch.no_grad():
        theirs.in_proj_weight.copy_(
            torch.cat([ours.q_proj.weight, ours.k_proj.weight, ours.v_proj.weight])
        )
        theirs.in_proj_bias.copy_(torch.cat([ours.q_proj.bias, ours.k_proj.bias, ours.v_proj.bias]))
        theirs.out_proj.weight.copy_(ours.out_proj.weight)
        theirs.out_proj.bias.copy_(ours.out_proj.bias)


def randomize(module: nn.Module) -> None:
    """Non-trivial weights everywhere (biases and LayerNorm included)."""
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.2 + (1.0 if p.dim() == 1 and "norm" in str(p) else 0))


@pytest.mark.parametrize("grad", [False, True], ids=["inference", "autograd"])
@pytest.mark.parametrize("padded", [False, True], ids=["no-padding", "key-padding"])
def test_multi_head_attention_equals_torch(grad, padded):
    torch.manual_seed(0)
    d_model, n_heads, batch, t, s = 32, 4, 3, 5, 7
    ours = MultiHeadAttention(d_model, n_heads)
    randomize(ours)
    theirs = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
    copy_into_torch_mha(ours, theirs)
    x, memory = torch.randn(batch, t, d_model), torch.randn(batch, s, d_model)
    key_mask = torch.ones(batch, s, dtype=torch.bool)
    if padded:
        key_mask[0, 4:] = False
        key_mask[2, 6:] = False
    with torch.set_grad_enabled(grad):
        expected, expected_w = theirs(
            x, memory, memory, key_padding_mask=~key_mask, average_attn_weights=False
        )
        fast, _, no_weights = ours(x, memory, key_mask=key_mask)
        slow, _, weights = ours(x, memory, key_mask=key_mask, need_weights=True)
        self_out, _, _ = ours(x)
        self_expected, _ = theirs(x, x, x)
    assert no_weights is None
    torch.testing.assert_close(fast, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(slow, expected, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(weights, expected_w, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(self_out, self_expected, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-LN", "pre-LN"])
def test_encoder_layer_equals_torch(norm_first):
    torch.manual_seed(1)
    config = ModelConfig.tiny(10, dropout=0.0, norm_first=norm_first)
    ours = EncoderLayer(config).eval()
    randomize(ours)
    theirs = nn.TransformerEncoderLayer(
        config.d_model, config.n_heads, config.d_ff, dropout=0.0,
        batch_first=True, norm_first=norm_first,
    ).eval()  # fmt: skip
    copy_into_torch_mha(ours.self_attn, theirs.self_attn)
    with torch.no_grad():
        theirs.linear1.load_state_dict(ours.ffn.w_1.state_dict())
        theirs.linear2.load_state_dict(ours.ffn.w_2.state_dict())
        theirs.norm1.load_state_dict(ours.self_attn_residual.norm.state_dict())
        theirs.norm2.load_state_dict(ours.ffn_residual.norm.state_dict())
    x = torch.randn(2, 6, config.d_model)
    key_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 1, 0, 0, 0]], dtype=torch.bool)
    with torch.no_grad():
        expected = theirs(x, src_key_padding_mask=~key_mask)
        got = ours(x, key_mask).x
    real = key_mask[..., None].expand_as(x)  # torch's fast path zeroes padded rows; compare real
    torch.testing.assert_close(got[real], expected[real], atol=1e-5, rtol=1e-5)


def naive_attention(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~mask, float("-inf"))
    return scores.softmax(-1) @ v


def band(n_queries, n_keys, r, causal, offset=0):
    i = torch.arange(n_queries)[:, None] + offset
    j = torch.arange(n_keys)[None, :]
    allowed = (i - j).abs() <= r
    return allowed & (j <= i) if causal else allowed


@pytest.mark.parametrize("causal", [False, True], ids=["encoder", "decoder"])
@pytest.mark.parametrize("r", [0, 3, 70])
def test_windowed_attention_equals_band_masked_full_attention(causal, r):
    torch.manual_seed(2)
    b, h, n, d = 2, 3, 300, 16  # n spans several 64-query blocks
    q, k, v = (torch.randn(b, h, n, d) for _ in range(3))
    key_mask = torch.ones(b, n, dtype=torch.bool)
    key_mask[1, 250:] = False
    with torch.no_grad():
        out, _ = scaled_dot_product_attention(q, k, v, key_mask, causal=causal, window=r)
        _, weights = scaled_dot_product_attention(
            q, k, v, key_mask, causal=causal, window=r, need_weights=True
        )
    mask = band(n, n, r, causal)[None, None] & key_mask[:, None, None, :]
    expected = naive_attention(q, k, v, mask)
    real = key_mask[:, None, :, None].expand_as(out)  # padding queries may differ
    torch.testing.assert_close(out[real], expected[real], atol=1e-5, rtol=1e-5)
    # the window is respected exactly: a real query gives zero weight outside its band and to
    # padding; a padding query sees at least itself, so nothing is NaN
    outside = ~mask.expand_as(weights) & key_mask[:, None, :, None]
    assert (weights[outside] == 0).all()
    assert (weights[mask.expand_as(weights) & key_mask[:, None, :, None]] > 0).all()
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()


def test_windowed_attention_memory_is_linear(monkeypatch):
    """With a window r, the kernel sees n / block blocks of block x (block + 2r) scores each."""
    calls = []
    real_sdpa = F.scaled_dot_product_attention

    def recording_sdpa(q, k, v, **kw):
        calls.append((q.shape, k.shape))
        return real_sdpa(q, k, v, **kw)

    monkeypatch.setattr(attention_module.F, "scaled_dot_product_attention", recording_sdpa)
    n, r = 2048, 16
    q = k = v = torch.randn(1, 2, n, 8)
    with torch.no_grad():
        scaled_dot_product_attention(q, k, v, window=r)
    block = max(r, 64)
    (q_shape, k_shape), *more = calls
    assert not more
    assert q_shape[0] == n // block and q_shape[-2] * k_shape[-2] <= block * (block + 2 * r)


def test_weights_rows_sum_to_one_and_masked_are_exactly_zero():
    torch.manual_seed(3)
    q, k, v = torch.randn(2, 2, 4, 8), torch.randn(2, 2, 6, 8), torch.randn(2, 2, 6, 8)
    key_mask = torch.tensor([[1, 1, 1, 1, 1, 1], [1, 1, 0, 0, 0, 0]], dtype=torch.bool)
    _, w = scaled_dot_product_attention(q, k, v, key_mask, causal=True, need_weights=True)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 2, 4))
    assert (w[1, :, :, 2:] == 0).all()
    # causal with 4 queries at the end of 6 keys: query t sees keys <= t + 2
    assert (w[0, :, 0, 3:] == 0).all() and (w[0, :, 0, :3] > 0).all()


@pytest.mark.parametrize("n", [40, 80], ids=["short-plain", "long-flash"])
def test_fast_and_weights_paths_agree_with_and_without_grad(n):
    """Inference takes the plain formula up to 48 x 48 pairs and the flash kernel beyond."""
    torch.manual_seed(4)
    q, k, v = (torch.randn(2, 4, n, 16) for _ in range(3))
    key_mask = torch.ones(2, n, dtype=torch.bool)
    key_mask[0, 30:] = False
    for causal in (False, True):
        mask = key_mask if not causal else None
        with torch.no_grad():
            fast, _ = scaled_dot_product_attention(q, k, v, mask, causal=causal)
            slow, _ = scaled_dot_product_attention(q, k, v, mask, causal=causal, need_weights=True)
        plain, _ = scaled_dot_product_attention(
            q.requires_grad_(), k, v, mask, causal=causal
        )  # autograd on, short: the plain path
        torch.testing.assert_close(fast, slow, atol=1e-5, rtol=1e-5)
        torch.testing.assert_close(plain.detach(), slow, atol=1e-5, rtol=1e-5)
        q = q.detach()


def test_key_value_append_in_place_equals_concatenation_and_never_changes_earlier_views():
    from heedful.kv_cache import KeyValue

    def kv(rows, n=1):
        return KeyValue(torch.randn(rows, 2, n, 3), torch.randn(rows, 2, n, 3))

    def cat(a, b):
        return KeyValue(torch.cat([a.k, b.k], 2), torch.cat([a.v, b.v], 2))

    cache = expected = kv(4, 2)
    views = []
    for _ in range(20):  # past the first buffer's capacity
        new = kv(4)
        cache, expected = cache.append(new), cat(expected, new)
        views.append((cache, expected))
    assert cache.room is not None and cache.room.capacity > cache.length
    pointer = cache.k.data_ptr()
    cache = cache.append(new)
    assert cache.k.data_ptr() == pointer  # written in place
    expected = cat(expected, new)
    # a second append to an older view copies: both extensions and every view stay right
    old, old_expected = views[10]
    branch = old.append(kv(4))
    assert branch.k.data_ptr() != pointer
    for got, want in [*views[:-1], (cache, expected), (old, old_expected)]:
        assert torch.equal(got.k, want.k) and torch.equal(got.v, want.v)
    # selecting rows (beams) keeps room, and the next append writes in place again
    index = torch.tensor([3, 3, 0])
    chosen = cache.select(index)
    assert torch.equal(chosen.k, expected.k[index]) and torch.equal(chosen.v, expected.v[index])
    new = kv(3)
    grown = chosen.append(new)
    assert grown.k.data_ptr() == chosen.k.data_ptr()
    assert torch.equal(grown.v, torch.cat([expected.v[index], new.v], 2))
