"""heedful: the Transformer of "Attention Is All You Need" — train it, translate with it, and see
what every attention head does."""

import importlib
import importlib.metadata

__version__ = importlib.metadata.version("heedful")  # pyproject.toml's, as installed

# name -> the module that defines it. Imported on first use (PEP 562), so that `heedful --version`
# and `--help` start without importing torch.
_EXPORTS = {
    "MultiHeadAttention": "heedful.attention",
    "scaled_dot_product_attention": "heedful.attention",
    "ModelConfig": "heedful.config",
    "KeyValue": "heedful.kv_cache",
    "LMCache": "heedful.kv_cache",
    "DecoderOnlyLM": "heedful.lm",
    "AttentionWeights": "heedful.model",
    "DecoderCache": "heedful.model",
    "HeadMask": "heedful.model",
    "Memory": "heedful.model",
    "StepOutput": "heedful.model",
    "Transformer": "heedful.model",
    "TransformerOutput": "heedful.model",
    "LengthPenalty": "heedful.search",
    "Sampling": "heedful.search",
    "Translation": "heedful.translator",
    "Translator": "heedful.translator",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # once: later lookups find it directly
        return value
    raise AttributeError(f"module 'heedful' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
