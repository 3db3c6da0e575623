"""The encoder-decoder Transformer (paper §3, Figure 1).

    logits = Generator(Decoder(Embed(tgt), Encoder(Embed(src))))

Inference uses ``encode`` once per source, then ``decode_step`` once per new target token over a
typed ``DecoderCache`` that decoding algorithms (greedy, beam, sampling) may reorder.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import torch
from torch import Tensor, nn

from heedful.config import ModelConfig
from heedful.kv_cache import BeamKeyValue, KeyValue, LMCache, kept_sources
from heedful.layers import DecoderLayer, Embeddings, EncoderLayer, final_norm
from heedful.masks import padding_mask


@dataclass
class AttentionWeights:
    """Softmax weights of every layer and head, stacked over layers. Absent kinds are None."""

    encoder_self: Tensor | None = None  # [L, B, H, S, S]
    decoder_self: Tensor | None = None  # [L, B, H, T, T]
    cross: Tensor | None = None  # [L, B, H, T, S]
    # [B, h, T, S] of each (layer, heads) decode_step's ``aligning`` names, in its order
    aligning: list[Tensor] | None = None


@dataclass
class HeadMask:
    """Per-layer, per-head multipliers on each head's output: 1 keeps a head, 0 silences it."""

    encoder_self: Tensor | None = None  # [L, H]
    decoder_self: Tensor | None = None  # [L, H]
    cross: Tensor | None = None  # [L, H]

    def layer(self, kind: str, index: int) -> Tensor | None:
        mask = getattr(self, kind)
        return None if mask is None else mask[index]


@dataclass
class TransformerOutput:
    logits: Tensor  # [B, T, V]
    attention: AttentionWeights


@dataclass
class Memory:
    """The encoder's output for a batch of sources."""

    states: Tensor  # [B, S, d_model]
    mask: Tensor  # [B, S], True = real token
    attention: Tensor | None = None  # [L, B, H, S, S] when asked for


@dataclass
class DecoderCache:
    """What the decoder keeps between steps.

    ``self_kv`` grows by one position per step; ``cross_kv`` is computed once per source.
    ``capacity``: target positions to make room for at the first step (the longest output a
    search allows), so that the self-attention cache never grows by copying; 0: grow as needed.
    ``starts``: where rows began at different steps (continuous batching, heedful.continuous),
    the position in ``self_kv`` of each source's first token [sources]; its rows (one, or its
    beams) read from there on, and their tokens' positions count from there. None: every row
    began at 0.
    """

    self_kv: list[KeyValue | BeamKeyValue | None]
    cross_kv: list[KeyValue]
    memory_mask: Tensor  # [B, S]
    length: int = 0  # target positions decoded so far
    capacity: int = 0
    starts: Tensor | None = None

    def reorder(self, index: Tensor) -> DecoderCache:
        """Keep and reorder batch rows, one row per source (a sentence's next token chosen, or
        finished sentences leaving the batch). A cache whose rows are beams, several per
        source, reorders with ``heedful.beam_cache``."""
        starts = None if self.starts is None else self.starts.index_select(0, index)
        self_kv = [None if kv is None else kv.select(index) for kv in self.self_kv]
        kept = kept_sources(index, self.memory_mask.shape[0])
        if kept is None:  # every source stays where it was
            return replace(self, self_kv=self_kv, starts=starts)
        return replace(
            self,
            self_kv=self_kv,
            starts=starts,
            cross_kv=[kv.select(kept) for kv in self.cross_kv],
            memory_mask=self.memory_mask.index_select(0, kept),
        )


@dataclass
class StepOutput:
    logits: Tensor  # [B, t, V] for the t new positions
    cache: DecoderCache | LMCache
    attention: AttentionWeights = field(default_factory=AttentionWeights)
    # decoder_self: [L, B, H, t, length]; cross: [L, B, H, t, S]


def stack_or_none(tensors: list[Tensor | None]) -> Tensor | None:
    return None if not tensors or tensors[0] is None else torch.stack(tensors)


def output_projection(config: ModelConfig, tgt_tokens: nn.Embedding) -> nn.Linear:
    """Linear(d_model -> V) before the softmax; tied to the target embedding if shared (§3.4)."""
    generator = nn.Linear(config.d_model, config.tgt_vocab_size, bias=False)
    if config.share_embeddings != "none":
        generator.weight = tgt_tokens.weight
    return generator


