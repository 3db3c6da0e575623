"""What each head does, measured on data: which heads are sure of themselves, which spread their
attention, and which the model cannot do without.

For every (kind, layer, head), over the real (not padding) query positions of the data:

- confidence: the mean of the largest weight of each query (Voita et al., 2019, "Analyzing
  Multi-Head Self-Attention"): 1 = always attends to one token;
- entropy: the mean entropy of each query's weights, in nats (0 = one token; ln K = uniform);
- importance: the rise in the per-token cross-entropy loss when that head alone is silenced
  (``HeadMask`` sets its output to 0; Michel et al., 2019, "Are Sixteen Heads Really Better than
  One?"). Positive = the model needs the head.

Works for the Transformer (encoder, decoder, cross) and the decoder-only model (decoder).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from heedful.explain.views import KINDS
from heedful.lm import DecoderOnlyLM
from heedful.model import HeadMask
from heedful.training.batching import Batch

FIELDS = {"encoder": "encoder_self", "decoder": "decoder_self", "cross": "cross"}


@dataclass
class HeadStats:
    kind: str
    layer: int  # 0-based
    head: int  # 0-based
    confidence: float
    entropy: float
    importance: float


def kinds_of(model: nn.Module) -> list[str]:
    return ["decoder"] if isinstance(model, DecoderOnlyLM) else list(KINDS)


def shape_of(model: nn.Module, kind: str) -> tuple[int, int]:
    """(layers, heads) of a kind."""
    config = model.config
    n_layers = config.n_encoder_layers if kind == "encoder" else config.n_decoder_layers
    return n_layers, config.n_heads


def _forward(model: nn.Module, batch: Batch, head_mask: HeadMask | None, weights: bool):
    if isinstance(model, DecoderOnlyLM):
        return model(batch.tgt_in, head_mask=head_mask, return_attention=weights)
    return model(batch.src, batch.tgt_in, head_mask=head_mask, return_attention=weights)


def _loss_sum(logits: Tensor, labels: Tensor, pad_id: int) -> float:
    return float(
        F.cross_entropy(
            logits.flatten(0, 1).float(), labels.flatten(), ignore_index=pad_id, reduction="sum"
        )
    )


def silencing(model: nn.Module, kind: str, layer: int, head: int) -> HeadMask:
    """A HeadMask that silences one head and keeps every other."""
    device = next(model.parameters()).device
    mask = HeadMask()
    for k in kinds_of(model):
        setattr(mask, FIELDS[k], torch.ones(*shape_of(model, k), device=device))
    getattr(mask, FIELDS[kind])[layer, head] = 0.0
    return mask


@torch.no_grad()
def head_stats(model: nn.Module, batches: Sequence[Batch], progress=None) -> list[HeadStats]:
    """Confidence, entropy and importance of every head over the batches (see the module doc).

    ``progress``, if given, is called with (done, total) after each pass over the data."""
    model.eval()
    device = next(model.parameters()).device
    batches = [b.to(device) for b in batches]
    pad_id = model.config.pad_id
    kinds = kinds_of(model)
    n_tokens = sum(int((b.labels != pad_id).sum()) for b in batches)
    if n_tokens == 0:
        raise ValueError("the data has no tokens to measure on")

    # One pass with the weights: confidence and entropy, and the loss with every head on.
    sums = {k: torch.zeros(2, *shape_of(model, k), dtype=torch.float64) for k in kinds}
    counts = dict.fromkeys(kinds, 0)
    base = 0.0
    for batch in batches:
        out = _forward(model, batch, None, True)
        base += _loss_sum(out.logits, batch.labels, pad_id)
        for kind in kinds:
            w = getattr(out.attention, FIELDS[kind]).float()  # [L, B, H, Q, K]
            real = (batch.src if kind == "encoder" else batch.tgt_in) != pad_id  # [B, Q]
            real = real[None, :, None, :].to(w.dtype)  # [1, B, 1, Q]
            confidence = w.amax(-1)  # [L, B, H, Q]
            entropy = torch.special.entr(w).sum(-1)
            sums[kind][0] += (confidence * real).sum((1, 3)).double().cpu()
            sums[kind][1] += (entropy * real).sum((1, 3)).double().cpu()
            counts[kind] += int(real.sum())
    base /= n_tokens

    total = sum(shape_of(model, k)[0] * shape_of(model, k)[1] for k in kinds)
    done = 0
    stats = []
    for kind in kinds:
        n_layers, n_heads = shape_of(model, kind)
        for layer in range(n_layers):
            for head in range(n_heads):
                mask = silencing(model, kind, layer, head)
                loss = sum(
                    _loss_sum(_forward(model, b, mask, False), b.labels, pad_id) for b in batches
                )
                stats.append(
                    HeadStats(
                        kind, layer, head,
                        confidence=float(sums[kind][0, layer, head]) / counts[kind],
                        entropy=float(sums[kind][1, layer, head]) / counts[kind],
                        importance=loss / n_tokens - base,
                    )
                )  # fmt: skip
                done += 1
                if progress is not None:
                    progress(done, total)
    return stats


def ranked(stats: Sequence[HeadStats]) -> list[HeadStats]:
    """Most important first."""
    return sorted(stats, key=lambda s: -s.importance)


def format_stats(stats: Sequence[HeadStats], top: int | None = None) -> str:
    """A table, most important head first; layers and heads counted from 1."""
    lines = [
        f"{'attention':<9} {'layer':>5} {'head':>4}  {'importance':>10}  {'confidence':>10}  "
        f"{'entropy':>7}",
        "-" * 54,
    ]
    for n, s in enumerate(ranked(stats)):
        if top is not None and n >= top:
            break
        lines.append(
            f"{s.kind:<9} {s.layer + 1:>5} {s.head + 1:>4}  {s.importance:>+10.4f}  "
            f"{s.confidence:>10.3f}  {s.entropy:>7.3f}"
        )
    return "\n".join(lines)


def stats_json(stats: Sequence[HeadStats]) -> list[dict]:
    """Most important first; layers and heads counted from 1."""
    return [{**asdict(s), "layer": s.layer + 1, "head": s.head + 1} for s in ranked(stats)]
