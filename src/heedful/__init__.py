"""heedful: the Transformer of "Attention Is All You Need" — train it, translate with it, and see
what every attention head does."""

import importlib.metadata

from heedful.attention import MultiHeadAttention, scaled_dot_product_attention
from heedful.config import ModelConfig
from heedful.kv_cache import KeyValue
from heedful.lm import DecoderOnlyLM, LMCache
from heedful.model import (
    AttentionWeights,
    DecoderCache,
    HeadMask,
    Memory,
    StepOutput,
    Transformer,
    TransformerOutput,
)
from heedful.search import LengthPenalty, Sampling
from heedful.translator import Translation, Translator

__version__ = importlib.metadata.version("heedful")  # pyproject.toml's, as installed

__all__ = [
    "AttentionWeights",
    "DecoderCache",
    "DecoderOnlyLM",
    "HeadMask",
    "KeyValue",
    "LMCache",
    "LengthPenalty",
    "Memory",
    "ModelConfig",
    "MultiHeadAttention",
    "Sampling",
    "StepOutput",
    "Transformer",
    "TransformerOutput",
    "Translation",
    "Translator",
    "scaled_dot_product_attention",
]
