"""The native decoding-attention kernel against the formula, inside the model, and without a
compiler."""

from __future__ import annotations

import math
import warnings

import pytest
import torch

from heedful import native, search
from heedful.attention import MultiHeadAttention
from heedful.bundled import model_dir
from heedful.inference import ReLUOutputLinear
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


@pytest.mark.parametrize("threads", [1, 2])
def test_the_kernel_fills_in_the_softmax_weights_if_asked(threads):
    torch.manual_seed(4)
    n, s, group = 4, 11, 3
    k, v = projected(n, s, scale=3.0)
    q = torch.randn(n * group, H, 1, D)
    mask = torch.arange(s) < torch.tensor([[11], [2], [7], [0]])  # the last sees no key
    weights = torch.full((n * group, H, s), float("nan"))
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        out = native.decoding_attention(q, KeyValue(k, v), mask, weights)
    finally:
        torch.set_num_threads(previous)
    assert torch.equal(out, native.decoding_attention(q, KeyValue(k, v), mask))
    keys = k.repeat_interleave(group, 0)
    scores = (q @ keys.transpose(-1, -2))[:, :, 0] / math.sqrt(D)  # [B, H, S]
    rows = mask.repeat_interleave(group, 0)[:, None, :]
    expected = scores.masked_fill(~rows, float("-inf")).double().softmax(-1).float()
    seen = slice(0, 3 * group)
    torch.testing.assert_close(weights[seen], expected[seen], atol=2e-6, rtol=2e-5)
    assert weights[seen][~rows[seen].expand(-1, H, -1)].eq(0).all()  # ruled out: exactly 0
    assert torch.equal(weights[3 * group :], torch.zeros(group, H, s))  # softmax's NaN: zeros
    with pytest.raises(ValueError, match=r"weights: shape \[12, 4, 10\], expected \[12, 4, 11\]"):
        native.decoding_attention(q, KeyValue(k, v), mask, weights[..., :10])


def test_a_row_that_may_see_no_key_gets_zeros():
    k, v = projected(2, 3)
    q = torch.randn(2, H, 1, D)
    mask = torch.tensor([[True, False, True], [False, False, False]])
    out = native.decoding_attention(q, KeyValue(k, v), mask)
    torch.testing.assert_close(out[0], formula(q, k, v, mask)[0])
    assert torch.equal(out[1], torch.zeros(H * D))  # PyTorch's softmax: NaN


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
    # a sentence's beams that began later (continuous batching) read from their start on
    starts = torch.tensor([0, 3, 5])
    mask = torch.arange(cache.length) >= starts[:, None]  # [n, t]
    row_mask = mask.repeat_interleave(K, 0)
    masked = formula(q, rows.k, rows.v, row_mask)
    torch.testing.assert_close(
        native.decoding_attention(q, cache, mask), masked, atol=2e-6, rtol=2e-5
    )
    with pytest.raises(ValueError, match=r"q: shape \[12, 4, 2, 16\], expected \[\*, \*, 1, \*\]"):
        native.decoding_attention(q.expand(-1, -1, 2, -1), cache, None)  # one query per row only


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


def test_the_aligning_heads_weights_come_from_the_kernels_pass(monkeypatch):
    torch.manual_seed(5)
    attention = MultiHeadAttention(H * D, H).eval()
    x, memory = torch.randn(6, 1, H * D), torch.randn(2, 9, H * D)
    key_mask = torch.arange(9) < torch.tensor([[9], [4]])
    keys = attention.project(memory)  # two sentences' keys, three rows (beams) each
    calls = []
    kernel = native.decoding_attention

    def counted(*args):
        calls.append(len(args))
        return kernel(*args)

    def run(heads):
        with torch.inference_mode():
            return attention(x, keys, key_mask=key_mask, weights_of=heads)

    monkeypatch.setattr(native, "decoding_attention", counted)
    with torch.inference_mode():
        whole = attention(x, keys, key_mask=key_mask, need_weights=True)
    for heads in ([1, 2], [0, 3], [2]):
        fast = run(heads)
        assert calls[-1] == 4  # one call, with the weights to fill in
        monkeypatch.setenv("HEEDFUL_NATIVE", "0")
        plain = run(heads)
        monkeypatch.delenv("HEEDFUL_NATIVE")
        torch.testing.assert_close(fast.output, plain.output, atol=2e-6, rtol=2e-5)
        torch.testing.assert_close(fast.weights, whole.weights[:, heads], atol=2e-6, rtol=2e-5)
        torch.testing.assert_close(plain.weights, whole.weights[:, heads])
    assert len(calls) == 3


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


