"""Export a model to CTranslate2, a fast C++ inference engine, through its own model-spec API.

    >>> export_ctranslate2("models/es-en", "models/es-en-ct2")
    >>> import ctranslate2
    >>> translator = ctranslate2.Translator("models/es-en-ct2")
    >>> translator.translate_batch([tokenizer.pieces(tokenizer.encode(text, add_eos=False))])

Works for heedful's own model directories and for imported Marian ones. CTranslate2 reads
sentencepiece pieces, not ids: its vocabulary is the tokenizer's pieces in id order, and the
source's end-of-sentence token is added for you (``add_source_eos``).

Three things CTranslate2 would otherwise do its own way are written into the export: the position
table itself (heedful's, whether it interleaves sin and cos as the paper or concatenates them as
Marian), the layer-norm epsilon, and the ids heedful's search never generates (padding and the
start token), which get a logit bias of -inf.

``ctranslate2`` is an optional dependency: ``pip install ctranslate2``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import torch
from torch import nn

from heedful.model import Transformer


def _ctranslate2():
    try:
        import ctranslate2
    except ImportError as e:
        raise ImportError(
            "exporting to CTranslate2 needs the ctranslate2 package: pip install ctranslate2"
        ) from e
    return ctranslate2


def export_ctranslate2(
    model_dir: str | Path,
    out_dir: str | Path,
    *,
    quantization: str | None = None,
    force: bool = False,
) -> Path:
    """Write a CTranslate2 model for a heedful or Marian model directory; returns ``out_dir``.

    ``quantization``: CTranslate2's weight type (int8, int8_float32, float16, ...); None keeps
    float32. ``force``: replace ``out_dir`` if it exists.
    """
    from heedful.checkpoint import load_model_dir
    from heedful.interop.marian import is_marian_dir, load_marian_model
    from heedful.tokenizer import UNK_ID

    model_dir, out_dir = Path(model_dir), Path(out_dir)
    ctranslate2 = _ctranslate2()
    if out_dir.exists() and not force:
        raise FileExistsError(f"{out_dir} exists; pass --force to replace it")
    if is_marian_dir(model_dir):
        model, tokenizer, _ = load_marian_model(model_dir)
        source_pieces, unk_id = tokenizer.source_pieces, tokenizer.unk_id
    else:
        model, tokenizer, _ = load_model_dir(model_dir)
        source_pieces, unk_id = tokenizer.pieces, UNK_ID
    if not isinstance(model, Transformer):
        raise ValueError(f"{model_dir}: only encoder-decoder Transformers export to CTranslate2")
    config = model.config
    source = _vocabulary(source_pieces, config.src_vocab_size, tokenizer.vocab_size)
    target_known = getattr(tokenizer, "target_vocab_size", tokenizer.vocab_size)
    target = _vocabulary(tokenizer.pieces, config.tgt_vocab_size, target_known)
    spec = transformer_spec(model, source, target, unk_token=source[unk_id], where=model_dir)

    class _SpecConverter(ctranslate2.converters.Converter):
        def _load(self):
            return spec

    _SpecConverter().convert(str(out_dir), quantization=quantization, force=True)
    return out_dir


def _vocabulary(pieces, size: int, known: int) -> list[str]:
    """The model's ``size`` token names in id order, each distinct (CTranslate2 maps by name)."""
    tokens = pieces(list(range(min(size, known))))
    tokens += [f"<heedful:unused:{i}>" for i in range(len(tokens), size)]
    seen = set()
    for i, token in enumerate(tokens):
        if token in seen:
            tokens[i] = f"<heedful:duplicate:{i}>"
        seen.add(tokens[i])
    return tokens


