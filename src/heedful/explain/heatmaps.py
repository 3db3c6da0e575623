"""Heatmaps as PNG files: one labelled map, or a grid of every layer (rows) by head (columns);
and the head statistics' maps (``heedful.explain.heads``, ``save_stats_png``).

Drawn with matplotlib's Agg canvas directly (no pyplot, so no global state and no display).
Rows are the queries (who attends), columns the keys (what they attend to); darker = more. The
colour scale runs from 0 to the largest weight drawn (shared by every map of a grid).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from heedful.explain.heads import HeadStats
from heedful.explain.views import KINDS, TITLES, AttentionView, short

CMAP = "Blues"
AXIS_NAMES = {
    "encoder": ("source (attends)", "source (attended to)"),
    "decoder": ("target (producing)", "target (read so far)"),
    "cross": ("target (producing)", "source"),
}


def _label_size(n: int) -> float:
    """Smaller labels for longer sentences, never unreadably small."""
    return max(5.0, min(10.0, 260.0 / max(n, 1)))


def save_map(view: AttentionView, path: str | Path, layer: int, head: int | None = None) -> Path:
    """One heatmap with every token labelled, a colour bar and a title."""
    weights = view.select(layer, head).detach().cpu().numpy()  # [Q, K]
    n_q, n_k = weights.shape
    cell = 0.28 if max(n_q, n_k) <= 40 else 0.16
    fig = Figure(figsize=(max(4.5, 2.2 + cell * n_k), max(3.5, 1.8 + cell * n_q)), dpi=110)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    image = ax.imshow(
        weights, cmap=CMAP, vmin=0.0, vmax=_top(weights), aspect="auto", interpolation="none"
    )
    ax.set_xticks(
        range(n_k), [short(k) for k in view.keys], rotation=60, ha="right", rotation_mode="anchor"
    )
    ax.set_yticks(range(n_q), [short(q) for q in view.queries])
    ax.tick_params(axis="x", labelsize=_label_size(n_k))
    ax.tick_params(axis="y", labelsize=_label_size(n_q))
    rows, cols = AXIS_NAMES[view.kind]
    ax.set_ylabel(rows)
    ax.set_xlabel(cols)
    ax.set_title(view.describe(layer, head), fontsize=10)
    fig.colorbar(image, ax=ax, fraction=0.04, pad=0.02, label="attention weight")
    fig.tight_layout()
    return _save(fig, path)


def save_grid(view: AttentionView, path: str | Path) -> Path:
    """Every head of every layer: rows are layers, columns heads, one shared colour bar.

    Tokens are labelled along the left and bottom edges when they fit (up to 40 of them)."""
    n_layers, n_heads, n_q, n_k = view.weights.shape
    weights = view.weights.detach().float().cpu().numpy()
    labelled = max(n_q, n_k) <= 40
    size = 2.4 if labelled and max(n_q, n_k) > 12 else 1.8
    fig = Figure(
        figsize=(1.6 + size * n_heads, 1.0 + size * n_layers), dpi=110, layout="constrained"
    )
    FigureCanvasAgg(fig)
    axes = fig.subplots(n_layers, n_heads, squeeze=False)
    image, vmax = None, _top(weights)
    for layer in range(n_layers):
        for head in range(n_heads):
            ax = axes[layer][head]
            image = ax.imshow(weights[layer, head], cmap=CMAP, vmin=0.0, vmax=vmax, aspect="auto")
            ax.set_xticks([])
            ax.set_yticks([])
            if layer == 0:
                ax.set_title(f"head {head + 1}", fontsize=9)
            if head == 0:
                ax.set_ylabel(f"layer {layer + 1}", fontsize=9)
                if labelled:
                    ax.set_yticks(
                        range(n_q),
                        [short(q, 16) for q in view.queries],
                        fontsize=_label_size(n_q) * 0.75,
                    )
            if layer == n_layers - 1 and labelled:
                ax.set_xticks(
                    range(n_k),
                    [short(k, 16) for k in view.keys],
                    rotation=90,
                    fontsize=_label_size(n_k) * 0.75,
                )
    title = f"{TITLES[view.kind]}: every layer (rows) and head (columns)"
    fig.suptitle(title, fontsize=11)
    fig.colorbar(image, ax=axes, shrink=0.8, aspect=30, label="attention weight")
    return _save(fig, path)


def _top(weights) -> float:
    """The colour scale's top: the largest weight shown (so diffuse heads still show contrast;
    the colour bar gives the scale)."""
    return max(float(weights.max()), 0.05)


def _save(fig: Figure, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def save_stats_png(stats: Sequence[HeadStats], path: str | Path) -> Path:
    """One row per kind, one column per measure, each a layer x head map with its numbers."""
    kinds = [k for k in KINDS if any(s.kind == k for s in stats)]
    measures = [
        ("importance", "loss rise when silenced", "RdBu_r"),
        ("confidence", "mean max weight", "Blues"),
        ("entropy", "mean entropy (nats)", "Purples"),
    ]
    grids = {}
    for kind in kinds:
        mine = [s for s in stats if s.kind == kind]
        n_layers = 1 + max(s.layer for s in mine)
        n_heads = 1 + max(s.head for s in mine)
        for name, _, _ in measures:
            grid = torch.full((n_layers, n_heads), float("nan"))
            for s in mine:
                grid[s.layer, s.head] = getattr(s, name)
            grids[kind, name] = grid.numpy()
    n_layers = max(g.shape[0] for g in grids.values())
    n_heads = max(g.shape[1] for g in grids.values())
    fig = Figure(
        figsize=(3 * (1.2 + 0.55 * n_heads), len(kinds) * (1.3 + 0.45 * n_layers)), dpi=110
    )
    FigureCanvasAgg(fig)
    axes = fig.subplots(len(kinds), len(measures), squeeze=False)
    for r, kind in enumerate(kinds):
        for c, (name, label, cmap) in enumerate(measures):
            ax, grid = axes[r][c], grids[kind, name]
            if name == "importance":
                reach = max(float(abs(grid).max()), 1e-6)
                vmin, vmax = -reach, reach
            else:
                vmin, vmax = 0.0, 1.0 if name == "confidence" else max(float(grid.max()), 1e-6)
            image = ax.imshow(grid, cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto")
            for (i, j), value in _cells(grid):
                strength = abs(value) / vmax if name == "importance" else value / vmax
                ax.text(
                    j, i, f"{value:.3f}" if name == "importance" else f"{value:.2f}",
                    ha="center", va="center", fontsize=7,
                    color="white" if strength > 0.6 else "black",
                )  # fmt: skip
            ax.set_xticks(range(grid.shape[1]), [str(h + 1) for h in range(grid.shape[1])])
            ax.set_yticks(range(grid.shape[0]), [str(x + 1) for x in range(grid.shape[0])])
            ax.tick_params(labelsize=8)
            ax.set_xlabel("head", fontsize=8)
            if c == 0:
                ax.set_ylabel(f"{TITLES[kind]}\nlayer", fontsize=9)
            if r == 0:
                ax.set_title(f"{name}: {label}", fontsize=9)
            fig.colorbar(image, ax=ax, fraction=0.046, pad=0.03).ax.tick_params(labelsize=7)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, format="png")
    return path


def _cells(grid):
    for i in range(grid.shape[0]):
        for j in range(grid.shape[1]):
            yield (i, j), float(grid[i, j])
