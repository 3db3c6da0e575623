"""The learning rate of paper §5.3, eq. (3):

    lrate = d_model^-0.5 · min(step^-0.5, step · warmup_steps^-1.5)

linear warm-up for ``warmup_steps`` updates, then decay with the inverse square root of the step;
``scale`` multiplies it (1 in the paper; 2 is common). Steps count updates from 1.

Not in the paper: a run with a fixed budget of updates can end with a cool-down, the rate taken
linearly to zero over its last ``cooldown_steps`` updates (the "warmup-stable-decay" shape).
"""

from __future__ import annotations


def learning_rate(step: int, *, d_model: int, warmup_steps: int, scale: float = 1.0) -> float:
    """The rate for update number ``step`` (>= 1)."""
    if step < 1:
        raise ValueError(f"steps count from 1, not {step}")
    return scale * d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)


def cooldown_factor(step: int, *, max_steps: int, cooldown_steps: int) -> float:
    """What multiplies the rate of update ``step``: 1 until the last ``cooldown_steps`` updates
    of ``max_steps``, then down in equal steps to 1/cooldown_steps at the last update."""
    if cooldown_steps <= 0:
        return 1.0
    return min(1.0, (max_steps - step + 1) / cooldown_steps)
