"""The boundary between Python and heedful's C kernels: C sees pointers, sizes and strides and
nothing else, so every tensor is checked before a call (dtype, CPU, shape, last dimension in one
piece, indices in range), and the kernels' exp gives a defined answer outside its domain."""

from __future__ import annotations

import math
import os
import subprocess

import pytest
import torch

from heedful import native
from heedful.kv_cache import BeamKeyValue, KeyValue

H, D = 2, 8  # heads, d_k
META = torch.device("meta")  # a tensor that is not on the CPU, without needing an accelerator


def cache(n: int = 2, s: int = 5, dtype: torch.dtype = torch.float32) -> KeyValue:
    return KeyValue(torch.randn(n, H, s, D, dtype=dtype), torch.randn(n, H, s, D, dtype=dtype))


def query(rows: int = 2) -> torch.Tensor:
    return torch.randn(rows, H, 1, D)


def test_a_bfloat16_cache_with_a_float32_query_is_refused():
    with pytest.raises(ValueError, match="keys: dtype bfloat16, expected float32"):
        native.decoding_attention(query(), cache(dtype=torch.bfloat16), None)


def refused_attention():
    """(what is wrong, q, kv, key_mask, what the error says)"""
    good = cache()
    yield "values unlike keys", query(), KeyValue(good.k, good.v.bfloat16()), None, "values: dtype"
    yield "shorter values", query(), KeyValue(good.k, good.v[:, :, :3]), None, "values: shape"
    yield "keys elsewhere", query(), KeyValue(good.k.to(META), good.v), None, "keys: on meta"
    yield "query elsewhere", query().to(META), good, None, "q: on meta"
    yield "other heads", torch.randn(2, H + 1, 1, D), good, None, "keys: shape"
    yield "other d_k", torch.randn(2, H, 1, D + 1), good, None, "keys: shape"
    strided = torch.randn(2, H, D, 5).transpose(2, 3)  # [n, H, S, d_k], d_k not in one piece
    yield "strided keys", query(), KeyValue(strided, good.v), None, "keys: strides"
    yield "rows of no sentence", query(3), good, None, "unexpected layout"
    short = torch.ones(2, 4, dtype=torch.bool)
    yield "a mask of fewer keys", query(), good, short, r"key_mask: shape \[2, 4\]"
    other = torch.ones(3, 5, dtype=torch.bool)
    yield "a mask of other sentences", query(), good, other, "key_mask: shape"
    yield "a mask elsewhere", query(), good, other[:2].to(META), "key_mask: on meta"


@pytest.mark.parametrize(
    "q, kv, key_mask, message",
    [case[1:] for case in refused_attention()],
    ids=[case[0] for case in refused_attention()],
)
def test_attention_refuses_what_its_kernel_cannot_read(q, kv, key_mask, message):
    with pytest.raises(ValueError, match=message):
        native.decoding_attention(q, kv, key_mask)


def beam_cache(n: int = 2, K: int = 3, steps: int = 4) -> BeamKeyValue:
    (beams,) = BeamKeyValue.from_first_step([cache(n, 1).reserve(8)], K)
    for _ in range(steps):
        beams = beams.append(cache(n * K, 1))
    return beams


@pytest.mark.parametrize("slot", [3, -1])
def test_attention_refuses_a_beam_slot_out_of_range(slot):
    beams = beam_cache()
    q = query(6)
    native.decoding_attention(q, beams, None)  # in range: fine
    origin = beams.history.origin.clone()
    origin[4, 2] = slot  # row 4's history through slot 3 of 3 (0, 1, 2), or -1
    beams.history.origin = origin
    with pytest.raises(ValueError, match=f"origin: indices from {min(slot, 0)} to {max(slot, 2)}"):
        native.decoding_attention(q, beams, None)


def candidates(logits=None, scores=None, **changes):
    masks = dict(banned=[1], eos_id=2, allow_eos=True, last=None) | changes
    logits = torch.randn(6, 10) if logits is None else logits
    scores = torch.zeros(2, 3) if scores is None else scores
    return native.beam_candidates(logits, scores, 4, **masks)


