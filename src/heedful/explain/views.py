"""One kind of attention, labelled: what the tables, heatmaps, page and alignments all read.

Kinds are named as on the command line: ``encoder`` (encoder self-attention, [L, H, S, S]),
``decoder`` (decoder self-attention, [L, H, T, T]) and ``cross`` ([L, H, T, S]). A decoder-only
language model has only ``decoder``.

Layers and heads are 0-based here, as everywhere in Python; what a person reads (the command
line, tables, pictures, the page, JSON) counts them from 1, as the paper writes head_1 ... head_h.
``head=None`` means the mean over the layer's heads.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor

from heedful.attended import Attended
from heedful.explain.words import decoder_inputs

KINDS = ("encoder", "decoder", "cross")
TITLES = {
    "encoder": "encoder self-attention",
    "decoder": "decoder self-attention",
    "cross": "cross-attention",
}


@dataclass
class AttentionView:
    """The weights of one kind, with a label for every query (row) and key (column)."""

    kind: str
    queries: list[str]  # who attends: one label per row
    keys: list[str]  # what they attend to: one label per column
    weights: Tensor  # [L, H, Q, K]

    @property
    def n_layers(self) -> int:
        return self.weights.shape[0]

    @property
    def n_heads(self) -> int:
        return self.weights.shape[1]

    def select(self, layer: int, head: int | None = None) -> Tensor:
        """[Q, K] weights of one head, or the mean over the layer's heads (``head=None``)."""
        self.check(layer, head)
        w = self.weights[layer].float()  # [H, Q, K]
        return w.mean(0) if head is None else w[head]

    def check(self, layer: int, head: int | None) -> None:
        if not 0 <= layer < self.n_layers:
            raise ValueError(
                f"{TITLES[self.kind]} has layers 1..{self.n_layers}; layer {layer + 1} asked for"
            )
        if head is not None and not 0 <= head < self.n_heads:
            raise ValueError(
                f"{TITLES[self.kind]} has heads 1..{self.n_heads}; head {head + 1} asked for"
            )

    def describe(self, layer: int, head: int | None) -> str:
        """'cross-attention, layer 6 of 6, mean of 8 heads' (1-based, for people)."""
        which = f"mean of {self.n_heads} heads" if head is None else f"head {head + 1}"
        return f"{TITLES[self.kind]}, layer {layer + 1} of {self.n_layers}, {which}"


def views(attended: Attended) -> dict[str, AttentionView]:
    """Every kind the Attended holds, labelled (pieces or words, whichever it carries)."""
    src, tgt = attended.source_pieces, attended.target_pieces
    out = {}
    if attended.encoder_self is not None:
        out["encoder"] = AttentionView("encoder", src, src, attended.encoder_self)
    if attended.decoder_self is not None:
        out["decoder"] = AttentionView("decoder", tgt, decoder_inputs(tgt), attended.decoder_self)
    if attended.cross is not None:
        out["cross"] = AttentionView("cross", tgt, src, attended.cross)
    for view in out.values():
        expected = (len(view.queries), len(view.keys))
        if tuple(view.weights.shape[-2:]) != expected:
            raise ValueError(
                f"{TITLES[view.kind]} weights are {tuple(view.weights.shape)}, but the tokens "
                f"give {expected[0]} queries and {expected[1]} keys"
            )
    return out


def short(label: str, width: int = 24) -> str:
    """A label cut to ``width`` characters for tables and pictures (JSON keeps it whole)."""
    return label if len(label) <= width else label[: width - 1] + "…"


def default_kind(attended: Attended) -> str:
    """Cross-attention where there is any (the translation's view), else decoder self."""
    return "cross" if attended.cross is not None else "decoder"


def resolve(number: int | None, count: int, what: str) -> int | None:
    """A 1-based number from a person (negative counts from the end) -> a 0-based index."""
    if number is None:
        return None
    index = number - 1 if number > 0 else count + number
    if number == 0 or not 0 <= index < count:
        raise ValueError(f"{what} {number} does not exist: choose 1..{count} (or -1 for the last)")
    return index
