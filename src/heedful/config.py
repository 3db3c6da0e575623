"""The model's configuration: one frozen dataclass, named presets, overrides by field name.

Dimensions use the paper's names (Vaswani et al., 2017, §3): ``d_model``, ``d_ff``, ``h`` as
``n_heads``, ``N`` as ``n_encoder_layers`` / ``n_decoder_layers``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

Activation = Literal["relu", "gelu", "swish"]
Sharing = Literal["none", "decoder", "all"]
Positional = Literal["sinusoidal", "sinusoidal_concat"]


@dataclass(frozen=True)
class ModelConfig:
    """Everything that fixes the shape and the arithmetic of a model.

    ``share_embeddings``: ``"none"``; ``"decoder"`` ties the target embedding to the output
    projection (paper §3.4); ``"all"`` ties the source embedding too (needs one joint vocabulary).
    ``positional``: ``"sinusoidal"`` interleaves sin and cos as in the paper (§3.5);
    ``"sinusoidal_concat"`` puts the sin half first, then the cos half (fairseq, Marian).
    ``attention_window``: ``None`` for full attention, or ``r`` for the paper's restricted
    self-attention (§4): position i attends only to j with |i - j| <= r.
    """

    src_vocab_size: int
    tgt_vocab_size: int
    d_model: int = 512
    n_heads: int = 8
    d_ff: int = 2048
    n_encoder_layers: int = 6
    n_decoder_layers: int = 6
    dropout: float = 0.1
    activation: Activation = "relu"
    norm_first: bool = False
    share_embeddings: Sharing = "all"
    scale_embeddings: bool = True
    positional: Positional = "sinusoidal"
    max_positions: int = 1024
    attention_window: int | None = None
    layer_norm_eps: float = 1e-5
    output_bias: bool = False
    pad_id: int = 0
    bos_id: int = 1
    eos_id: int = 2
    decoder_start_id: int | None = None

    def __post_init__(self) -> None:
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})"
            )
        if self.activation not in ("relu", "gelu", "swish"):
            raise ValueError(f"activation must be relu, gelu or swish, not {self.activation!r}")
        if self.share_embeddings not in ("none", "decoder", "all"):
            raise ValueError(
                f"share_embeddings must be none, decoder or all, not {self.share_embeddings!r}"
            )
        if self.share_embeddings == "all" and self.src_vocab_size != self.tgt_vocab_size:
            raise ValueError(
                "share_embeddings='all' needs one joint vocabulary, but src_vocab_size="
                f"{self.src_vocab_size} and tgt_vocab_size={self.tgt_vocab_size}"
            )
        if self.positional not in ("sinusoidal", "sinusoidal_concat"):
            raise ValueError(
                f"positional must be sinusoidal or sinusoidal_concat, not {self.positional!r}"
            )
        if self.d_model % 2:
            raise ValueError(f"sinusoidal positions need an even d_model, not {self.d_model}")
        if self.attention_window is not None and self.attention_window < 0:
            raise ValueError(f"attention_window must be >= 0 or None, not {self.attention_window}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), not {self.dropout}")

    @property
    def d_head(self) -> int:
        """d_k = d_v = d_model / h (paper §3.2.2)."""
        return self.d_model // self.n_heads

    @property
    def start_id(self) -> int:
        """The token the decoder starts from: BOS, or pad for Marian-style models."""
        return self.bos_id if self.decoder_start_id is None else self.decoder_start_id

    # --- presets -------------------------------------------------------------------------------

    @classmethod
    def tiny(cls, src_vocab_size: int, tgt_vocab_size: int | None = None, **overrides: Any):
        """Seconds on a CPU: for tests, smoke runs and toy tasks."""
        return cls._preset(
            src_vocab_size, tgt_vocab_size, overrides,
            d_model=64, n_heads=4, d_ff=256, n_encoder_layers=2, n_decoder_layers=2,
        )  # fmt: skip

    @classmethod
    def small(cls, src_vocab_size: int, tgt_vocab_size: int | None = None, **overrides: Any):
        """A model a 2-core CPU trains in an hour or two."""
        return cls._preset(
            src_vocab_size, tgt_vocab_size, overrides,
            d_model=256, n_heads=4, d_ff=1024, n_encoder_layers=3, n_decoder_layers=3,
        )  # fmt: skip

    @classmethod
    def base(cls, src_vocab_size: int, tgt_vocab_size: int | None = None, **overrides: Any):
        """The paper's base model (Table 3): N=6, d_model=512, d_ff=2048, h=8, dropout 0.1."""
        return cls._preset(src_vocab_size, tgt_vocab_size, overrides)

    @classmethod
    def big(cls, src_vocab_size: int, tgt_vocab_size: int | None = None, **overrides: Any):
        """The paper's big model (Table 3): d_model=1024, d_ff=4096, h=16, dropout 0.3."""
        return cls._preset(
            src_vocab_size, tgt_vocab_size, overrides,
            d_model=1024, n_heads=16, d_ff=4096, dropout=0.3,
        )  # fmt: skip

    @classmethod
    def preset(cls, name: str, src_vocab_size: int, tgt_vocab_size: int | None = None, **kw: Any):
        """A preset by name: ``tiny``, ``small``, ``base`` or ``big``."""
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
        return getattr(cls, name)(src_vocab_size, tgt_vocab_size, **kw)

    @classmethod
    def _preset(cls, src_vocab_size, tgt_vocab_size, overrides, **fields):
        tgt_vocab_size = src_vocab_size if tgt_vocab_size is None else tgt_vocab_size
        if src_vocab_size != tgt_vocab_size:
            fields["share_embeddings"] = "decoder"
        fields.update(overrides)
        return cls(src_vocab_size=src_vocab_size, tgt_vocab_size=tgt_vocab_size, **fields)

    # --- (de)serialisation ---------------------------------------------------------------------

    def replace(self, **changes: Any) -> ModelConfig:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ModelConfig:
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown ModelConfig field(s): {', '.join(unknown)}")
        return cls(**d)


PRESETS = ("tiny", "small", "base", "big")
