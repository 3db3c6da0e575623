"""The pieces the stacks are built from: embeddings with positions, the position-wise
feed-forward network, and one encoder and one decoder layer (paper §3.1-3.5).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from heedful.attention import MultiHeadAttention
from heedful.config import ModelConfig
from heedful.dropout import Dropout
from heedful.kv_cache import KeyValue

ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu, "swish": F.silu}


def sinusoidal_positions(n_positions: int, d_model: int, layout: str = "sinusoidal") -> Tensor:
    """PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(...) (paper §3.5).

    ``sinusoidal`` interleaves sin and cos as the paper writes it; ``sinusoidal_concat`` puts
    every sin first, then every cos (fairseq, Marian). Returns [n_positions, d_model].
    """
    position = torch.arange(n_positions, dtype=torch.float64)[:, None]  # [P, 1]
    inv_freq = 10000.0 ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)  # [d/2]
    angle = position * inv_freq  # [P, d/2]
    if layout == "sinusoidal":
        pe = torch.stack([angle.sin(), angle.cos()], dim=-1).flatten(1)  # sin, cos, sin, cos...
    else:
        pe = torch.cat([angle.sin(), angle.cos()], dim=-1)  # sin... then cos...
    return pe.float()


class Embeddings(nn.Module):
    """Token embedding x sqrt(d_model) + positional encoding, then dropout (paper §3.4, §5.4).

    ``tokens`` may be shared with another Embeddings or the output projection (§3.4).
    """

    def __init__(self, tokens: nn.Embedding, config: ModelConfig):
        super().__init__()
        self.tokens = tokens
        self.scale = math.sqrt(config.d_model) if config.scale_embeddings else 1.0
        self.max_positions = config.max_positions
        pe = sinusoidal_positions(config.max_positions, config.d_model, config.positional)
        self.register_buffer("positions", pe, persistent=False)
        self.dropout = Dropout(config.dropout)

    def forward(self, ids: Tensor, start: int | Tensor = 0) -> Tensor:
        """[B, T] ids at positions start .. start+T-1 -> [B, T, d_model]. ``start``: one
        position for every row, or one per row [B] (rows that began at different steps)."""
        if isinstance(start, Tensor):
            at = start.unsqueeze(1) + torch.arange(ids.shape[1], device=start.device)
            stop = int(at.max()) + 1 if at.numel() else 0
        else:
            stop = start + ids.shape[1]
        if stop > self.max_positions:
            raise ValueError(
                f"sequence reaches position {stop}, past max_positions={self.max_positions}; "
                "shorten the input or build the model with a larger max_positions"
            )
        positions = self.positions[at] if isinstance(start, Tensor) else self.positions[start:stop]
        x = self.tokens(ids) * self.scale + positions
        return self.dropout(x)


class FeedForward(nn.Module):
    """FFN(x) = max(0, x W_1 + b_1) W_2 + b_2, applied to each position alike (paper §3.3)."""

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu"):
        super().__init__()
        self.w_1 = nn.Linear(d_model, d_ff)
        self.w_2 = nn.Linear(d_ff, d_model)
        self.activation = ACTIVATIONS[activation]

    def forward(self, x: Tensor) -> Tensor:
        return self.w_2(self.activation(self.w_1(x)))


class Residual(nn.Module):
    """A residual connection around a sub-layer, with layer normalisation (paper §3.1).

    post-LN (the paper): LayerNorm(x + Dropout(Sublayer(x)))
    pre-LN (norm_first): x + Dropout(Sublayer(LayerNorm(x)))
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.norm = nn.LayerNorm(config.d_model, eps=config.layer_norm_eps)
        self.dropout = Dropout(config.dropout)
        self.norm_first = config.norm_first

    def before(self, x: Tensor) -> Tensor:
        """What the sub-layer reads."""
        return self.norm(x) if self.norm_first else x

    def after(self, x: Tensor, sublayer_out: Tensor) -> Tensor:
        """What the next sub-layer gets."""
        x = x + self.dropout(sublayer_out)
        return x if self.norm_first else self.norm(x)


def final_norm(config: ModelConfig) -> nn.LayerNorm | None:
    """pre-LN stacks end with a LayerNorm (the last residual sum is otherwise unnormalised)."""
    return nn.LayerNorm(config.d_model, config.layer_norm_eps) if config.norm_first else None


