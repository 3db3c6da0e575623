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

The export also carries:

- **The tokenizer.** A heedful model's ``spm.model`` with heedful's normalisation built in
  (``normalizing_sentencepiece``): heedful normalises text itself (``heedful.tokenizer.normalize``:
  NFKC, every kind of space one plain space) before a sentencepiece model whose own normaliser is
  "identity"; the exported one applies the same mapping as sentencepiece rules, so that
  sentencepiece alone, on raw text, gives heedful's ids. A Marian model's ``source.spm`` and
  ``target.spm`` are copied as they are.
- **The alignment heads.** CTranslate2 returns one cross-attention per target token
  (``translate_batch(..., return_attention=True)``) and reads the same one to replace unknown
  tokens (``replace_unknowns=True``): the mean of the first ``alignment_heads`` heads (0: all) of
  decoder layer ``alignment_layer``, at the step that *predicts* the token. The export sets them
  from the model directory's alignment record (``heedful.explain.alignment_methods``; without
  one, heedful's default: the penultimate layer, every head). CTranslate2 can only take a layer's
  *first* n heads, so the chosen heads are moved to the front of that layer's cross-attention
  (the layer computes the same function: its heads are summed through the output projection in
  whatever order). A ``predict`` record transfers exactly. A ``shift`` record reads the step
  where the token is the decoder's *input*: in CTranslate2's attention that is the next row
  (ask for ``return_end_token=True`` to have the last one), and ``replace_unknowns`` reads the
  predict row regardless. ``erase`` reads no attention: CTranslate2 gets heedful's default.

``ctranslate2`` is an optional dependency: ``pip install ctranslate2``.
"""

from __future__ import annotations

import functools
import io
import math
import shutil
import tempfile
import unicodedata
from pathlib import Path

import numpy as np
import torch
from torch import nn

from heedful.explain.alignment_methods import ATTENTION_METHODS, DEFAULT, read_method
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
    from heedful.loading import load_model
    from heedful.tokenizer import UNK_ID

    model_dir, out_dir = Path(model_dir), Path(out_dir)
    ctranslate2 = _ctranslate2()
    if out_dir.exists() and not force:
        raise FileExistsError(f"{out_dir} exists; pass --force to replace it")
    model, tokenizer, meta = load_model(model_dir)
    marian = meta["format"] == "marian"
    if marian:
        source_pieces, unk_id = tokenizer.source_pieces, tokenizer.unk_id
    else:
        source_pieces, unk_id = tokenizer.pieces, UNK_ID
    if not isinstance(model, Transformer):
        raise ValueError(f"{model_dir}: only encoder-decoder Transformers export to CTranslate2")
    config = model.config
    source = _vocabulary(source_pieces, config.src_vocab_size, tokenizer.vocab_size)
    target_known = getattr(tokenizer, "target_vocab_size", tokenizer.vocab_size)
    target = _vocabulary(tokenizer.pieces, config.tgt_vocab_size, target_known)
    alignment = alignment_heads(model_dir, config.n_decoder_layers, config.n_heads)
    spec = transformer_spec(
        model, source, target, unk_token=source[unk_id], where=model_dir, alignment=alignment
    )
    spm_model = None if marian else normalizing_sentencepiece(tokenizer, meta, model_dir)

    class _SpecConverter(ctranslate2.converters.Converter):
        def _load(self):
            return spec

    _SpecConverter().convert(str(out_dir), quantization=quantization, force=True)
    if marian:
        for name in ("source.spm", "target.spm"):
            shutil.copyfile(model_dir / name, out_dir / name)
    else:
        (out_dir / SPM_FILE).write_bytes(spm_model)
    return out_dir


SPM_FILE = "spm.model"  # a heedful model's tokenizer, its normalisation built in


def alignment_heads(model_dir: Path, n_layers: int, n_heads: int) -> tuple[int, tuple[int, ...]]:
    """The decoder layer and the heads (counted from 0) whose mean cross-attention aligns, as the
    model directory records them; heedful's default when the record reads no attention."""
    method = read_method(model_dir)
    if method.method not in ATTENTION_METHODS:
        method = DEFAULT
    method = method.resolve(n_layers, n_heads)
    return method.layer, tuple(range(n_heads)) if method.heads is None else method.heads


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
    model: Transformer,
    source: list[str],
    target: list[str],
    *,
    unk_token: str,
    where: Path,
    alignment: tuple[int, tuple[int, ...]] | None = None,
):
    """A ctranslate2 TransformerSpec holding ``model``'s weights, vocabularies and settings.
    ``alignment``: (decoder layer, heads) whose mean cross-attention CTranslate2 returns; the
    heads are moved to the front of that layer (CTranslate2 averages a layer's first n)."""
    _ctranslate2()
    from ctranslate2.specs import common_spec, transformer_spec

    from heedful.translator import Translator

    config = model.config
    if config.attention_window is not None:
        raise ValueError(f"{where}: CTranslate2 has no restricted (windowed) self-attention")
    activation = {"relu": common_spec.Activation.RELU, "gelu": common_spec.Activation.GELU,
                  "swish": common_spec.Activation.SWISH}[config.activation]  # fmt: skip
    layer, heads = alignment or (config.n_decoder_layers - 1, (0,))  # CTranslate2's default
    spec = transformer_spec.TransformerSpec.from_config(
        (config.n_encoder_layers, config.n_decoder_layers), config.n_heads,
        pre_norm=config.norm_first, activation=activation, alignment_layer=layer,
        alignment_heads=0 if len(heads) == config.n_heads else len(heads),
    )  # fmt: skip
    order = [*heads, *(h for h in range(config.n_heads) if h not in heads)]
    scale = math.sqrt(config.d_model) if config.scale_embeddings else 1.0
    _set_stack(spec.encoder, model.src_embed, model.encoder, scale)
    _set_stack(spec.decoder, model.tgt_embed, model.decoder, scale, {layer: order})
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