def transformer_spec(
    model: Transformer, source: list[str], target: list[str], *, unk_token: str, where: Path
):
    """A ctranslate2 TransformerSpec holding ``model``'s weights, vocabularies and settings."""
    _ctranslate2()
    from ctranslate2.specs import common_spec, transformer_spec

    from heedful.translator import Translator

    config = model.config
    if config.attention_window is not None:
        raise ValueError(f"{where}: CTranslate2 has no restricted (windowed) self-attention")
    activation = {"relu": common_spec.Activation.RELU, "gelu": common_spec.Activation.GELU,
                  "swish": common_spec.Activation.SWISH}[config.activation]  # fmt: skip
    spec = transformer_spec.TransformerSpec.from_config(
        (config.n_encoder_layers, config.n_decoder_layers), config.n_heads,
        pre_norm=config.norm_first, activation=activation,
    )  # fmt: skip
    scale = math.sqrt(config.d_model) if config.scale_embeddings else 1.0
    _set_stack(spec.encoder, model.src_embed, model.encoder, scale)
    _set_stack(spec.decoder, model.tgt_embed, model.decoder, scale)
    spec.decoder.projection.weight = _array(model.generator.weight)
    bias = torch.zeros(config.tgt_vocab_size)
    if model.logits_bias is not None:
        bias = model.logits_bias.detach().float().clone()
    bias[Translator(model, None).banned_ids()] = float("-inf")  # what heedful's search bans
    spec.decoder.projection.bias = _array(bias)

    spec.register_source_vocabulary(source)
    spec.register_target_vocabulary(target)
    spec.config.unk_token = unk_token
    spec.config.bos_token = target[config.bos_id]
    spec.config.eos_token = target[config.eos_id]
    spec.config.decoder_start_token = target[config.start_id]
    spec.config.add_source_eos = True
    spec.config.layer_norm_epsilon = config.layer_norm_eps
    return spec


def _set_stack(spec, embed, stack, scale: float) -> None:
    """Embeddings, positions, layers (and the pre-LN final norm) of one encoder or decoder."""
    spec.scale_embeddings = scale
    spec.position_encodings.encodings = _array(embed.positions)
    tokens = spec.embeddings[0] if isinstance(spec.embeddings, list) else spec.embeddings
    tokens.weight = _array(embed.tokens.weight)
    if stack.norm is not None:
        _set_norm(spec.layer_norm, stack.norm)
    for layer_spec, layer in zip(spec.layer, stack.layers, strict=True):
        _set_attention(layer_spec.self_attention, layer.self_attn, self_attention=True)
        _set_norm(layer_spec.self_attention.layer_norm, layer.self_attn_residual.norm)
        if hasattr(layer, "cross_attn"):
            _set_attention(layer_spec.attention, layer.cross_attn, self_attention=False)
            _set_norm(layer_spec.attention.layer_norm, layer.cross_attn_residual.norm)
        _set_linear(layer_spec.ffn.linear_0, layer.ffn.w_1)
        _set_linear(layer_spec.ffn.linear_1, layer.ffn.w_2)
        _set_norm(layer_spec.ffn.layer_norm, layer.ffn_residual.norm)


def _set_attention(spec, attention, *, self_attention: bool) -> None:
    """CTranslate2 fuses Q, K, V into one projection (self-attention) or Q and KV (cross)."""
    q, k, v = attention.q_proj, attention.k_proj, attention.v_proj
    groups = [[q, k, v]] if self_attention else [[q], [k, v]]
    for linear_spec, group in zip(spec.linear, groups, strict=False):
        linear_spec.weight = np.concatenate([_array(m.weight) for m in group])
        linear_spec.bias = np.concatenate([_array(m.bias) for m in group])
    _set_linear(spec.linear[-1], attention.out_proj)


def _set_linear(spec, linear: nn.Linear) -> None:
    spec.weight = _array(linear.weight)
    spec.bias = _array(linear.bias)


def _set_norm(spec, norm: nn.LayerNorm) -> None:
    spec.gamma = _array(norm.weight)
    spec.beta = _array(norm.bias)


def _array(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().float().cpu().numpy().copy()