def test_beam_candidates_refuse_what_their_kernel_cannot_read():
    top, index = candidates()
    assert top.shape == index.shape == (2, 4)
    refused = {
        "logits: dtype float64": dict(logits=torch.randn(6, 10, dtype=torch.float64)),
        "logits: on meta": dict(logits=torch.randn(6, 10, device=META)),
        "logits: strides": dict(logits=torch.randn(10, 6).t()),
        "scores: on meta": dict(scores=torch.zeros(2, 3, device=META)),
        "unexpected shapes": dict(scores=torch.zeros(2, 4)),
        r"last: shape \[5\]": dict(last=torch.zeros(5, dtype=torch.bool)),
        "eos_id: 10, expected a token id from 0 to 9": dict(eos_id=10),
        "eos_id: -1": dict(eos_id=-1),
    }
    for message, change in refused.items():
        with pytest.raises(ValueError, match=message):
            candidates(**change)


def test_exp_gives_nan_for_nan_and_a_number_for_everything_else():
    nan, inf = math.nan, math.inf
    x = torch.tensor([nan, -inf, -1e30, -87.0, -1.0, 0.0, 1e-3, 1e30, inf])
    out = native.exp_nonpositive(x)
    assert math.isnan(out[0])
    floor = out[3].item()
    assert 0 < floor < 1e-37 and out[1] == out[2] == floor  # e^-87 below -87, -inf included
    assert out[4].item() == pytest.approx(math.exp(-1), rel=2**-22)
    assert (out[5:] == 1.0).all()  # e^0, and x > 0 (outside its domain) as 0


def test_exp_converts_no_nan_or_infinity_to_an_integer():
    """Converting NaN or a float beyond int's range to int is undefined behaviour in C, and
    today's compilers do not always turn it into a NaN: UBSan stops at the first one."""
    harness = native.HERE / "exp.h"
    program = f"""#include <stdio.h>
#include <math.h>
#include "{harness}"
int main(void) {{
    volatile float x[] = {{NAN, -NAN, INFINITY, -INFINITY, 1e30f, -1e30f, 100.0f}};
    for (int i = 0; i < 7; ++i) printf("%g\\n", exp_nonpositive(x[i]));
    return 0;
}}
"""
    build = native._cache_folder() / "ubsan"
    build.mkdir(parents=True, exist_ok=True)
    (build / "exp_test.c").write_text(program)
    flags = [f for f in native.FLAGS if f not in ("-shared", "-fPIC", "-fopenmp")]
    sanitize = ["-fsanitize=float-cast-overflow,shift,signed-integer-overflow",
                "-fno-sanitize-recover=all"]  # fmt: skip
    compiled = subprocess.run(
        [os.environ.get("CC", "cc"), *flags, *sanitize, str(build / "exp_test.c"),
         "-o", str(build / "exp_test"), "-lm"],
        capture_output=True, text=True,
    )  # fmt: skip
    assert compiled.returncode == 0, compiled.stderr
    ran = subprocess.run([str(build / "exp_test")], capture_output=True, text=True)
    assert ran.returncode == 0, ran.stderr
    values = [float(line) for line in ran.stdout.split()]
    assert math.isnan(values[0]) and math.isnan(values[1])
    assert values[2] == 1.0 and values[4] == 1.0 and values[6] == 1.0
    assert 0 < values[3] == values[5] < 1e-37


def test_nan_in_a_query_gives_nan_in_its_own_row_only():
    kv = cache()
    q = query()
    q[0, 1, 0, 3] = math.nan
    out = native.decoding_attention(q, kv, None)  # [B, H·d_k]
    assert out[0, D:].isnan().all()  # row 0, head 1
    expected = (q[:, :1] @ kv.k[:, :1].transpose(-1, -2) / math.sqrt(D)).softmax(-1) @ kv.v[:, :1]
    torch.testing.assert_close(out[0, :D], expected[0].flatten())  # row 0, head 0: untouched
    assert not out[1].isnan().any()


def test_nan_or_no_finite_logit_in_a_beam_leaves_the_candidates_defined():
    logits = torch.randn(6, 10)
    logits[0, 4] = math.nan  # sentence 0, beam 0
    logits[4] = -math.inf  # sentence 1, beam 1: -inf - -inf is NaN in its log-sum-exp
    top, index = candidates(logits)
    assert ((0 <= index) & (index < 3 * 10)).all()  # into each sentence's K·V candidates
    assert not top.isnan().all()