def _set_stack(spec, embed, stack, scale: float, head_orders: dict | None = None) -> None:
    """Embeddings, positions, layers (and the pre-LN final norm) of one encoder or decoder.
    ``head_orders``: layer -> the order of its cross-attention heads in the export."""
    spec.scale_embeddings = scale
    spec.position_encodings.encodings = _array(embed.positions)
    tokens = spec.embeddings[0] if isinstance(spec.embeddings, list) else spec.embeddings
    tokens.weight = _array(embed.tokens.weight)
    if stack.norm is not None:
        _set_norm(spec.layer_norm, stack.norm)
    for i, (layer_spec, layer) in enumerate(zip(spec.layer, stack.layers, strict=True)):
        _set_attention(layer_spec.self_attention, layer.self_attn, self_attention=True)
        _set_norm(layer_spec.self_attention.layer_norm, layer.self_attn_residual.norm)
        if hasattr(layer, "cross_attn"):
            order = (head_orders or {}).get(i)
            cross = layer_spec.attention
            _set_attention(cross, layer.cross_attn, self_attention=False, order=order)
            _set_norm(layer_spec.attention.layer_norm, layer.cross_attn_residual.norm)
        _set_linear(layer_spec.ffn.linear_0, layer.ffn.w_1)
        _set_linear(layer_spec.ffn.linear_1, layer.ffn.w_2)
        _set_norm(layer_spec.ffn.layer_norm, layer.ffn_residual.norm)


def _set_attention(spec, attention, *, self_attention: bool, order: list[int] | None = None):
    """CTranslate2 fuses Q, K, V into one projection (self-attention) or Q and KV (cross).
    ``order``: the heads in their exported order (Q, K, V rows and the output projection's
    columns moved together, so that the layer computes the same function)."""
    q, k, v = attention.q_proj, attention.k_proj, attention.v_proj
    groups = [[q, k, v]] if self_attention else [[q], [k, v]]
    d_model = q.weight.shape[0]
    rows = np.arange(d_model)
    if order is not None:  # head h's rows are h·d_k ... (h+1)·d_k - 1 (a view [.., H, d_k])
        rows = rows.reshape(len(order), -1)[order].reshape(-1)
    for linear_spec, group in zip(spec.linear, groups, strict=False):
        linear_spec.weight = np.concatenate([_array(m.weight)[rows] for m in group])
        linear_spec.bias = np.concatenate([_array(m.bias)[rows] for m in group])
    out = spec.linear[-1]
    out.weight = _array(attention.out_proj.weight)[:, rows].copy()
    out.bias = _array(attention.out_proj.bias)


