"""Run Marian / OPUS-MT checkpoints saved by HF transformers, offline, on heedful's Transformer.

A Marian model is the paper's post-LN Transformer with a few settings heedful's ModelConfig
already names: a swish feed-forward activation, concatenated sinusoids (every sin, then every cos),
embeddings scaled by sqrt(d_model), a final logits bias, and a decoder that starts from the pad
token. Such a directory holds::

    config.json             model_type "marian" and the shape (MarianConfig's fields)
    model.safetensors       the weights (or pytorch_model.bin, read with weights_only=True)
    source.spm, target.spm  sentencepiece models that cut text into pieces
    vocab.json              piece -> id (target_vocab.json too when the vocabularies are separate)

``heedful.interop.marian_tokenizer.MarianTokenizer`` cuts text exactly as HF's ``MarianTokenizer``.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from heedful.config import ModelConfig
from heedful.files import load_tensors, read_json
from heedful.interop.marian_tokenizer import MarianTokenizer
from heedful.layers import sinusoidal_positions
from heedful.model import Transformer

__all__ = ["MarianTokenizer", "is_marian_dir", "load_marian_model", "marian_config"]

CONFIG_FILE = "config.json"
WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
# Files may repeat a tied or shared table under these names too.
TIED_COPIES = {
    "lm_head.weight",
    "model.shared.weight",
    "model.encoder.embed_tokens.weight",
    "model.decoder.embed_tokens.weight",
}
ACTIVATIONS = {"swish": "swish", "silu": "swish", "gelu": "gelu", "relu": "relu"}


def is_marian_dir(directory: str | Path) -> bool:
    """True if ``directory`` has a config.json whose model_type is "marian"."""
    path = Path(directory) / CONFIG_FILE
    if not path.is_file():
        return False
    try:
        return json.loads(path.read_text(encoding="utf-8")).get("model_type") == "marian"
    except (ValueError, UnicodeDecodeError, AttributeError):
        return False


# --- configuration ----------------------------------------------------------------------------


def marian_config(hf: dict[str, Any], source: str | Path = CONFIG_FILE) -> ModelConfig:
    """A MarianConfig dict (config.json) -> the ModelConfig that computes the same function."""

    def get(name: str, default: Any = ...) -> Any:
        if name in hf and hf[name] is not None:
            return hf[name]
        if default is ...:
            raise ValueError(f"{source}: missing field {name!r}")
        return default

    if hf.get("model_type") != "marian":
        raise ValueError(f"{source}: model_type is {hf.get('model_type')!r}, expected 'marian'")
    for enc, dec in [("encoder_attention_heads", "decoder_attention_heads"),
                     ("encoder_ffn_dim", "decoder_ffn_dim")]:  # fmt: skip
        if get(enc) != get(dec):
            raise ValueError(f"{source}: {enc} != {dec}; heedful needs them equal")
    activation = get("activation_function", "gelu")
    if activation not in ACTIVATIONS:
        raise ValueError(f"{source}: activation_function {activation!r} is not supported")
    eos = get("eos_token_id")
    if isinstance(eos, list):
        if len(eos) != 1:
            raise ValueError(f"{source}: several eos_token_id {eos}; heedful needs one")
        eos = eos[0]
    vocab_size = get("vocab_size")
    shared_vocab = get("share_encoder_decoder_embeddings", True)
    tied_output = get("tie_word_embeddings", True)
    pad = get("pad_token_id")
    # tie_word_embeddings false unties every table in HF 5 (HF 4 saved equal copies): "none".
    sharing = ("all" if shared_vocab else "decoder") if tied_output else "none"
    return ModelConfig(
        src_vocab_size=vocab_size,
        tgt_vocab_size=vocab_size if shared_vocab else get("decoder_vocab_size", vocab_size),
        d_model=get("d_model"),
        n_heads=get("encoder_attention_heads"),
        d_ff=get("encoder_ffn_dim"),
        n_encoder_layers=get("encoder_layers"),
        n_decoder_layers=get("decoder_layers"),
        dropout=get("dropout", 0.1),
        activation=ACTIVATIONS[activation],
        norm_first=False,
        share_embeddings=sharing,
        scale_embeddings=bool(get("scale_embedding", False)),
        positional="sinusoidal_concat",
        max_positions=get("max_position_embeddings"),
        layer_norm_eps=1e-5,  # torch's default, which Marian's nn.LayerNorm layers use
        output_bias=True,
        pad_id=pad,
        bos_id=pad,  # Marian has no BOS: the decoder starts from pad
        eos_id=eos,
        decoder_start_id=get("decoder_start_token_id", pad),
    )


def generation_defaults(directory: Path, hf: dict[str, Any]) -> dict[str, Any]:
    """How HF generates with this model, from generation_config.json (or, in older directories,
    config.json): num_beams, max_length, length_penalty; the single tokens never to generate
    (``banned_ids``, from bad_words_ids: [[pad]] in OPUS-MT models);
    ``forced_eos_token_id``, the token an output cut at max_length ends with (or None); and
    ``carry_unreadable`` False: an imported model translates as HF and CTranslate2 do, unknown
    pieces included (heedful.unknown_words is for models heedful trained)."""
    path = directory / "generation_config.json"
    gen = {**hf, **(read_json(path) if path.is_file() else {})}
    out = {k: gen[k] for k in ("num_beams", "max_length", "length_penalty") if k in gen}
    bad = gen.get("bad_words_ids") or []
    out["banned_ids"] = sorted({ids[0] for ids in bad if len(ids) == 1})
    out["forced_eos_token_id"] = gen.get("forced_eos_token_id")
    out["carry_unreadable"] = False
    return out


# --- weights ----------------------------------------------------------------------------------


def read_weights(directory: str | Path) -> tuple[dict[str, Tensor], Path]:
    """model.safetensors, or else pytorch_model.bin through torch.load(weights_only=True)."""
    directory = Path(directory)
    for name in WEIGHT_FILES:
        path = directory / name
        if path.is_file():
            return (load_tensors(path) if name.endswith(".safetensors") else load_bin(path)), path
    if (directory / "model.safetensors.index.json").is_file():
        raise ValueError(f"{directory}: sharded checkpoints are not supported")
    raise FileNotFoundError(f"{directory}: missing file model.safetensors (or pytorch_model.bin)")


def load_bin(path: Path) -> dict[str, Tensor]:
    """A PyTorch state dict, read with torch's weights_only unpickler, which rebuilds tensors and
    refuses everything else (a crafted pickle's code never runs)."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except (pickle.UnpicklingError, RuntimeError, EOFError, OSError, ValueError) as e:
        # torch's message suggests weights_only=False; keep only its reason, e.g. "Unsupported
        # global: GLOBAL io.open was not an allowed global by default".
        _, _, reason = str(e).partition("WeightsUnpickler error:")
        reason = reason.strip().split("\n")[0].split(". ")[0] or type(e).__name__
        raise ValueError(
            f"{path}: refused: not a plain tensor checkpoint ({reason}). heedful never "
            "unpickles Python objects; convert the file to model.safetensors with a tool you trust"
        ) from e
    if not isinstance(state, dict) or not all(isinstance(v, Tensor) for v in state.values()):
        raise ValueError(f"{path}: expected a flat dict of tensors")
    return state


def _layer_names(decoder: bool) -> dict[str, str]:
    """heedful name -> Marian name, within one layer."""
    names = {}
    attention = [("self_attn", "self_attn", "self_attn_layer_norm")]
    if decoder:
        attention.append(("cross_attn", "encoder_attn", "encoder_attn_layer_norm"))
    for ours, theirs, norm in attention:
        for w in ("weight", "bias"):
            for p in ("q", "k", "v", "out"):
                names[f"{ours}.{p}_proj.{w}"] = f"{theirs}.{p}_proj.{w}"
            names[f"{ours}_residual.norm.{w}"] = f"{norm}.{w}"
    for w in ("weight", "bias"):
        names[f"ffn.w_1.{w}"] = f"fc1.{w}"
        names[f"ffn.w_2.{w}"] = f"fc2.{w}"
        names[f"ffn_residual.norm.{w}"] = f"final_layer_norm.{w}"
    return names


def marian_state_dict(
    tensors: dict[str, Tensor], model: Transformer, source: Path
) -> dict[str, Tensor]:
    """Marian's tensors -> a full state dict for ``model`` (every alias of a shared tensor)."""
    used: set[str] = set()

    def take(*names: str) -> Tensor:
        for name in names:
            if name in tensors:
                used.add(name)
                return tensors[name]
        raise ValueError(f"{source}: missing tensor {names[0]}")

    config = model.config
    # A tied table is saved once, as model.shared. Untied (tie_word_embeddings false), HF 5 uses
    # each side's own table and leaves model.shared unused; HF 4 files hold equal copies.
    src = take("model.encoder.embed_tokens.weight", "model.shared.weight")
    tgt = take("model.decoder.embed_tokens.weight", "model.shared.weight")
    out = {
        "src_embed.tokens.weight": src,
        "tgt_embed.tokens.weight": tgt,
        "generator.weight": tgt if config.share_embeddings != "none" else take("lm_head.weight"),
        "logits_bias": take("final_logits_bias").reshape(-1),
    }
    for side, n_layers in [("encoder", config.n_encoder_layers),
                           ("decoder", config.n_decoder_layers)]:  # fmt: skip
        for i in range(n_layers):
            for ours, theirs in _layer_names(side == "decoder").items():
                out[f"{side}.layers.{i}.{ours}"] = take(f"model.{side}.layers.{i}.{theirs}")
    for side in ("encoder", "decoder"):
        name = f"model.{side}.embed_positions.weight"
        if name in tensors:  # older checkpoints store the sinusoids: make sure they are ours
            used.add(name)
            table = tensors[name].float()
            expected = sinusoidal_positions(table.shape[0], table.shape[1], config.positional)
            if table.shape[1] != config.d_model or not torch.allclose(table, expected, atol=1e-4):
                raise ValueError(f"{source}: {name} is not Marian's concatenated sinusoids")
    unused = sorted(set(tensors) - used - TIED_COPIES)
    if unused:
        raise ValueError(f"{source}: tensors heedful does not know: {unused[:5]}")
    return out


def load_marian_model(directory: str | Path, device: str | torch.device = "cpu"):
    """A Marian directory -> (Transformer in eval mode, MarianTokenizer, meta dict)."""
    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"model directory not found: {directory}")
    hf = read_json(directory / CONFIG_FILE)
    config = marian_config(hf, directory / CONFIG_FILE)
    tokenizer = MarianTokenizer.load(directory)  # checks the tokenizer files before the weights
    tensors, source = read_weights(directory)
    model = Transformer(config)
    state = marian_state_dict(tensors, model, source)
    try:
        model.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{source}: weights do not fit {directory / CONFIG_FILE} ({e})") from e
    for side, entries, embeddings in [
        ("source", tokenizer.vocab_size, config.src_vocab_size),
        ("target", tokenizer.target_vocab_size, config.tgt_vocab_size),
    ]:
        if entries > embeddings:
            raise ValueError(
                f"{directory}: the {side} vocabulary has {entries} entries but the model only "
                f"{embeddings} {side} embeddings"
            )
    meta = {"format": "marian", "model": config.to_dict(), "source": str(directory),
            "generation": generation_defaults(directory, hf)}  # fmt: skip
    return model.to(device).eval(), tokenizer, meta
