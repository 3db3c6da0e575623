"""Heatmaps as PNG files: one labelled map, or a grid of every layer (rows) by head (columns).

Drawn with matplotlib's Agg canvas directly (no pyplot, so no global state and no display).
Rows are the queries (who attends), columns the keys (what they attend to); darker = more. The
colour scale runs from 0 to the largest weight drawn (shared by every map of a grid).
"""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from heedful.explain.views import TITLES, AttentionView, short

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
