"""The model's configuration: one frozen dataclass, named presets, overrides by field name.

Dimensions use the paper's names (Vaswani et al., 2017, §3): ``d_model``, ``d_ff``, ``h`` as
``n_heads``, ``N`` as ``n_encoder_layers`` / ``n_decoder_layers``.
"""

from __future__ import annotations

import dataclasses
import math
import types
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

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
        self._check_types()
        for name in ("src_vocab_size", "tgt_vocab_size", "d_model", "n_heads", "d_ff",
                     "max_positions"):  # fmt: skip
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, not {getattr(self, name)}")
        for name in ("n_encoder_layers", "n_decoder_layers"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, not {getattr(self, name)}")
        vocab = min(self.src_vocab_size, self.tgt_vocab_size)
        for name in ("pad_id", "bos_id", "eos_id", "decoder_start_id"):
            value = getattr(self, name)
            if value is not None and not 0 <= value < vocab:
                raise ValueError(
                    f"{name} ({value}) must be a token of the vocabulary: between 0 and {vocab - 1}"
                )
        if not self.layer_norm_eps > 0:
            raise ValueError(f"layer_norm_eps must be > 0, not {self.layer_norm_eps}")
        if self.d_model % self.n_heads:
            raise ValueError(
                f"d_model ({self.d_model}) must be divisible by n_heads ({self.n_heads})"
            )
        if self.share_embeddings == "all" and self.src_vocab_size != self.tgt_vocab_size:
            raise ValueError(
                "share_embeddings='all' needs one joint vocabulary, but src_vocab_size="
                f"{self.src_vocab_size} and tgt_vocab_size={self.tgt_vocab_size}"
            )
        if self.d_model % 2:
            raise ValueError(f"sinusoidal positions need an even d_model, not {self.d_model}")
        if self.attention_window is not None and self.attention_window < 0:
            raise ValueError(f"attention_window must be >= 0 or None, not {self.attention_window}")
        if not 0.0 <= self.dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), not {self.dropout}")

    def _check_types(self) -> None:
        """Every field of the type it is declared with (a config.json may hold anything)."""
        for f in dataclasses.fields(self):
            value, hint = getattr(self, f.name), _HINTS[f.name]
            options = get_args(hint) if get_origin(hint) in (Union, types.UnionType) else (hint,)
            if not any(_is_a(value, option) for option in options):
                raise ValueError(f"{f.name} must be {_describe(options)}, not {value!r}")

    @property
    def d_head(self) -> int:
        """d_k = d_v = d_model / h (paper §3.2.2)."""
        return self.d_model // self.n_heads

    def num_parameters(self, *, decoder_only: bool = False) -> int:
        """The parameters of a model of this shape, each shared tensor counted once: what
        ``Transformer(config).num_parameters()`` (``DecoderOnlyLM`` with ``decoder_only``)
        will give, known before anything is allocated."""
        d, d_ff, V = self.d_model, self.d_ff, self.tgt_vocab_size
        attention = 4 * (d * d + d)  # W^Q, W^K, W^V, W^O, each with a bias
        ffn = 2 * d * d_ff + d_ff + d
        norm = 2 * d  # LayerNorm's gain and bias
        final = norm if self.norm_first else 0
        output = 0 if self.share_embeddings != "none" else V * d
        if decoder_only:  # N self-attention blocks over one embedding table
            return V * d + self.n_decoder_layers * (attention + ffn + 2 * norm) + final + output
        source = 0 if self.share_embeddings == "all" else self.src_vocab_size * d
        encoder = self.n_encoder_layers * (attention + ffn + 2 * norm) + final
        decoder = self.n_decoder_layers * (2 * attention + ffn + 3 * norm) + final
        return V * d + source + encoder + decoder + output

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
        if not isinstance(d, dict):
            raise ValueError(f"expected an object of ModelConfig fields, not {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - known)
        if unknown:
            raise ValueError(f"unknown ModelConfig field(s): {', '.join(unknown)}")
        return cls(**d)


PRESETS = ("tiny", "small", "base", "big")
_HINTS = get_type_hints(ModelConfig)


def _is_a(value: Any, hint: Any) -> bool:
    if hint is type(None):
        return value is None
    if get_origin(hint) is Literal:
        return isinstance(value, str) and value in get_args(hint)
    if hint is bool:
        return isinstance(value, bool)
    if isinstance(value, bool):  # True is an int to Python, not a size
        return False
    if hint is float:
        return isinstance(value, int | float) and math.isfinite(value)
    return isinstance(value, hint)


def _describe(options: tuple[Any, ...]) -> str:
    words = {int: "an integer", float: "a number", bool: "true or false", type(None): "null"}
    return " or ".join(
        " or ".join(map(repr, get_args(o))) if get_origin(o) is Literal else words[o]
        for o in options
    )
