"""heedful.inference.OneDNNInt8Linear: oneDNN's int8 product (AMX where the CPU has it) against
the float product, with and without the native quantisation, and which int8 layer a model gets."""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from heedful import inference
from heedful.inference import OneDNNInt8Linear, onednn_int8_preferred


def _relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    return float((got - want).norm() / want.norm())


@pytest.mark.parametrize("post_op", [None, F.relu, F.gelu])
@pytest.mark.parametrize("bias", [True, False])
def test_onednn_int8_linear_is_close_to_the_float_product(post_op, bias):
    torch.manual_seed(3)
    linear = nn.Linear(256, 96, bias=bias)
    x = torch.randn(2, 7, 256)
    want = linear(x) if post_op is None else post_op(linear(x))
    with torch.inference_mode():
        got = OneDNNInt8Linear(linear, post_op=post_op)(x)
    assert got.shape == (2, 7, 96) and got.dtype is torch.float32
    assert _relative_error(got, want.detach()) < 0.02
    if post_op is F.relu:
        assert (got >= 0).all() and (got == 0).sum() > got.numel() // 4


def test_onednn_int8_linear_is_more_exact_than_pytorchs_dynamic_layer():
    torch.manual_seed(4)
    linear, x = nn.Linear(256, 512), torch.randn(64, 256)
    with warnings.catch_warnings():  # torch deprecates the API in favour of torchao
        warnings.simplefilter("ignore")
        dynamic = torch.ao.quantization.quantize_dynamic(
            nn.Sequential(linear), {nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig}
        )
    with torch.inference_mode():
        want = linear(x)
        ours, theirs = OneDNNInt8Linear(linear)(x), dynamic(x)
    # all 8 bits of the input against the dynamic layer's 7 (reduce_range): about half the error
    assert _relative_error(ours, want) < 0.7 * _relative_error(theirs, want)


def test_the_native_quantisation_and_pytorchs_give_the_same_product(monkeypatch):
    torch.manual_seed(5)
    layer = OneDNNInt8Linear(nn.Linear(128, 64))
    x = torch.randn(9, 128)
    with torch.inference_mode():
        fast = layer(x)
        monkeypatch.setenv("HEEDFUL_NATIVE", "0")
        slow = layer(x)
    assert torch.equal(fast, slow)


def test_heedful_int8_chooses_the_layer(monkeypatch):
    monkeypatch.setenv("HEEDFUL_INT8", "onednn")
    assert onednn_int8_preferred()
    monkeypatch.setenv("HEEDFUL_INT8", "dynamic")
    assert not onednn_int8_preferred()
    monkeypatch.setenv("HEEDFUL_INT8", "fbgemm")
    with pytest.raises(ValueError, match="HEEDFUL_INT8='fbgemm': expected dynamic or onednn"):
        onednn_int8_preferred()
    monkeypatch.delenv("HEEDFUL_INT8")
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    assert not onednn_int8_preferred()  # as measured on CPUs without AMX
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True)
    assert onednn_int8_preferred()
    monkeypatch.setattr(inference, "_qlinear", None)  # a PyTorch without oneDNN's int8 product
    assert not onednn_int8_preferred()
