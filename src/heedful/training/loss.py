"""Label-smoothed cross-entropy (paper §5.4, Szegedy et al. 2016), padding ignored.

The model is trained towards q = (1 - ε) · onehot(y) + ε · u, with u uniform over every class
but padding, which is never a target. Per token:

    loss = (1 - ε) · (-log p_y) + ε · mean_{c ≠ pad} (-log p_c)

and its gradient with respect to the logits is simply p - q. The backward pass writes that
directly, block by block of rows, instead of letting autograd go through the gather, the sum
and a log-softmax over all [tokens, V] values at once: on Tatoeba batches of the small model
(8,000 words, bf16, 2 CPU cores) this made a training update 1.06-1.12x faster.
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

    Computed in fp32 from fp32, fp16 or bf16 logits (autocast gives bf16), in fp64 from fp64.
    """
    real = labels != pad_id  # [B, T]
    loss, nll = _SmoothedCrossEntropy.apply(
        logits.flatten(0, -2), labels.flatten(), real.flatten(), epsilon, pad_id
    )
    return LossSums(loss=loss, nll=nll.detach(), tokens=int(real.sum()))


class _SmoothedCrossEntropy(torch.autograd.Function):
    """(summed smoothed loss, summed nll) of logits [N, V] against labels [N]; rows where
    ``real`` is False count for nothing. Only the first output has a gradient.

    On CPU both passes go over ``ROWS`` rows at a time, so that each block's log-probabilities
    stay in the cache between the operations that read them (on a GPU, one block: fewer kernel
    launches); the backward pass recomputes them from the logits instead of keeping [N, V]
    floats.
    """

    ROWS = 128

    @staticmethod
    def forward(ctx, logits, labels, real, epsilon: float, pad_id: int):
        dtype = torch.promote_types(logits.dtype, torch.float32)  # fp64 stays (gradcheck)
        other_classes = logits.shape[-1] - 1  # every class but padding
        nll = torch.empty(logits.shape[0], dtype=dtype, device=logits.device)
        uniform = torch.empty_like(nll)
        for rows in _blocks(logits):
            log_probs = torch.log_softmax(logits[rows], dim=-1, dtype=dtype)  # [n, V]
            nll[rows] = log_probs.gather(-1, labels[rows].unsqueeze(-1)).squeeze(-1).neg_()
            uniform[rows] = (log_probs[:, pad_id] - log_probs.sum(-1)) / other_classes
        loss = (1.0 - epsilon) * nll + epsilon * uniform
        zero = torch.zeros((), dtype=dtype, device=logits.device)
        ctx.save_for_backward(logits, labels, real)
        ctx.epsilon, ctx.pad_id = epsilon, pad_id
        ctx.mark_non_differentiable(nll)
        return torch.where(real, loss, zero).sum(), torch.where(real, nll, zero).sum()

    @staticmethod
    def backward(ctx, grad_loss, _grad_nll):
        logits, labels, real = ctx.saved_tensors
        epsilon, pad_id = ctx.epsilon, ctx.pad_id
        dtype = torch.promote_types(logits.dtype, torch.float32)
        q_other = epsilon / (logits.shape[-1] - 1)  # q on every class but padding and the label
        row_grad = (grad_loss * real.to(dtype)).unsqueeze(-1)  # [N, 1]: 0 on padding
        grad = torch.empty_like(logits)
        for rows in _blocks(logits):
            g = row_grad[rows]
            # (p - q) · g, with q = q_other on every class but padding, plus 1 - ε on the label
            block = torch.softmax(logits[rows], dim=-1, dtype=dtype).sub_(q_other).mul_(g)
            block[:, pad_id] += q_other * g.squeeze(-1)
            block.scatter_add_(-1, labels[rows].unsqueeze(-1), -(1.0 - epsilon) * g)
            grad[rows] = block
        return grad, None, None, None, None


def _blocks(logits: Tensor) -> list[slice]:
    n = logits.shape[0]
    size = _SmoothedCrossEntropy.ROWS if logits.device.type == "cpu" else max(n, 1)
    return [slice(start, min(start + size, n)) for start in range(0, n, size)]