def _set_linear(spec, linear: nn.Linear) -> None:
    spec.weight = _array(linear.weight)
    spec.bias = _array(linear.bias)


def _set_norm(spec, norm: nn.LayerNorm) -> None:
    spec.gamma = _array(norm.weight)
    spec.beta = _array(norm.bias)


def _array(tensor: torch.Tensor) -> np.ndarray:
    return tensor.detach().float().cpu().numpy().copy()


def normalizing_sentencepiece(tokenizer, meta: dict, where: Path) -> bytes:
    """``tokenizer``'s sentencepiece model, with heedful's normalisation as its own: on raw text
    it gives the ids ``tokenizer.encode`` gives (``heedful.tokenizer.normalize`` first).

    The mapping is sentencepiece's kind, one rule per character (and per canonically decomposed
    sequence, so that "e" + U+0301 becomes "é" as NFKC composes it): what ``normalize`` makes of
    it, computed with this Python's ``unicodedata``, as heedful normalises. sentencepiece then
    drops the leading and trailing spaces and collapses runs (``remove_extra_whitespaces``), as
    ``normalize`` does. On every Tatoeba dev sentence (both sides, both pairs, U+202F before
    French ? and ! included) the ids are heedful's. Rules see one character (or sequence) at a
    time, so they miss what NFKC composes or reorders across two of them: a combining mark after
    a compatibility or precomposed character ("ﬁ" + U+0301, "é" + U+0323), a Hangul jamo after a
    syllable; on 20,000 random strings made of such characters, 5% were read otherwise (against
    16% with sentencepiece's own nmt_nfkc rules, which also treat U+200B, U+2060 and control
    characters otherwise than heedful: a space, kept, dropped, where heedful keeps, spaces, keeps).
    """
    from sentencepiece import SentencePieceTrainer, sentencepiece_model_pb2

    from heedful.tokenizer import NORMALIZATION

    recorded = meta.get("normalization", NORMALIZATION)
    if recorded != NORMALIZATION:
        raise ValueError(
            f"{where}: the tokenizer's text normalisation is {recorded!r}; the export knows only "
            f"{NORMALIZATION!r}"
        )
    with tempfile.TemporaryDirectory() as tmp:
        rules = Path(tmp) / "rules.tsv"
        rules.write_text(_normalization_rules(), encoding="utf-8")
        compiled = io.BytesIO()  # a throwaway model, trained only to compile the rules
        SentencePieceTrainer.train(
            sentence_iterator=iter(["a b c"]), model_writer=compiled, model_type="char",
            vocab_size=7, hard_vocab_limit=False, normalization_rule_tsv=str(rules), minloglevel=2,
        )  # fmt: skip
    normalizer = sentencepiece_model_pb2.ModelProto.FromString(compiled.getvalue())
    model = sentencepiece_model_pb2.ModelProto.FromString(tokenizer.proto)
    model.normalizer_spec.name = normalizer.normalizer_spec.name  # "user_defined"
    model.normalizer_spec.precompiled_charsmap = normalizer.normalizer_spec.precompiled_charsmap
    model.normalizer_spec.remove_extra_whitespaces = True
    return model.SerializeToString()


@functools.cache
def _normalization_rules() -> str:
    """sentencepiece's rule file: "source code points<TAB>target code points", in hexadecimal."""
    from heedful.tokenizer import normalize

    def hexes(text: str) -> str:
        return " ".join(f"{ord(c):X}" for c in text)

    rules = {}
    for code in range(1, 0x110000):
        if 0xD800 <= code <= 0xDFFF:  # surrogates are no characters
            continue
        char = chr(code)
        for source in (char, unicodedata.normalize("NFD", char)):
            # NUL on either side: normalize trims spaces and NUL composes with nothing, so the
            # middle is what normalize makes of the source inside a longer text
            target = normalize(f"\0{source}\0")[1:-1]
            if target != source:
                rules.setdefault(source, target)
    return "".join(f"{hexes(s)}\t{hexes(t)}\n" for s, t in rules.items())
