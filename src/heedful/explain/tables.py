"""Tables in the explainer's form: each word and the words it attends to most.

    Word    | Main words it attends to
    --------|-------------------------
    black   → negro (0.81), gato (0.12)

and the same as JSON for programs.
"""

from __future__ import annotations

from typing import Any

from heedful.explain.views import AttentionView, short

MIN_WEIGHT = 0.005  # below this a weight prints as 0.00: not worth a place in the table


def top_links(
    view: AttentionView, layer: int, head: int | None = None, top: int = 3
) -> list[tuple[str, list[tuple[int, str, float]]]]:
    """For every query: (label, its ``top`` keys as (index, label, weight), heaviest first).

    Keys it cannot see (masked or still in the future: weight 0) and keys whose weight would
    print as 0.00 are left out, but every query keeps at least its heaviest key."""
    weights = view.select(layer, head)  # [Q, K]
    values, indices = weights.topk(min(top, weights.shape[1]), dim=-1)  # [Q, top]
    return [
        (
            query,
            [
                (j, view.keys[j], w)
                for n, (w, j) in enumerate(zip(vs, ix, strict=True))
                if n == 0 or w >= MIN_WEIGHT
            ],
        )
        for query, vs, ix in zip(view.queries, values.tolist(), indices.tolist(), strict=True)
    ]


def format_table(view: AttentionView, layer: int, head: int | None = None, top: int = 3) -> str:
    """The table as text, under a line saying which kind, layer and head it shows."""
    links = [
        (short(q), [(short(k), w) for _, k, w in keys])
        for q, keys in top_links(view, layer, head, top)
    ]
    width = max([len(q) for q, _ in links] + [len("Word")]) + 2
    lines = [
        view.describe(layer, head),
        "",
        f"{'Word':<{width}}| Main words it attends to",
        f"{'-' * width}|{'-' * 25}",
    ]
    for query, keys in links:
        attended = ", ".join(f"{key} ({w:.2f})" for key, w in keys)
        lines.append(f"{query:<{width}}→ {attended}")
    return "\n".join(lines)


def table_json(
    view: AttentionView, layer: int, head: int | None = None, top: int = 3
) -> dict[str, Any]:
    """The table for programs. Layers and heads count from 1 (``head`` null = mean of heads);
    token indices count from 0, as in Pharaoh alignments."""
    rows = [
        {
            "index": i,
            "word": query,
            "attends_to": [{"index": j, "word": key, "weight": round(w, 4)} for j, key, w in keys],
        }
        for i, (query, keys) in enumerate(top_links(view, layer, head, top))
    ]
    return {
        "kind": view.kind,
        "layer": layer + 1,
        "head": None if head is None else head + 1,
        "n_layers": view.n_layers,
        "n_heads": view.n_heads,
        "queries": view.queries,
        "keys": view.keys,
        "rows": rows,
    }
