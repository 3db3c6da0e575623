"""A trained model built for CPU inference, once, as it is loaded: the same function, faster.

    model = for_inference(model)                    # float32 linear layers through oneDNN
    model = for_inference(model, quantize="int8")   # int8 linear layers

Both give self-attention one product for its queries, keys and values (three products of the
same input, side by side), and let the output projection add a final logits bias (Marian's) as
its own bias. The faster layers are modules of their own put where the model's ``nn.Linear``
layers were: ``OneDNNLinear`` (float32), and for int8 ``OneDNNInt8Linear`` where the CPU has
AMX tiles (``onednn_int8_preferred``), else PyTorch's dynamic int8 ``Linear``. Training never
sees them: ``Translator.load`` builds its model this way, and training's dev translations use a
copy (``inference_copy``).

Why oneDNN: PyTorch sends a float32 ``F.linear`` to MKL's sgemm, which on the AMD CPUs we
measured ran decoding-sized products at half oneDNN's speed or less (bench/decode.py).
"""

from __future__ import annotations

import copy
import os
import warnings

import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.nn.utils import skip_init

from heedful import native
from heedful.attention import MultiHeadAttention
from heedful.layers import FeedForward

QUANTIZATIONS = ("int8",)

_linear_pointwise = getattr(torch.ops.mkldnn, "_linear_pointwise", None)
_qlinear = getattr(getattr(torch.ops, "onednn", None), "qlinear_pointwise", None)

# oneDNN applies these activations to a product's output as it writes it (a post-op)
_POST_OPS = {F.relu: ("relu", ""), F.gelu: ("gelu", "none"), F.silu: ("swish", "")}


def for_inference(model: nn.Module, quantize: str | None = None) -> nn.Module:
    """``model`` (changed in place, and returned, in eval mode) built for inference on the CPU:
    int8 linear layers with ``quantize="int8"`` (PyTorch dynamic quantisation: weights int8 with
    one scale per output row, as CTranslate2, activations quantised on the fly; embeddings stay
    float), else float32 linear layers through oneDNN where the weights are float32 on the CPU.
    A model on another device, or in another precision, is left as it is."""
    if quantize is not None and quantize not in QUANTIZATIONS:
        raise ValueError(f"unknown quantization {quantize!r}; the only one is int8")
    model.eval()
    weight = next(model.parameters())
    if quantize is not None and weight.device.type != "cpu":
        raise ValueError(f"int8 runs on the CPU; this model is on {weight.device}")
    if weight.device.type != "cpu" or (weight.dtype != torch.float32 and quantize is None):
        return model
    if quantize is None and not onednn_available():
        return model
    _fold_logits_bias(model)
    for attention in _self_attentions(model):
        attention.fuse_self_projections()
    if quantize == "int8" and onednn_int8_preferred():
        _linear_layers_as(model, OneDNNInt8Linear)
        return model
    if quantize == "int8":
        with warnings.catch_warnings():  # torch deprecates the API in favour of torchao
            warnings.simplefilter("ignore")
            torch.ao.quantization.quantize_dynamic(
                model,
                {nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig},
                dtype=torch.qint8,
                inplace=True,
            )
        return model
    _linear_layers_as(model, OneDNNLinear, sparse_relu_output=True)
    return model


def _linear_layers_as(model: nn.Module, layer: type, sparse_relu_output: bool = False) -> None:
    """Every ``nn.Linear`` of ``model`` replaced by ``layer(linear)``; a feed-forward layer's
    activation applied by its first product as it writes, and with ``sparse_relu_output`` a
    ReLU layer's second product a ``ReLUOutputLinear``."""
    for module in list(model.modules()):
        if isinstance(module, FeedForward) and module.activation in _POST_OPS:
            relu = module.activation is F.relu
            if sparse_relu_output and relu and type(module.w_2) is nn.Linear:
                module.w_2 = ReLUOutputLinear(module.w_2)
            module.w_1 = layer(module.w_1, post_op=module.activation)
            module.activation = _identity  # done by the first product, as it writes
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            if type(child) is nn.Linear:
                setattr(parent, name, layer(child))


