"""Label-smoothed cross-entropy (paper §5.4, Szegedy et al. 2016), padding ignored.

The model is trained towards q = (1 - ε) · onehot(y) + ε · u, with u uniform over every class
but padding, which is never a target. Per token:

    loss = (1 - ε) · (-log p_y) + ε · mean_{c ≠ pad} (-log p_c)
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor


@dataclass
class LossSums:
    """Sums over the real (non-pad) target tokens of a batch; divide by ``tokens`` to average."""

    loss: Tensor  # label-smoothed, what is minimised
    nll: Tensor  # plain negative log-likelihood, for perplexity and comparison
    tokens: int


def label_smoothed_loss(
    logits: Tensor, labels: Tensor, *, epsilon: float = 0.1, pad_id: int = 0
) -> LossSums:
    """logits: [B, T, V]; labels: [B, T] with ``pad_id`` where there is no target.

    Computed in fp32 whatever the logits' dtype (autocast gives bf16 logits).
    """
    log_probs = torch.log_softmax(logits.float(), dim=-1)  # [B, T, V]
    real = labels != pad_id  # [B, T]
    nll = -log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)  # [B, T]
    n_classes = log_probs.shape[-1] - 1  # every class but padding
    uniform = -(log_probs.sum(-1) - log_probs[..., pad_id]) / n_classes  # [B, T]
    loss = (1.0 - epsilon) * nll + epsilon * uniform
    zero = torch.zeros((), dtype=loss.dtype, device=loss.device)
    return LossSums(
        loss=torch.where(real, loss, zero).sum(),
        nll=torch.where(real, nll, zero).sum().detach(),
        tokens=int(real.sum()),
    )
