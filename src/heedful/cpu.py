"""Faster inference on CPU, the same model: float32 linear layers through oneDNN, and dynamic int8
quantisation of the linear layers.

PyTorch sends a float32 ``F.linear`` to MKL's sgemm, which on the AMD CPUs we measured ran
decoding-sized products at half oneDNN's speed or less (bench/decode.py). ``onednn_linears`` lets a
model's linear layers compute through oneDNN for the duration of an inference call, with weights
reordered once into oneDNN's layout and kept while they do not change; the modules are given back
their own classes afterwards, so training never sees it.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import torch
from torch import Tensor, nn

from heedful.attention import KeyValue, MultiHeadAttention


def quantize_model(model: nn.Module, kind: str = "int8") -> nn.Module:
    """PyTorch dynamic quantisation of every linear layer (weights int8, activations quantised on
    the fly), for CPU inference. Returns a new model; embeddings stay float."""
    if kind != "int8":
        raise ValueError(f"unknown quantization {kind!r}; the only one is int8")
    with warnings.catch_warnings():  # torch deprecates the API in favour of torchao
        warnings.simplefilter("ignore")
        quantized = torch.ao.quantization.quantize_dynamic(
            model.eval(), {nn.Linear}, dtype=torch.qint8, inplace=False
        )
    return quantized


# --- a faster float32 path for CPU inference ----------------------------------------------------

_linear_pointwise = getattr(torch.ops.mkldnn, "_linear_pointwise", None)


class OneDNNWeights:
    """Linear weights reordered into oneDNN's blocked layout, kept while the weights do not change
    (a weight's version counter moves with every in-place update, as an optimizer step)."""

    def __init__(self) -> None:
        self._packs: dict[nn.Module, tuple[tuple, Tensor, Tensor | None]] = {}

    def get(self, module: nn.Module, weights: list[Tensor], biases: list[Tensor | None]):
        """(packed weight, bias) for the weights stacked (several: e.g. K and V fused)."""
        key = tuple((t.data_ptr(), t._version) for t in (*weights, *biases) if t is not None)
        hit = self._packs.get(module)
        if hit is None or hit[0] != key:
            weight = weights[0] if len(weights) == 1 else torch.cat(weights)
            bias = biases[0] if len(biases) == 1 else torch.cat(biases)
            hit = (key, torch.ops.mkldnn._reorder_linear_weight(weight.detach(), None), bias)
            self._packs[module] = hit
        return hit[1], hit[2]


class _OneDNNLinear(nn.Linear):
    """nn.Linear through oneDNN's float32 kernel. F.linear goes to MKL's sgemm, which on AMD
    CPUs ran decoding-sized products at half oneDNN's speed or less (bench/decode.py)."""

    _onednn: tuple[Tensor, Tensor | None]

    def forward(self, x: Tensor) -> Tensor:
        return _linear_pointwise(x, *self._onednn, "none", [], "")


class _OneDNNAttention(MultiHeadAttention):
    """The fused K/V projection of self-attention through oneDNN."""

    _onednn: tuple[Tensor, Tensor | None]

    def _project_self(self, x: Tensor) -> KeyValue:
        k, v = _linear_pointwise(x, *self._onednn, "none", [], "").chunk(2, dim=-1)
        return KeyValue(self._split_heads(k), self._split_heads(v))


@contextmanager
def onednn_linears(model: nn.Module, weights: OneDNNWeights) -> Iterator[None]:
    """While inference runs (no autograd), let the model's float32 CPU linear layers compute
    through oneDNN: the same function, about twice as fast on the CPUs we measured. The model's
    modules get their own classes back on exit; quantised layers are left alone."""
    if _linear_pointwise is None or torch.is_grad_enabled() or not torch.backends.mkldnn.enabled:
        yield
        return
    swapped: list[tuple[nn.Module, type]] = []
    for module in model.modules():
        kind = type(module)
        if kind is nn.Linear and _is_float_cpu(module.weight):
            module._onednn = weights.get(module, [module.weight], [module.bias])
            swapped.append((module, kind))
            module.__class__ = _OneDNNLinear
        elif kind is MultiHeadAttention:
            k, v = module.k_proj, module.v_proj
            if isinstance(k, nn.Linear) and _is_float_cpu(k.weight):
                module._onednn = weights.get(module, [k.weight, v.weight], [k.bias, v.bias])
                swapped.append((module, kind))
                module.__class__ = _OneDNNAttention
    try:
        yield
    finally:
        for module, kind in swapped:
            module.__class__ = kind
            vars(module).pop("_onednn", None)


def _is_float_cpu(weight: Tensor) -> bool:
    return weight.dtype == torch.float32 and weight.device.type == "cpu"