def inference_copy(model: nn.Module) -> nn.Module:
    """A copy of ``model`` built for inference (``for_inference``); ``model`` is unchanged."""
    return for_inference(copy.deepcopy(model))


def onednn_available() -> bool:
    return _linear_pointwise is not None and torch.backends.mkldnn.enabled


def onednn_int8_preferred() -> bool:
    """Whether int8 models use ``OneDNNInt8Linear`` rather than PyTorch's dynamic int8 layers:
    where the CPU has AMX tiles (Intel Xeon since Sapphire Rapids), whose int8 products oneDNN
    computes 2.5x faster than PyTorch's dynamic int8 layer on the bundled models' output
    projection (bench/README.md), and the native kernels quantise the inputs. Elsewhere (AMD
    Zen 4 among them) the dynamic layers stay, as measured there. ``HEEDFUL_INT8=dynamic`` or
    ``=onednn`` chooses."""
    choice = os.environ.get("HEEDFUL_INT8", "")
    if choice not in ("", "dynamic", "onednn"):
        raise ValueError(f"HEEDFUL_INT8={choice!r}: expected dynamic or onednn")
    if choice:
        return choice == "onednn" and _qlinear is not None
    amx = getattr(torch.cpu, "_is_amx_tile_supported", lambda: False)
    return _qlinear is not None and amx() and native.available()


def is_onednn(model: nn.Module) -> bool:
    """Whether every linear layer of ``model`` computes through oneDNN (float32,
    ``for_inference``): a row's result does not depend on the rows beside it."""
    linears = [m for m in model.modules() if isinstance(m, OneDNNLinear | nn.Linear)]
    return bool(linears) and all(isinstance(m, OneDNNLinear) for m in linears)


class OneDNNLinear(nn.Module):
    """A float32 linear layer computed by oneDNN, its weight reordered once into oneDNN's
    blocked layout (again if the weight changes in place), and an activation (``post_op``:
    ReLU, GELU, SiLU) applied as the product is written. With autograd on it computes as
    ``nn.Linear`` does."""

    def __init__(self, linear: nn.Linear, post_op=None):
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight, self.bias = linear.weight, linear.bias
        self.activation = post_op
        self._post_op = _POST_OPS[post_op] if post_op is not None else ("none", "")
        self._packed: tuple[tuple[int, int], Tensor] | None = None

    def forward(self, x: Tensor) -> Tensor:
        if torch.is_grad_enabled() and self.weight.requires_grad:
            y = F.linear(x, self.weight, self.bias)
            return y if self.activation is None else self.activation(y)
        version = (self.weight.data_ptr(), self.weight._version)
        if self._packed is None or self._packed[0] != version:
            packed = torch.ops.mkldnn._reorder_linear_weight(self.weight.detach(), None)
            self._packed = (version, packed)
        attr, algorithm = self._post_op
        return _linear_pointwise(x, self._packed[1], self.bias, attr, [], algorithm)

    def extra_repr(self) -> str:
        post = f", post_op={self._post_op[0]}" if self.activation is not None else ""
        return f"in_features={self.in_features}, out_features={self.out_features}{post}"


