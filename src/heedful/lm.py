"""A decoder-only (GPT-style) language model from the same blocks as the Transformer.

Each block is an EncoderLayer with causal self-attention: there is no source to attend to, so
the decoder's cross-attention sub-layer falls away. It reads ``tgt_vocab_size`` and
``n_decoder_layers`` from the ModelConfig.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor, nn

from heedful.config import ModelConfig
from heedful.kv_cache import LMCache
from heedful.layers import Embeddings, EncoderLayer, final_norm
from heedful.model import (
    AttentionWeights,
    HeadMask,
    StepOutput,
    init_weights,
    output_projection,
    stack_or_none,
)


@dataclass
class LMOutput:
    logits: Tensor  # [B, T, V]
    attention: AttentionWeights  # decoder_self: [L, B, H, T, T]


class DecoderOnlyLM(nn.Module):
    def __init__(self, config: ModelConfig):
        super().__init__()
        self.config = config
        tokens = nn.Embedding(config.tgt_vocab_size, config.d_model, padding_idx=config.pad_id)
        self.embed = Embeddings(tokens, config)
        self.layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_decoder_layers))
        self.norm = final_norm(config)
        self.generator = output_projection(config, tokens)
        init_weights(self, config)

    def forward(
        self, ids: Tensor, *, return_attention: bool = False, head_mask: HeadMask | None = None
    ) -> Tensor | LMOutput:
        """[B, T] ids (right-padded) -> logits [B, T, V] for the next token at each position."""
        step = self.decode_step(
            ids, self.start_decoding(), return_attention=return_attention, head_mask=head_mask
        )
        return LMOutput(step.logits, step.attention) if return_attention else step.logits

    def start_decoding(self) -> LMCache:
        return LMCache([None] * len(self.layers))

    def decode_step(
        self,
        ids: Tensor,
        cache: LMCache,
        *,
        return_attention: bool = False,
        head_mask: HeadMask | None = None,
    ) -> StepOutput:
        """Feed the next t tokens [B, t] at positions cache.length ...; returns their logits and
        the cache extended by t positions."""
        x = self.embed(ids, start=cache.length)
        new_kv, weights = [], []
        for i, layer in enumerate(self.layers):
            out = layer(
                x, causal=True, past=cache.self_kv[i],
                head_mask=head_mask and head_mask.layer("decoder_self", i),
                need_weights=return_attention,
            )  # fmt: skip
            x = out.x
            new_kv.append(out.self_kv)
            weights.append(out.self_weights)
        x = x if self.norm is None else self.norm(x)
        return StepOutput(
            self.generator(x),
            LMCache(new_kv, cache.length + ids.shape[1]),
            AttentionWeights(decoder_self=stack_or_none(weights)),
        )

    def num_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())
