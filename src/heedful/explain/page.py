"""One self-contained HTML page to explore every head: choose the kind, the layer and the head,
hover a word to see where it attends (like bertviz's head view, with cross-attention too).

The page is a single file that works offline: the template (``page.html``, inline CSS and JS, no
CDN), the script it shares with ``heedful serve``'s page (``shared.js``, inlined) and the weights
embedded as JSON. Each kind's weights travel as one byte per weight (0-255, base64): a 100-token
sentence through 6 layers of 8 heads stays a few megabytes, and the page shows two decimals, which
one byte resolves.
"""

from __future__ import annotations

import base64
import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import torch

from heedful.attended import Attended
from heedful.explain.views import KINDS, TITLES, AttentionView, default_kind, views
from heedful.explain.words import to_words

TEMPLATE = "page.html"


def encode_view(view: AttentionView) -> dict[str, Any]:
    """A kind's labels and weights [L, H, Q, K] as bytes (round(255 w), row-major, base64)."""
    quantized = (view.weights.detach().float().cpu().clamp(0, 1) * 255).round().to(torch.uint8)
    return {
        "title": TITLES[view.kind],
        "queries": view.queries,
        "keys": view.keys,
        "shape": list(view.weights.shape),
        "weights": base64.b64encode(quantized.contiguous().numpy().tobytes()).decode("ascii"),
    }


def page_data(
    attended: Attended, *, kind: str | None = None, layer: int | None = None, head=None
) -> dict[str, Any]:
    """What the page shows: both levels (words, subword pieces) of every kind, and what to
    show first (0-based ``layer``, default the last; ``head`` None = mean of heads)."""
    levels = {
        "words": {k: encode_view(v) for k, v in views(to_words(attended)).items()},
        "pieces": {k: encode_view(v) for k, v in views(attended).items()},
    }
    kind = kind or default_kind(attended)
    if kind not in levels["words"]:
        raise ValueError(f"this model has no {TITLES.get(kind, kind)}")
    n_layers = levels["words"][kind]["shape"][0]
    return {
        "source": attended.source,
        "translation": attended.translation,
        "kinds": [k for k in KINDS if k in levels["words"]],
        "levels": levels,
        "start": {
            "kind": kind,
            "layer": n_layers - 1 if layer is None else layer,
            "head": head,
            "level": "words",
        },
    }


def shared_script() -> str:
    """The script this page shares with ``heedful serve``'s page (head colours, the heatmaps'
    Blues ramp, toggle buttons): inlined here, sent by the server as /static/shared.js."""
    return resources.files("heedful.explain").joinpath("shared.js").read_text(encoding="utf-8")


def render_page(attended: Attended, **start: Any) -> str:
    """The page as one HTML string."""
    template = resources.files("heedful.explain").joinpath(TEMPLATE).read_text(encoding="utf-8")
    data = json.dumps(page_data(attended, **start), ensure_ascii=False, separators=(",", ":"))
    # "<" occurs only inside JSON strings, where \u003c means the same: no token (</s>, or a
    # user's "</script>") can end the <script> element early.
    fills = {
        "DATA": data.replace("<", "\\u003c"),
        "TITLE": html.escape(f"heedful · {attended.source or attended.translation}"),
        "SHARED": shared_script(),
    }
    return re.sub(r"__(DATA|TITLE|SHARED)__", lambda m: fills[m.group(1)], template)


def save_page(attended: Attended, path: str | Path, **start: Any) -> Path:
    """Write the page to ``path`` (kind, layer, head: what it opens on)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(attended, **start), encoding="utf-8")
    return path