class OneDNNInt8Linear(nn.Module):
    """An int8 linear layer computed by oneDNN (with AMX tiles where the CPU has them): the
    weight int8 with one scale per output row (symmetric, the range of its largest magnitude,
    as ``quantize_dynamic``'s per-channel weights), packed once; the input quantised at each
    call to uint8 with one scale and zero point for the whole batch (``native.quantize_u8``,
    the full 0-255 range, where the dynamic layer keeps 7 bits); the product, its bias and an
    activation (``post_op``: ReLU, GELU, SiLU) written as float32 in one oneDNN call. As with
    the dynamic layer, a row's result may depend on the rows beside it (their common scale)."""

    def __init__(self, linear: nn.Linear, post_op=None):
        super().__init__()
        self.in_features, self.out_features = linear.in_features, linear.out_features
        weight = linear.weight.detach().float()
        scale = (weight.abs().amax(dim=1) / 127.5).clamp_min(torch.finfo(torch.float32).eps)
        values = (weight / scale[:, None]).round().clamp(-128, 127).to(torch.int8)
        self.weight_scale, self.weight_zero = scale, torch.zeros_like(scale, dtype=torch.int64)
        self.packed = torch.ops.onednn.qlinear_prepack(values, None)  # oneDNN's layout
        bias = linear.bias
        self.bias = None if bias is None else bias.detach().float().clone()
        self.activation = post_op
        self._post_op = _POST_OPS[post_op] if post_op is not None else ("none", "")

    def forward(self, x: Tensor) -> Tensor:
        rows = x.reshape(-1, self.in_features)
        if native.handles(rows):
            values, scale, zero = native.quantize_u8(rows)
        else:
            with warnings.catch_warnings():  # torch deprecates quantised tensors
                warnings.simplefilter("ignore")
                quantized = torch.quantize_per_tensor_dynamic(
                    rows.contiguous().float(), torch.quint8, False
                )
            values = quantized.int_repr()
            scale, zero = quantized.q_scale(), quantized.q_zero_point()
        attr, algorithm = self._post_op
        y = _qlinear(values, scale, zero, self.packed, self.weight_scale, self.weight_zero,
                     self.bias, 1.0, 0, torch.float32, attr, [], algorithm)  # fmt: skip
        return y.view(*x.shape[:-1], self.out_features)

    def extra_repr(self) -> str:
        post = f", post_op={self._post_op[0]}" if self.activation is not None else ""
        return f"in_features={self.in_features}, out_features={self.out_features}{post}"


class ReLUOutputLinear(nn.Module):
    """A ReLU feed-forward layer's second product, from its nonzero inputs only (heedful.native's
    ``relu_linear``): after the ReLU, 92-97% of them are zero in the bundled models' decoders,
    and this product took 2.8x less time than oneDNN's dense one on their es -> en dev set.
    Without the native kernels, or under autograd, it is a ``OneDNNLinear``."""

    def __init__(self, linear: nn.Linear):
        super().__init__()
        self.dense = OneDNNLinear(linear)
        self._transposed: tuple[tuple[int, int], Tensor] | None = None

    def forward(self, x: Tensor) -> Tensor:
        weight = self.dense.weight
        if (torch.is_grad_enabled() and weight.requires_grad) or not native.handles(x):
            return self.dense(x)
        version = (weight.data_ptr(), weight._version)
        if self._transposed is None or self._transposed[0] != version:
            self._transposed = (version, weight.detach().t().contiguous())
        bias = None if self.dense.bias is None else self.dense.bias.detach()
        return native.relu_linear(x, self._transposed[1], bias)

    def extra_repr(self) -> str:
        return f"in_features={self.dense.in_features}, out_features={self.dense.out_features}"


def _identity(x: Tensor) -> Tensor:
    return x


def _fold_logits_bias(model: nn.Module) -> None:
    """A final logits bias (Marian's) becomes the output projection's own bias, so that adding
    it costs no pass of its own over the logits."""
    bias = getattr(model, "logits_bias", None)
    generator = getattr(model, "generator", None)
    if bias is None or type(generator) is not nn.Linear or generator.bias is not None:
        return
    # skip_init: no initialisation, so no draw from the random state (training's, when its
    # dev translations build a copy)
    folded = skip_init(nn.Linear, generator.in_features, generator.out_features,
                       device=bias.device, dtype=generator.weight.dtype)  # fmt: skip
    with torch.no_grad():
        folded.weight = generator.weight  # shared with the embeddings, when they are
        folded.bias.copy_(bias)
    model.generator = folded
    model.logits_bias = None


def _self_attentions(model: nn.Module) -> list[MultiHeadAttention]:
    """The model's self-attention modules (a layer's ``self_attn``): only they project Q, K and
    V from one input, so only they gain from a fused product; cross-attention projects K/V
    once per source."""
    return [
        module for name, module in model.named_modules()
        if isinstance(module, MultiHeadAttention) and name.rpartition(".")[2] == "self_attn"
    ]  # fmt: skip
