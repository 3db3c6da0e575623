"""The native decoding-attention kernel against the formula, inside the model, and without a
compiler."""

from __future__ import annotations

import math
import warnings

import pytest
import torch

from heedful import native
from heedful.attention import MultiHeadAttention
from heedful.bundled import model_dir
from heedful.kv_cache import BeamKeyValue, KeyValue
from heedful.translator import Translator

H, D = 4, 16  # heads, d_k


def formula(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask=None) -> torch.Tensor:
    """softmax(q kᵀ / sqrt(d_k)) v, row by row: q [B, H, 1, d_k], k and v [n, H, S, d_k] shared by
    B / n rows each, mask [n, S] -> [B, H·d_k]."""
    group = q.shape[0] // k.shape[0]
    out = []
    for row in range(q.shape[0]):
        s = row // group
        scores = q[row] @ k[s].transpose(-1, -2) / math.sqrt(q.shape[-1])  # [H, 1, S]
        if mask is not None:
            scores = scores.masked_fill(~mask[s], float("-inf"))
        out.append((scores.double().softmax(-1).float() @ v[s]).flatten())
    return torch.stack(out)


def projected(n: int, s: int, scale: float = 1.0) -> tuple[torch.Tensor, torch.Tensor]:
    """Keys and values as the model lays them out: heads split from one projection, so neither
    is contiguous."""
    kv = torch.randn(n, s, 2 * H * D) * scale
    return kv.view(n, s, 2 * H, D).transpose(1, 2).chunk(2, dim=1)  # 2 x [n, H, S, d_k]


def test_the_kernel_builds_on_this_machine():
    assert native.available(), "no C compiler, or the kernel failed to build: see the warning"


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("group", [1, 4], ids=["one row each", "beams share keys"])
@pytest.mark.parametrize("masked", [False, True], ids=["all keys", "padded keys"])
def test_decoding_attention_equals_the_formula(threads, group, masked):
    torch.manual_seed(0)
    n, s = 5, 23
    # scores spread over tens of units: exp is taken far from 0 as well as near it
    k, v = projected(n, s, scale=3.0)
    q = torch.randn(n * group, 1, 3 * H * D)[..., : H * D].view(n * group, 1, H, D).transpose(1, 2)
    mask = None
    if masked:
        lengths = torch.tensor([23, 1, 7, 16, 22])
        mask = torch.arange(s) < lengths[:, None]
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        out = native.decoding_attention(q, KeyValue(k, v), mask)
    finally:
        torch.set_num_threads(previous)
    torch.testing.assert_close(out, formula(q, k, v, mask), atol=2e-6, rtol=2e-5)


def test_beam_cache_attention_equals_each_rows_own_history():
    torch.manual_seed(1)
    n, K = 3, 4
    first = [KeyValue(*projected(n, 1)).reserve(8)]
    (cache,) = BeamKeyValue.from_first_step(first, K)
    for step in range(6):
        cache = cache.append(KeyValue(*projected(n * K, 1)))
        # every beam continues from a random beam of its own sentence
        index = (torch.randint(K, (n, K)) + torch.arange(n)[:, None] * K).view(-1)
        if step % 2:
            cache = cache.select(index)
    q = torch.randn(n * K, H, 1, D) * 3
    rows = cache.per_row()  # [n·K, H, t, d_k]: the same keys, one history per row
    torch.testing.assert_close(
        native.decoding_attention(q, cache, None), formula(q, rows.k, rows.v), atol=2e-6, rtol=2e-5
    )
    with pytest.raises(ValueError, match="no key_mask"):
        native.decoding_attention(q, cache, torch.ones(n, cache.length, dtype=torch.bool))


def test_attention_takes_the_kernel_for_one_new_query_and_gives_the_same_numbers(monkeypatch):
    torch.manual_seed(2)
    attention = MultiHeadAttention(H * D, H).eval()
    past = KeyValue(*projected(2, 9))
    x, memory = torch.randn(2, 1, H * D), torch.randn(2, 9, H * D)
    key_mask = torch.arange(9) < torch.tensor([[9], [4]])
    calls = []
    kernel = native.decoding_attention

    def counted(*args):
        calls.append(args)
        return kernel(*args)

    def run():
        with torch.inference_mode():
            return (
                attention(x, past=past)[0],
                attention(x, memory, key_mask=key_mask)[0],
                attention(x, memory, key_mask=key_mask, need_weights=True)[0],
            )

    monkeypatch.setattr(native, "decoding_attention", counted)
    fast = run()
    assert len(calls) == 2  # self- and cross-attention; asking for the weights takes PyTorch's
    monkeypatch.setenv("HEEDFUL_NATIVE", "0")
    plain = run()
    assert len(calls) == 2
    for a, b in zip(fast, plain, strict=True):
        torch.testing.assert_close(a, b, atol=2e-6, rtol=2e-5)


@pytest.mark.parametrize("beam_size", [1, 4])
def test_a_bundled_model_translates_the_same_with_and_without_the_kernel(monkeypatch, beam_size):
    translator = Translator.load(model_dir("es-en"))
    sources = translator.tokenizer.encode_batch(
        ["El gato negro duerme en el jardín.", "¿Dónde está la estación de tren?", "Hola."]
    )
    fast = translator.generate(sources, beam_size, n_best=beam_size)
    monkeypatch.setenv("HEEDFUL_NATIVE", "0")
    plain = translator.generate(sources, beam_size, n_best=beam_size)
    for ours, theirs in zip(fast, plain, strict=True):
        assert [h.tokens for h in ours] == [h.tokens for h in theirs]
        for a, b in zip(ours, theirs, strict=True):
            assert a.score == pytest.approx(b.score, abs=1e-4)


@pytest.fixture
def fresh_build(monkeypatch, tmp_path):
    """The kernel built anew into tmp_path, and the process's own build given back afterwards."""
    monkeypatch.setenv("HEEDFUL_CACHE", str(tmp_path))
    native._library.cache_clear()
    yield tmp_path
    native._library.cache_clear()


def test_without_a_compiler_decoding_warns_once_and_uses_pytorch(monkeypatch, fresh_build):
    monkeypatch.setenv("CC", "no-such-compiler")
    with pytest.warns(RuntimeWarning, match="no-such-compiler"):
        assert not native.available()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert not native.available()
    attention = MultiHeadAttention(H * D, H).eval()
    x = torch.randn(3, 1, H * D)
    with torch.inference_mode():
        out, _, _ = attention(x, past=KeyValue(*projected(3, 5)))
    assert out.shape == (3, 1, H * D)


def test_the_library_is_built_once_per_source_flags_and_cpu(monkeypatch, fresh_build):
    built = native._build()
    assert built.parent == fresh_build / "native"
    stamp = built.stat().st_mtime_ns
    assert native._build() == built and built.stat().st_mtime_ns == stamp  # reused, not rebuilt
    monkeypatch.setattr(native, "FLAGS", [*native.FLAGS, "-O2"])
    other_flags = native._build()
    assert other_flags != built
    monkeypatch.setattr(native, "_cpu", lambda: "another CPU")
    assert native._build() not in {built, other_flags}
