"""The learning rate of paper §5.3, eq. (3):

    lrate = d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5)

linear warm-up for ``warmup_steps`` updates, then decay with the inverse square root of the step;
``scale`` multiplies it (1 in the paper; 2 is common). Steps count updates from 1.
"""

from __future__ import annotations


def learning_rate(step: int, *, d_model: int, warmup_steps: int, scale: float = 1.0) -> float:
    """The rate for update number ``step`` (>= 1)."""
    if step < 1:
        raise ValueError(f"steps count from 1, not {step}")
    return scale * d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)