@dataclass
class LayerOutput:
    x: Tensor  # [B, T, d_model]
    self_kv: KeyValue  # keys and values of every position so far (the decoding cache)
    self_weights: Tensor | None = None  # [B, H, T, T_total]
    cross_weights: Tensor | None = None  # [B, H, T, S]


class EncoderLayer(nn.Module):
    """Self-attention, then the feed-forward network, each inside a Residual (paper §3.1).

    With ``causal=True`` it is also the block of the decoder-only language model.
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(config.d_model, config.n_heads, config.attention_window)
        self.self_attn_residual = Residual(config)
        self.ffn = FeedForward(config.d_model, config.d_ff, config.activation)
        self.ffn_residual = Residual(config)

    def forward(
        self,
        x: Tensor,
        key_mask: Tensor | None = None,
        *,
        causal: bool = False,
        past: KeyValue | None = None,
        head_mask: Tensor | None = None,
        need_weights: bool = False,
    ) -> LayerOutput:
        h = self.self_attn_residual.before(x)
        h, kv, weights = self.self_attn(
            h, key_mask=key_mask, causal=causal, past=past, head_mask=head_mask,
            need_weights=need_weights,
        )  # fmt: skip
        x = self.self_attn_residual.after(x, h)
        x = self.ffn_residual.after(x, self.ffn(self.ffn_residual.before(x)))
        return LayerOutput(x, kv, weights)


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention over the encoder's output, then the feed-forward
    network, each inside a Residual (paper §3.1).
    """

    def __init__(self, config: ModelConfig):
        super().__init__()
        self.self_attn = MultiHeadAttention(config.d_model, config.n_heads, config.attention_window)
        self.self_attn_residual = Residual(config)
        self.cross_attn = MultiHeadAttention(config.d_model, config.n_heads)
        self.cross_attn_residual = Residual(config)
        self.ffn = FeedForward(config.d_model, config.d_ff, config.activation)
        self.ffn_residual = Residual(config)

    def forward(
        self,
        x: Tensor,
        memory: Tensor | KeyValue,
        memory_mask: Tensor | None,
        *,
        past: KeyValue | None = None,
        self_mask: Tensor | None = None,
        self_head_mask: Tensor | None = None,
        cross_head_mask: Tensor | None = None,
        need_weights: bool = False,
        cross_weights_of: list[int] | None = None,
        causal: bool = True,
    ) -> LayerOutput:
        """x: [B, T, d_model]; memory: [B, S, d_model] or its projected keys and values;
        memory_mask: [B, S], True = real source token. Targets are right-padded, so causal
        masking alone keeps every real position away from padding; ``self_mask`` [B, t]: the
        cached positions each row may read, where rows began at different steps.
        ``cross_weights_of``: cross-attention's weights of these heads only, as cross_weights.
        ``causal=False``: every position reads the whole target (Garg et al.'s full-context
        alignment pass); ``self_mask`` [B, T] must then keep the padding out.
        """
        h = self.self_attn_residual.before(x)
        h, kv, self_weights = self.self_attn(
            h, causal=causal, past=past, key_mask=self_mask, head_mask=self_head_mask,
            need_weights=need_weights,
        )  # fmt: skip
        x = self.self_attn_residual.after(x, h)
        h = self.cross_attn_residual.before(x)
        h, _, cross_weights = self.cross_attn(
            h, memory, key_mask=memory_mask, head_mask=cross_head_mask, need_weights=need_weights,
            weights_of=cross_weights_of,
        )  # fmt: skip
        x = self.cross_attn_residual.after(x, h)
        x = self.ffn_residual.after(x, self.ffn(self.ffn_residual.before(x)))
        return LayerOutput(x, kv, self_weights, cross_weights)

    def cross_query(
        self, x: Tensor, *, causal: bool = True, self_mask: Tensor | None = None
    ) -> Tensor:
        """What this layer's cross-attention reads from for input x: ``forward`` up to it (for
        the weights of alignments, without computing what comes after)."""
        h = self.self_attn_residual.before(x)
        h, _, _ = self.self_attn(h, causal=causal, key_mask=self_mask)
        return self.cross_attn_residual.before(self.self_attn_residual.after(x, h))