def init_weights(module: nn.Module, config: ModelConfig) -> None:
    """Xavier-uniform linear layers (as tensor2tensor and fairseq), N(0, d_model^-0.5)
    embeddings with a zero padding row."""
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=config.d_model**-0.5)
            if m.padding_idx is not None:
                with torch.no_grad():
                    m.weight[m.padding_idx].zero_()


class Encoder(nn.Module):
    """A stack of N EncoderLayers (+ a final LayerNorm when pre-LN)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_encoder_layers))
        self.norm = final_norm(config)

    def forward(self, x, mask, *, head_mask=None, need_weights=False):
        weights = []
        for i, layer in enumerate(self.layers):
            out = layer(
                x, mask, head_mask=head_mask and head_mask.layer("encoder_self", i),
                need_weights=need_weights,
            )  # fmt: skip
            x = out.x
            weights.append(out.self_weights)
        x = x if self.norm is None else self.norm(x)
        return x, stack_or_none(weights)


class Decoder(nn.Module):
    """A stack of N DecoderLayers (+ a final LayerNorm when pre-LN)."""

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.n_decoder_layers))
        self.norm = final_norm(config)

    def forward(self, x, memory, memory_mask, *, past=None, self_mask=None, head_mask=None,
                need_weights=False, aligning=None, causal=True):  # fmt: skip
        """memory: one [B, S, d_model] tensor or per-layer KeyValues; past: per-layer KeyValues;
        self_mask: [B, t] the positions each row reads (``DecoderCache.starts``); ``aligning``:
        the (layer, heads) whose cross-attention weights to return (heedful.aligning); ``causal``
        False: every position reads the whole target (``Transformer.forward(full_context=...)``).
        Returns x, the new per-layer self-attention KeyValues, and the weights if asked for."""
        new_kv, self_weights, cross_weights = [], [], []
        asked = list(aligning or ())
        aligned: list[Tensor] = [None] * len(asked)  # type: ignore[list-item]
        for i, layer in enumerate(self.layers):
            mine = [k for k, (at, _) in enumerate(asked) if at == i]
            heads = sorted({h for k in mine for h in asked[k][1]}) if mine else None
            out = layer(
                x,
                memory[i] if isinstance(memory, list) else memory,
                memory_mask,
                past=None if past is None else past[i],
                self_mask=self_mask,
                self_head_mask=head_mask and head_mask.layer("decoder_self", i),
                cross_head_mask=head_mask and head_mask.layer("cross", i),
                need_weights=need_weights,
                cross_weights_of=heads,
                causal=causal,
            )
            x = out.x
            new_kv.append(out.self_kv)
            weights = out.cross_weights  # of every head if need_weights, else of ``heads``
            for k in mine:
                wanted = asked[k][1]
                columns = list(wanted) if need_weights else [heads.index(h) for h in wanted]
                whole = columns == list(range(weights.shape[1]))  # no copy
                aligned[k] = weights if whole else weights[:, columns]
            self_weights.append(out.self_weights if need_weights else None)
            cross_weights.append(out.cross_weights if need_weights else None)
        x = x if self.norm is None else self.norm(x)
        return (
            x,
            new_kv,
            AttentionWeights(
                decoder_self=stack_or_none(self_weights),
                cross=stack_or_none(cross_weights),
                aligning=aligned if asked else None,
            ),
        )


class Transformer(nn.Module):
    """The encoder-decoder Transformer of "Attention Is All You Need".

    >>> model = Transformer(ModelConfig.tiny(100))
    >>> logits = model(src_ids, tgt_ids)  # [B, T, V]; tgt_ids start with config.start_id
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        tgt_tokens = nn.Embedding(config.tgt_vocab_size, config.d_model, padding_idx=config.pad_id)
        src_tokens = (
            tgt_tokens
            if config.share_embeddings == "all"
            else nn.Embedding(config.src_vocab_size, config.d_model, padding_idx=config.pad_id)
        )
        self.src_embed = Embeddings(src_tokens, config)
        self.tgt_embed = Embeddings(tgt_tokens, config)
        self.encoder = Encoder(config)
        self.decoder = Decoder(config)
        self.generator = output_projection(config, tgt_tokens)
        if config.output_bias:
            self.register_buffer("logits_bias", torch.zeros(config.tgt_vocab_size))
        else:
            self.logits_bias = None
        init_weights(self, config)

    def forward(
        self,
        src_ids: Tensor,
        tgt_ids: Tensor,
        *,
        return_attention: bool = False,
        head_mask: HeadMask | None = None,
        full_context: bool = False,
    ) -> Tensor | TransformerOutput:
        """src_ids: [B, S]; tgt_ids: [B, T], the decoder's input (starting with the start token,
        right-padded). Returns logits [B, T, V] for the next token at every position, or, with
        ``return_attention``, a TransformerOutput with the logits and every attention weight.
        ``full_context``: the decoder's self-attention without its causal mask, every position
        reading the whole target: Garg et al.'s (2019) pass for alignments, not for predicting.
        """
        memory = self.encode(src_ids, head_mask=head_mask, return_attention=return_attention)
        x, _, attention = self.decoder(
            self.tgt_embed(tgt_ids), memory.states, memory.mask,
            head_mask=head_mask, need_weights=return_attention,
            causal=not full_context,
            self_mask=padding_mask(tgt_ids, self.config.pad_id) if full_context else None,
        )  # fmt: skip
        logits = self.project(x)
        if not return_attention:
            return logits
        attention.encoder_self = memory.attention
        return TransformerOutput(logits, attention)

    def encode(
        self, src_ids: Tensor, *, head_mask: HeadMask | None = None, return_attention: bool = False
    ) -> Memory:
        """[B, S] source ids -> the encoder's output (and its self-attention if asked for)."""
        mask = padding_mask(src_ids, self.config.pad_id)
        states, weights = self.encoder(
            self.src_embed(src_ids), mask, head_mask=head_mask, need_weights=return_attention
        )
        return Memory(states, mask, weights)

    def start_decoding(self, memory: Memory, capacity: int = 0) -> DecoderCache:
        """An empty cache holding the cross-attention keys and values of every layer (made
        contiguous once here, rather than copied by every step's batched product).
        ``capacity``: the most target positions decoding will feed (0: unknown)."""
        cross_kv = [
            layer.cross_attn.project(memory.states).contiguous() for layer in self.decoder.layers
        ]
        return DecoderCache([None] * len(cross_kv), cross_kv, memory.mask, capacity=capacity)

    def decode_step(
        self,
        tgt_ids: Tensor,
        cache: DecoderCache,
        *,
        return_attention: bool = False,
        head_mask: HeadMask | None = None,
        aligning: list[tuple[int, list[int]]] | None = None,
    ) -> StepOutput:
        """Feed the next t target tokens [B, t] (usually t = 1) at positions cache.length ...;
        returns their logits [B, t, V] and the cache extended by t positions. ``aligning``:
        the (layer, heads) whose cross-attention weights the output's ``attention.aligning``
        holds, [B, h, t, S] each, the rest of the step on its fast path (word links,
        heedful.aligning)."""
        starts, self_mask = cache.length, None
        if cache.starts is not None:  # sources that began at different steps
            rows_each = tgt_ids.shape[0] // cache.starts.shape[0]  # 1, or its beams
            starts = (cache.length - cache.starts).repeat_interleave(rows_each)
            seen = torch.arange(cache.length + tgt_ids.shape[1], device=tgt_ids.device)
            self_mask = seen >= cache.starts.unsqueeze(1)  # [sources, length + t]
        x = self.tgt_embed(tgt_ids, start=starts)
        past = None if cache.self_kv[0] is None else cache.self_kv
        x, new_kv, attention = self.decoder(
            x, cache.cross_kv, cache.memory_mask, past=past, self_mask=self_mask,
            head_mask=head_mask, need_weights=return_attention, aligning=aligning,
        )  # fmt: skip
        if past is None and cache.capacity:
            new_kv = [kv.reserve(cache.capacity) for kv in new_kv]
        cache = replace(cache, self_kv=new_kv, length=cache.length + tgt_ids.shape[1])
        return StepOutput(self.project(x), cache, attention)

    def project(self, x: Tensor) -> Tensor:
        """[B, T, d_model] -> logits [B, T, V]."""
        logits = self.generator(x)
        return logits if self.logits_bias is None else logits + self.logits_bias

    def num_parameters(self) -> int:
        """Trainable parameters, each shared tensor counted once."""
        return sum(p.numel() for p in self.parameters())
