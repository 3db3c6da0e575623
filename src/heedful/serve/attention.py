"""The /attention answer: an Attended cut to the kinds, layers and heads asked for, labelled, with
the explainer's table. Everything here is ``heedful.explain``'s (views, words, tables); this module
only selects and writes JSON."""

from __future__ import annotations

from typing import Any

import torch

from heedful.attended import Attended
from heedful.explain.tables import format_table, table_json
from heedful.explain.views import KINDS, TITLES, AttentionView, resolve, views
from heedful.explain.words import to_words
from heedful.serve.schemas import AttentionRequest

DECIMALS = 6  # JSON weights: far below what a person or a two-decimal table can see


def attention_payload(attended: Attended, request: AttentionRequest) -> dict[str, Any]:
    """Everything after ``model`` in an AttentionResponse. Raises ValueError (a 422 for the
    client) for a kind the model lacks or a layer or head out of range."""
    shown = to_words(attended) if request.level == "words" else attended
    labelled = views(shown)
    kinds = [k for k in KINDS if k in labelled]
    wanted = kinds if request.kind == "all" else [request.kind]
    if request.kind != "all" and request.kind not in labelled:
        have = ", ".join(TITLES[k] for k in kinds)
        raise ValueError(f"this model has no {TITLES[request.kind]} (it has: {have})")
    return {
        "source": attended.source,
        "translation": attended.translation,
        "score": attended.score,
        "level": request.level,
        "kinds": {
            k: {
                "title": TITLES[k],
                "n_layers": labelled[k].n_layers,
                "n_heads": labelled[k].n_heads,
            }
            for k in kinds
        },
        "attention": {k: view_payload(labelled[k], request) for k in wanted},
    }


def view_payload(view: AttentionView, request: AttentionRequest) -> dict[str, Any]:
    layer = resolve(request.layer, view.n_layers, "layer")
    layers = list(range(view.n_layers)) if layer is None else [layer]
    if request.head == "mean":
        heads: list[int | None] = [None]
    else:
        head = resolve(request.head, view.n_heads, "head")
        heads = list(range(view.n_heads)) if head is None else [head]
    weights = torch.stack(
        [torch.stack([view.select(l, h) for h in heads]) for l in layers]
    )  # [layers, heads, Q, K]
    # The table shows the one layer and head asked for; else the last layer, mean of the heads.
    table_layer = layers[-1]
    table_head = heads[0] if len(heads) == 1 else None
    rows = table_json(view, table_layer, table_head, request.top)["rows"]
    return {
        "title": TITLES[view.kind],
        "queries": view.queries,
        "keys": view.keys,
        "n_layers": view.n_layers,
        "n_heads": view.n_heads,
        "layers": [l + 1 for l in layers],
        "heads": ["mean" if h is None else h + 1 for h in heads],
        "weights": weights.double().round(decimals=DECIMALS).tolist(),
        "table": {
            "layer": table_layer + 1,
            "head": None if table_head is None else table_head + 1,
            "describe": view.describe(table_layer, table_head),
            "text": format_table(view, table_layer, table_head, request.top),
            "rows": rows,
        },
    }
