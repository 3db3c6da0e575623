"""A trained model built for CPU inference, once, as it is loaded: the same function, faster.

    model = for_inference(model)                    # float32 linear layers through oneDNN
    model = for_inference(model, quantize="int8")   # int8 linear layers

Both give self-attention one product for its queries, keys and values (three products of the
same input, side by side), and let the output projection add a final logits bias (Marian's) as
its own bias. The faster layers are modules of their own put where the model's ``nn.Linear``
layers were: ``OneDNNLinear`` (float32) and PyTorch's dynamic int8 ``Linear``. Training never
sees them: ``Translator.load`` builds its model this way, and training's dev translations use a
copy (``inference_copy``).

Why oneDNN: PyTorch sends a float32 ``F.linear`` to MKL's sgemm, which on the AMD CPUs we
measured ran decoding-sized products at half oneDNN's speed or less (bench/decode.py).
"""

from __future__ import annotations

import copy
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
    for module in list(model.modules()):
        if isinstance(module, FeedForward) and module.activation in _POST_OPS:
            if module.activation is F.relu and type(module.w_2) is nn.Linear:
                module.w_2 = ReLUOutputLinear(module.w_2)
            module.w_1 = OneDNNLinear(module.w_1, post_op=module.activation)
            module.activation = _identity  # done by the first product, as it writes
    for parent in list(model.modules()):
        for name, child in parent.named_children():
            if type(child) is nn.Linear:
                setattr(parent, name, OneDNNLinear(child))
    return model


def inference_copy(model: nn.Module) -> nn.Module:
    """A copy of ``model`` built for inference (``for_inference``); ``model`` is unchanged."""
    return for_inference(copy.deepcopy(model))


def onednn_available() -> bool:
    return _linear_pointwise is not None and torch.backends.mkldnn.enabled


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
