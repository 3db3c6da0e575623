"""Faster inference on CPU, the same model: float32 linear layers through oneDNN, and dynamic int8
quantisation of the linear layers.

PyTorch sends a float32 ``F.linear`` to MKL's sgemm, which on the AMD CPUs we measured ran
decoding-sized products at half oneDNN's speed or less (bench/decode.py). ``onednn_linears`` lets a
model's linear layers compute through oneDNN for the duration of an inference call, with weights
reordered once into oneDNN's layout and kept while they do not change; the modules are given back
their own classes afterwards, so training never sees it.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from heedful.attention import MultiHeadAttention
from heedful.kv_cache import KeyValue
from heedful.layers import FeedForward


def quantize_model(model: nn.Module, kind: str = "int8") -> nn.Module:
    """PyTorch dynamic quantisation of every linear layer (weights int8 with one scale per output
    row, as CTranslate2; activations quantised on the fly), for CPU inference. Returns a new
    model; embeddings stay float.

    Fewer, larger products run faster at decoding sizes, so the quantised model also gets
    self-attention's Q, K and V as one fused matrix, and the output projection takes the final
    logits bias (Marian's) as its own bias.
    """
    if kind != "int8":
        raise ValueError(f"unknown quantization {kind!r}; the only one is int8")
    model = copy.deepcopy(model).eval()
    for module in _self_attentions(model):
        module.qkv_proj = _stacked_linear([module.q_proj, module.k_proj, module.v_proj])
        module.__class__ = _Int8SelfAttention
    bias = _foldable_logits_bias(model)
    if bias is not None:  # for good: the quantised projection keeps it as its own bias
        model.generator = _stacked_linear([model.generator], bias)
        model.logits_bias = None
    with warnings.catch_warnings():  # torch deprecates the API in favour of torchao
        warnings.simplefilter("ignore")
        torch.ao.quantization.quantize_dynamic(
            model,
            {nn.Linear: torch.ao.quantization.per_channel_dynamic_qconfig},
            dtype=torch.qint8,
            inplace=True,
        )
    return model


def is_quantized(model: nn.Module) -> bool:
    """Whether ``model``'s linear layers are int8 (``quantize_model``): their activations are
    quantised with one scale per product, so a row's result depends on the rows beside it."""
    dynamic = torch.ao.nn.quantized.dynamic.Linear
    return any(isinstance(m, dynamic) for m in model.modules())


def _foldable_logits_bias(model: nn.Module) -> Tensor | None:
    """A final logits bias (Marian's) that the output projection can take as its own bias, so
    that adding it costs no pass of its own over the logits; None when there is none to fold."""
    bias = getattr(model, "logits_bias", None)
    generator = getattr(model, "generator", None)
    if bias is None or type(generator) is not nn.Linear or generator.bias is not None:
        return None
    return bias


def _self_attentions(model: nn.Module) -> list[MultiHeadAttention]:
    """The model's self-attention modules (see ``_is_self_attention``)."""
    return [module for name, module in model.named_modules() if _is_self_attention(name, module)]


def _is_self_attention(name: str, module: nn.Module) -> bool:
    """A self-attention module (a layer's ``self_attn``): only they project Q, K and V from one
    input, so only they gain from a fused product; cross-attention projects K/V once."""
    return type(module) is MultiHeadAttention and name.rpartition(".")[2] == "self_attn"


def _stacked_linear(linears: list[nn.Linear], bias: Tensor | None = None) -> nn.Linear:
    """One float Linear computing the given ones side by side (and ``bias``, if given)."""
    weight = torch.cat([m.weight.detach() for m in linears])
    if bias is None and linears[0].bias is not None:
        bias = torch.cat([m.bias.detach() for m in linears])
    out = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    with torch.no_grad():
        out.weight.copy_(weight)
        if bias is not None:
            out.bias.copy_(bias)
    return out


def _split_qkv(qkv: Tensor, heads: int, d_head: int) -> tuple[Tensor, KeyValue]:
    """[B, T, 3·d_model] from one fused product -> the queries [B, H, T, d_k] and the keys and
    values by head: the views of qkv that ``MultiHeadAttention._split_heads`` makes of each
    third, made in one reshape rather than three calls (this runs in every decoding step)."""
    b, t, _ = qkv.shape
    q, k, v = qkv.view(b, t, 3, heads, d_head).permute(2, 0, 3, 1, 4).unbind(0)
    return q, KeyValue(k, v)


class _Int8SelfAttention(MultiHeadAttention):
    """Self-attention's queries, keys and values from one fused quantised product."""

    qkv_proj: nn.Module

    def _project_self(self, x: Tensor) -> tuple[Tensor, KeyValue]:
        return _split_qkv(self.qkv_proj(x), self.n_heads, self.d_head)


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
    """Self-attention's queries, keys and values from one fused product through oneDNN."""

    _onednn: tuple[Tensor, Tensor | None]

    def _project_self(self, x: Tensor) -> tuple[Tensor, KeyValue]:
        qkv = _linear_pointwise(x, *self._onednn, "none", [], "")
        return _split_qkv(qkv, self.n_heads, self.d_head)


# oneDNN applies these activations to a product's output as it writes it (a post-op)
_POST_OPS = {F.relu: ("relu", ""), F.gelu: ("gelu", "none"), F.silu: ("swish", "")}


class _OneDNNFeedForward(FeedForward):
    """The feed-forward network with its activation fused into the first product."""

    _post_op: tuple[str, str]

    def forward(self, x: Tensor) -> Tensor:
        attr, algorithm = self._post_op
        return self.w_2(_linear_pointwise(x, *self.w_1._onednn, attr, [], algorithm))


@contextmanager
def onednn_linears(model: nn.Module, weights: OneDNNWeights) -> Iterator[None]:
    """While inference runs (no autograd), let the model's float32 CPU linear layers compute
    through oneDNN: the same function, about twice as fast on the CPUs we measured. The model's
    modules get their own classes back on exit; quantised layers are left alone."""
    if _linear_pointwise is None or torch.is_grad_enabled() or not torch.backends.mkldnn.enabled:
        yield
        return
    swapped: list[tuple[nn.Module, type]] = []
    # while this runs, a final logits bias rides in the output projection's packed weights
    logits_bias = _foldable_logits_bias(model)
    generator = None if logits_bias is None else model.generator
    modules = list(model.named_modules())  # one walk of the module tree, not three
    for _, module in modules:
        if type(module) is nn.Linear and _is_float_cpu(module.weight):
            bias = logits_bias if module is generator else module.bias
            _swap(module, _OneDNNLinear, _onednn=weights.get(module, [module.weight], [bias]))
            swapped.append((module, nn.Linear))
    for name, module in modules:
        if not _is_self_attention(name, module):
            continue
        q, k, v = module.q_proj, module.k_proj, module.v_proj
        if isinstance(q, nn.Linear) and _is_float_cpu(q.weight):
            stacked = weights.get(module, [q.weight, k.weight, v.weight], [q.bias, k.bias, v.bias])
            _swap(module, _OneDNNAttention, _onednn=stacked)
            swapped.append((module, MultiHeadAttention))
    for _, module in modules:
        if type(module) is FeedForward and type(module.w_1) is _OneDNNLinear:
            post_op = _POST_OPS.get(module.activation)
            if post_op is not None:
                _swap(module, _OneDNNFeedForward, _post_op=post_op)
                swapped.append((module, FeedForward))
    fold = type(generator) is _OneDNNLinear
    if fold:
        model.logits_bias = None
    try:
        yield
    finally:
        if fold:
            model.logits_bias = logits_bias
        for module, kind in swapped:
            _swap(module, kind)
            vars(module).pop("_onednn", None)
            vars(module).pop("_post_op", None)


def _swap(module: nn.Module, kind: type, **values) -> None:
    """Give ``module`` the class ``kind`` and the attributes ``values`` (packed weights, post-op
    names: never parameters or modules), past nn.Module.__setattr__, whose checks cost 0.7 ms
    per translation call over the small model's 61 swapped modules (one sentence's call takes
    15-25 ms)."""
    vars(module).update(values)
    object.__setattr__(module, "__class__", kind)


def _is_float_cpu(weight: Tensor) -> bool:
    return weight.dtype == torch.float32 and weight.device.type == "cpu"