def test_without_heedful_cache_the_kernels_go_to_the_xdg_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("HEEDFUL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert native._build().parent == tmp_path / "heedful" / "native"


def test_exp_is_within_two_ulp_down_to_minus_87():
    x = torch.linspace(-87, 0, 1_000_001)
    out = native.exp_nonpositive(x)
    exact = x.double().exp()
    relative = (out.double() - exact).abs() / exact
    assert relative.max() <= 2 * 2**-23  # two float32 units in the last place
    assert out[-1] == 1.0


def candidates_both_ways(monkeypatch, logits, scores, count, **masks):
    fast = search._best_candidates(logits, scores, count, **masks)
    monkeypatch.setenv("HEEDFUL_NATIVE", "0")
    plain = search._best_candidates(logits, scores, count, **masks)
    monkeypatch.setenv("HEEDFUL_NATIVE", "1")
    return fast, plain


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("beams", [1, 4], ids=["first step", "four beams"])
@pytest.mark.parametrize("eos", ["allowed", "too early", "forced on some rows"])
def test_beam_candidates_equal_log_softmax_mask_add_and_top_k(monkeypatch, threads, beams, eos):
    torch.manual_seed(3)
    n, V = 6, 300
    # a slice of [rows, T, V], as the model's last position is: rows are not contiguous
    logits = (torch.randn(n * beams, 2, V) * 4)[:, -1]
    scores = -torch.rand(n, beams) * 10
    last = None
    if eos == "forced on some rows":
        last = torch.zeros(n * beams, dtype=torch.bool)
        last[[0, 3, n * beams - 1]] = True
    masks = dict(banned=[1, 7], eos_id=2, allow_eos=eos != "too early", last=last)
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        (fast, fast_index), (plain, plain_index) = candidates_both_ways(
            monkeypatch, logits, scores, 2 * beams, **masks
        )
    finally:
        torch.set_num_threads(previous)
    torch.testing.assert_close(fast, plain, atol=1e-5, rtol=1e-6)
    assert torch.equal(fast_index, plain_index)
    tokens = fast_index % V
    assert not torch.isin(tokens, torch.tensor([1, 7])).any()
    if eos == "too early":
        assert not (tokens == 2).any()
    if last is not None:  # a forced row offers EOS only
        rows = fast_index // V + torch.arange(n)[:, None] * beams
        offered = last[rows] & (fast > float("-inf"))
        assert (tokens[offered] == 2).all() and offered.any()


def test_beam_candidates_fewer_than_asked_come_last_as_minus_infinity(monkeypatch):
    logits, scores = torch.randn(8, 3), torch.zeros(2, 4)  # 3 tokens, of which only 2 may come
    masks = dict(banned=[1], eos_id=0, allow_eos=False, last=None)
    (fast, fast_index), (plain, _) = candidates_both_ways(monkeypatch, logits, scores, 8, **masks)
    assert torch.isinf(fast[:, 4:]).all() and torch.isinf(plain[:, 4:]).all()
    torch.testing.assert_close(fast[:, :4], plain[:, :4])
    assert ((fast_index[:, :4] % 3) == 2).all()
    assert ((0 <= fast_index) & (fast_index < 12)).all()  # -inf ones still point somewhere real


@pytest.mark.parametrize("forced", [False, True])
def test_greedy_choice_takes_min_length_row_by_row(monkeypatch, forced):
    torch.manual_seed(8)
    n, V, eos = 6, 500, 2
    logits = torch.randn(n, V)
    logits[:, eos] = 9.0  # EOS is every row's best token
    allowed = torch.tensor([True, False, True, False, False, True])
    last = torch.tensor([False, True, False, False, False, False]) if forced else None
    masks = dict(banned=[5], eos_id=eos, allow_eos=allowed, last=last)
    log_probs = -torch.rand(n)
    chosen, scores = search.greedy_choice(logits, log_probs, **masks)
    monkeypatch.setenv("HEEDFUL_NATIVE", "0")
    plain_chosen, plain_scores = search.greedy_choice(logits, log_probs, **masks)
    assert torch.equal(chosen, plain_chosen)
    torch.testing.assert_close(scores, plain_scores)
    ends = allowed | (last if forced else False)  # a forced row ends though it is early
    assert torch.equal(chosen == eos, ends)
    second = logits.clone()
    second[:, [eos, 5]] = float("-inf")
    expected = torch.where(ends, eos, second.argmax(1))
    assert torch.equal(chosen, expected)
    expected_scores = log_probs + logits.log_softmax(1).gather(1, expected[:, None]).squeeze(1)
    if forced:
        expected_scores[1] = log_probs[1]  # forced EOS costs nothing
    torch.testing.assert_close(scores, expected_scores)


def relu_outputs(rows: int, inner: int, zeros: float) -> torch.Tensor:
    """What a ReLU gives: ``zeros`` of the values exactly 0, the rest positive."""
    h = torch.rand(rows, inner) * 3
    return h.masked_fill(torch.rand(rows, inner) < zeros, 0.0)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("out", [256, 300, 40], ids=["one register block", "a block and a rest",
                                                     "narrow"])  # fmt: skip
@pytest.mark.parametrize("zeros", [0.95, 0.0, 1.0], ids=["sparse", "dense", "all zero"])
def test_relu_linear_equals_the_product(threads, out, zeros):
    torch.manual_seed(5)
    inner = 1000  # not a multiple of 16: the last values are read one by one
    h, w, b = relu_outputs(7, inner, zeros), torch.randn(out, inner), torch.randn(out)
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        y = native.relu_linear(h, w.t().contiguous(), b)
        unbiased = native.relu_linear(h, w.t().contiguous(), None)
    finally:
        torch.set_num_threads(previous)
    expected = (h.double() @ w.double().t()).float()
    torch.testing.assert_close(y, expected + b, atol=1e-4, rtol=1e-5)
    torch.testing.assert_close(unbiased, expected, atol=1e-4, rtol=1e-5)


def test_relu_linear_gives_a_row_the_same_bits_alone_or_beside_others():
    torch.manual_seed(6)
    h, wt, b = relu_outputs(9, 512, 0.9), torch.randn(512, 256), torch.randn(256)
    together = native.relu_linear(h, wt, b)
    for row in range(9):
        assert torch.equal(native.relu_linear(h[row : row + 1], wt, b), together[row : row + 1])
    # a batch of [B, T, inner], and rows that are not contiguous (a slice of wider ones)
    wide = torch.cat([h, torch.randn(9, 3)], dim=1)[:, :512]
    assert torch.equal(native.relu_linear(wide, wt, b), together)
    assert torch.equal(native.relu_linear(h.view(3, 3, 512), wt, b), together.view(3, 3, 256))


def test_relu_linear_lets_nan_and_infinity_through():
    h, wt = torch.zeros(3, 64), torch.ones(64, 256)
    h[0, 17], h[1, 63] = float("nan"), float("inf")
    y = native.relu_linear(h, wt, None)
    assert y[0].isnan().all() and (y[1] == float("inf")).all() and (y[2] == 0).all()


def test_relu_linear_refuses_what_it_would_read_wrongly():
    h, wt = torch.rand(2, 64), torch.randn(64, 32)
    with pytest.raises(ValueError, match="h: shape"):
        native.relu_linear(torch.rand(2, 63), wt, None)
    with pytest.raises(ValueError, match="weight_t: strides"):
        native.relu_linear(h, torch.randn(32, 64).t(), None)
    with pytest.raises(ValueError, match="weight_t: expected a contiguous"):
        native.relu_linear(h, torch.randn(64, 40)[:, :32], None)
    with pytest.raises(ValueError, match="bias: shape"):
        native.relu_linear(h, wt, torch.zeros(31))
    with pytest.raises(ValueError, match="h: dtype float64"):
        native.relu_linear(h.double(), wt, None)


def test_a_relu_model_built_for_inference_takes_the_sparse_product(monkeypatch):
    translator = Translator.load(model_dir("es-en"))
    feed_forward = translator.model.decoder.layers[0].ffn
    assert isinstance(feed_forward.w_2, ReLUOutputLinear)
    calls = []
    kernel = native.relu_linear
    monkeypatch.setattr(native, "relu_linear", lambda *a: calls.append(1) or kernel(*a))
    x = torch.randn(5, 256)
    with torch.inference_mode():
        sparse = feed_forward(x)
        monkeypatch.setenv("HEEDFUL_NATIVE", "0")
        dense = feed_forward(x)
    assert len(calls) == 1  # the second went to oneDNN
    torch.testing.assert_close(sparse, dense, atol=1e-4, rtol=1e-5)
    monkeypatch.setenv("HEEDFUL_NATIVE", "1")
    x.requires_grad_(True)  # under autograd: the dense product, which has a gradient
    feed_forward(x).sum().backward()
    assert x.grad is not None and len(calls) == 1


def _torch_quantized(x: torch.Tensor) -> tuple[torch.Tensor, float, int]:
    with warnings.catch_warnings():  # torch deprecates quantised tensors; the oracle all the same
        warnings.simplefilter("ignore")
        q = torch.quantize_per_tensor_dynamic(x, torch.quint8, False)
    return q.int_repr(), q.q_scale(), q.q_zero_point()


@pytest.mark.parametrize("shape", [(1, 3), (7, 256), (128, 1024), (2, 5, 17)])
@pytest.mark.parametrize("sign", ["mixed", "relu", "negative"])
def test_quantize_u8_equals_pytorchs_dynamic_per_tensor_quantisation(shape, sign):
    torch.manual_seed(sum(shape))
    x = torch.randn(shape) * 3 + 0.5
    x = x.relu() if sign == "relu" else -x.abs() if sign == "negative" else x
    values, scale, zero = native.quantize_u8(x)
    want, want_scale, want_zero = _torch_quantized(x)
    assert values.dtype is torch.uint8 and values.shape == x.shape
    assert zero == want_zero and scale == pytest.approx(want_scale, rel=1e-6)
    assert torch.equal(values, want)
    back = (values.float() - zero) * scale
    assert (back - x).abs().max() <= scale / 2 * 1.001  # within half a step everywhere


def test_quantize_u8_of_zeros_nan_and_a_transposed_tensor():
    values, scale, zero = native.quantize_u8(torch.zeros(4, 33))
    assert (scale, zero) == (1.0, 0) and not values.any()
    x = torch.tensor([[-1.0, float("nan"), 2.0]])
    values, scale, zero = native.quantize_u8(x)
    assert scale == pytest.approx(3 / 255) and zero == 85 and values.tolist() == [[0, 0, 255]]
    t = torch.randn(40, 24).t()  # not contiguous: read in its own order
    assert torch.equal(native.quantize_u8(t)[0], _torch_quantized(t.contiguous())[0])
    with pytest.raises(ValueError, match="x: dtype float64"):
        native.quantize_u8(torch.zeros(3, dtype=torch.float64))
