"""A decoding step's attention on PyTorch's paths (``heedful.decoding_attention``) against the
formula over each row's own keys; the native kernel's own tests are in test_native.py."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from heedful.attention import MultiHeadAttention
from heedful.decoding_attention import FEW_QUERIES, attend, grouped
from heedful.kv_cache import BeamKeyValue, KeyValue

H, D = 4, 16  # heads, d_k


@pytest.fixture(autouse=True)
def pytorch_only(monkeypatch):
    monkeypatch.setenv("HEEDFUL_NATIVE", "0")


def formula(q, k, v, key_mask=None) -> torch.Tensor:
    """torch's SDPA in float64 over one row's keys each: q [B, H, T, d_k], k and v [B, H, S, d_k],
    key_mask [B, S] -> [B, T, H·d_k], heads merged."""
    mask = None if key_mask is None else key_mask[:, None, None, :]
    out = F.scaled_dot_product_attention(q.double(), k.double(), v.double(), attn_mask=mask)
    return out.float().transpose(1, 2).flatten(2)


def random_kv(rows: int, length: int) -> KeyValue:
    return KeyValue(torch.randn(rows, H, length, D), torch.randn(rows, H, length, D))


@pytest.mark.parametrize("group", [1, 3, FEW_QUERIES + 2], ids=["own keys", "beams", "many"])
@pytest.mark.parametrize("masked", [False, True], ids=["all keys", "padded keys"])
def test_one_new_query_per_row_equals_the_formula(group, masked):
    """Rows in groups of g sharing one memory's keys (a sentence's beams): the step is two
    batched products up to FEW_QUERIES rows a group, the general path beyond; asking for the
    weights takes the general path too, with the same numbers."""
    torch.manual_seed(group)
    n, s = 3, 11
    memory = random_kv(n, s)
    key_mask = torch.arange(s) < torch.tensor([[11], [4], [7]]) if masked else None
    attention = MultiHeadAttention(H * D, H).eval()
    x = torch.randn(n * group, 1, H * D)
    with torch.inference_mode():
        q = attention._split_heads(attention.q_proj(x))
        rows = memory.select(torch.arange(n).repeat_interleave(group))
        row_mask = None if key_mask is None else key_mask.repeat_interleave(group, 0)
        expected = formula(q, rows.k, rows.v, row_mask)  # [B, 1, H·d_k]
        step = attend(q, memory, key_mask)
        fast, _, _ = attention(x, memory, key_mask=key_mask)
        slow, _, weights = attention(x, memory, key_mask=key_mask, need_weights=True)
        projected = attention.out_proj(expected)
    if group > FEW_QUERIES:
        assert step is None
    else:
        torch.testing.assert_close(step, expected, atol=1e-5, rtol=1e-5)
    for out in (fast, slow):
        torch.testing.assert_close(out, projected, atol=1e-5, rtol=1e-5)
    assert weights.shape == (n * group, H, 1, s)


def test_a_beam_cache_step_equals_the_formula_over_each_beams_own_history():
    torch.manual_seed(1)
    n, K = 2, 3
    first = random_kv(n, 1)
    (cache,) = BeamKeyValue.from_first_step([first.reserve(8)], K)
    rows = first.select(torch.arange(n).repeat_interleave(K))  # each beam's history, by hand
    for _ in range(5):
        new = random_kv(n * K, 1)
        cache = cache.append(new)
        rows = KeyValue(torch.cat([rows.k, new.k], 2), torch.cat([rows.v, new.v], 2))
        # every beam continues from a random beam of its own sentence
        index = (torch.randint(K, (n, K)) + torch.arange(n)[:, None] * K).view(-1)
        cache, rows = cache.select(index), rows.select(index)
    q = torch.randn(n * K, H, 1, D)
    expected = formula(q, rows.k, rows.v)
    torch.testing.assert_close(attend(q, cache, None), expected, atol=1e-5, rtol=1e-5)
    by_row_q, by_row = grouped(q, cache, None)  # what the weights path reads
    assert by_row_q is q and torch.equal(by_row.k, rows.k) and torch.equal(by_row.v, rows.v)
    # sources that began at different steps: only the native kernel reads a masked beam cache
    started = torch.ones(n, cache.length, dtype=torch.bool)
    assert attend(q, cache, started) is None
    with pytest.raises(NotImplementedError, match="heedful.native only"):
        grouped(q, cache, started)


def test_steps_with_more_than_one_query_take_the_general_path():
    q = torch.randn(2, H, 3, D)
    assert attend(q, random_kv(2, 5), None) is None
