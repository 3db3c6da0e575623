"""Ways to read word alignments out of a trained translation model, and the one a model records.

Every method turns one sentence pair (the reference target forced, or a translation) into a
word-level score matrix [target words, source words], then links words from it.

Scores:

- ``predict``: cross-attention at the step that *predicts* target token y_t (row t of
  ``Attended.cross``), in one layer, averaged over some heads; Garg et al. (2019) read the
  penultimate layer's mean over heads, which is heedful's default.
- ``shift``: cross-attention at the step where y_t is the decoder's *input* (row t + 1), as in
  Chen et al. (2020, "Accurate Word Alignment Induction from Neural Machine Translation").
- ``full``: read as ``shift``, in a pass where the decoder's self-attention has no causal mask
  (every position reads the whole target): Garg et al.'s (2019) full target context, for a model
  whose guided head was trained that way (``align.position: full``). One more forced pass.
- ``erase``: how much the log-probability of y_t drops when one source word is hidden from the
  model (Li et al., 2016, "Understanding Neural Networks through Representation Erasure"):
  one forced-decoding pass per source word (``heedful.explain.erasure``); no layer, no heads.

Subword pieces become words as ``heedful.explain.words`` merges attention (to a source word: the
sum over its pieces; from a target word: the mean over its pieces); erasure hides a whole word
and averages over a target word's pieces.

``spelling`` (a weight, 0 by default): before linking, each target word's scores (made to sum
to 1 over the source words) gain ``spelling`` x their largest x how alike the two words are
spelt (``spelling_prior``: a common beginning of 4 letters or more, accents and case aside, or
the same number or short word). A word the model never read is cut into rare pieces whose
attention says little, and in related languages such words are often spelt alike ("Minister" /
"ministre", names, numbers). This is no longer the model alone: ``describe`` says so.

``blend`` (a weight from 0 to 1, 0 by default) mixes a second reading into an attention method's
scores: ``predict`` in ``blend_layer`` (the last by default), mean of every head. Each target
word's scores of both readings are made to sum to 1 and multiplied, the first to the power
1 - ``blend``, the second to ``blend``. The guided head says where a word comes from; the last
layer, reading what it will predict next, says it differently, and where both agree the link is
surer (the bundled en -> fr model: 0.107 -> 0.097 on the Hansards dev gold with the two weights
below; bench/README.md). Decoding keeps the second reading's weights too (``heedful.aligning``),
at one more small product a step.

``linked`` (a weight, 0 by default): before the spelling, each target word's scores (made to sum
to 1) are multiplied by (Dice + 0.001) ** ``linked``, Dice being how often links of the training
corpus joined the two words (``heedful.explain.linked_words``, the model directory's
``linked-words.tsv``): eflomal's links, or the model's own (``own_linked_words``; then the
method is still the model alone), as the file's first line says.

``confidence`` (a share from 0 to 1, 0 by default): of the links found, only those holding that
share or more of their target word's weighed scores are kept. A word the model reads no single
source word for (a function word the other language lacks: "de", "the") then stays unlinked,
where it was linked to its best guess; the bundled en -> fr model: 0.1017 -> 0.0965 from the
model alone at 0.5 on the Hansards dev gold (bench/README.md).

``normalize="source"`` divides each source word's column by its total, so that a source word
every target step looks at (a sentence-final full stop) no longer wins every row. ``links``:
``argmax`` links each target word to its best source word; ``intersection`` and
``grow-diag-final-and`` also take each source word's best target word and symmetrise the two
sets as Koehn et al. (2005) do for two directions of a statistical aligner
(``heedful.wordalign.symmetrize``): the links both agree on (precise; a word may stay
unaligned), or those grown from them towards the union.

A model directory records the method to use in its config.json, under ``"alignment"``::

    {"method": "predict", "layer": 2, "heads": [0, 1], "normalize": "source",
     "links": "grow-diag-final-and", "spelling": 2.0, "linked": 0.5,
     "chosen_on": "hansards-en-fr/dev.gold", "aer": 0.37}

``layer`` and ``heads`` count from 0; ``heads`` null means all; ``normalize``, ``links``,
``spelling``, ``linked``, ``blend`` and ``blend_layer`` may be left out (``target``,
``argmax``, 0, 0, 0, the last layer). Without a record,
the default is today's: ``predict``, penultimate layer, every head. Guided-alignment training
records its supervised head as
``{"method": "predict", "layer": L, "heads": [h], "chosen_on": "guided training"}``.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from heedful.attended import Attended
from heedful.explain.align import Link, penultimate
from heedful.explain.linked_words import FLOOR
from heedful.explain.words import STANDALONE, merge, target_groups, word_groups
from heedful.wordalign import symmetrize

METHODS = ("predict", "shift", "full", "erase")
ATTENTION_METHODS = ("predict", "shift", "full")
DECODED_METHODS = ("predict", "shift")  # weights decoding computes anyway (heedful.aligning)
NORMALIZATIONS = ("target", "source")
LINKINGS = ("argmax", "intersection", "grow-diag-final-and")
RECORD_KEY = "alignment"
BLEND_FLOOR = 1e-6  # so that a source word the second reading ignores is not ruled out


@dataclass(frozen=True)
class AlignmentMethod:
    """How to align: see the module docstring. ``layer`` None: the penultimate."""

    method: str = "predict"
    layer: int | None = None
    heads: tuple[int, ...] | None = None
    normalize: str = "target"
    links: str = "argmax"
    chosen_on: str | None = None
    aer: float | None = None
    spelling: float = 0.0
    linked: float = 0.0
    blend: float = 0.0
    blend_layer: int | None = None
    confidence: float = 0.0

    def __post_init__(self):
        check = {"method": METHODS, "normalize": NORMALIZATIONS, "links": LINKINGS}
        for name, allowed in check.items():
            if getattr(self, name) not in allowed:
                raise ValueError(
                    f"alignment {name} must be one of {allowed}, not {getattr(self, name)!r}"
                )
        if self.method == "erase" and (self.layer, self.heads, self.normalize) != (
            None,
            None,
            "target",
        ):
            raise ValueError("the erase method has no layer, heads or normalization")
        for name in ("spelling", "linked"):
            if not 0 <= getattr(self, name) < float("inf"):
                raise ValueError(
                    f"alignment {name} weight must be 0 or more, not {getattr(self, name)}"
                )
        if not 0 <= self.blend < 1:
            raise ValueError(f"alignment blend weight must be from 0 to below 1, not {self.blend}")
        if not 0 <= self.confidence < 1:
            raise ValueError(
                f"alignment confidence must be from 0 to below 1, not {self.confidence}"
            )
        if self.blend and self.method == "erase":
            raise ValueError("the erase method has no attention to blend")
        if self.blend_layer is not None and self.blend_layer < 0:
            raise ValueError(f"alignment blend layer counts from 0, not {self.blend_layer}")
        if self.layer is not None and self.layer < 0:
            raise ValueError(f"alignment layer counts from 0, not {self.layer}")
        if self.heads is not None and (not self.heads or min(self.heads) < 0):
            raise ValueError(
                f"alignment heads must be null or indices from 0, not {list(self.heads)}"
            )

    def resolve(self, n_layers: int, n_heads: int) -> AlignmentMethod:
        """The same method with its layer filled in, checked against a model's shape."""
        if self.method == "erase":
            return self
        layer = penultimate(n_layers) if self.layer is None else self.layer
        if layer >= n_layers:
            raise ValueError(f"the model has decoder layers 0..{n_layers - 1}, not {layer}")
        if self.heads is not None and max(self.heads) >= n_heads:
            raise ValueError(f"the model has heads 0..{n_heads - 1}, not {max(self.heads)}")
        blend_layer = None
        if self.blend:
            blend_layer = n_layers - 1 if self.blend_layer is None else self.blend_layer
            if blend_layer >= n_layers:
                raise ValueError(
                    f"the model has decoder layers 0..{n_layers - 1}, not {blend_layer} to blend"
                )
        return replace(self, layer=layer, blend_layer=blend_layer)

    def attention_alone(self) -> AlignmentMethod:
        """The same reading without the table, the spelling, a blend or a confidence."""
        return replace(
            self, spelling=0.0, linked=0.0, blend=0.0, blend_layer=None, confidence=0.0,
            chosen_on=None, aer=None,
        )  # fmt: skip

    def record(self) -> dict[str, Any]:
        """The JSON record a model directory keeps (``from_record`` reads it back)."""
        return {
            "method": self.method,
            "layer": self.layer,
            "heads": None if self.heads is None else list(self.heads),
            "normalize": self.normalize,
            "links": self.links,
            "spelling": self.spelling,
            "linked": self.linked,
            "blend": self.blend,
            "blend_layer": self.blend_layer,
            "confidence": self.confidence,
            "chosen_on": self.chosen_on,
            "aer": self.aer,
        }

    @classmethod
    def from_record(cls, record: Any, where: str = "alignment") -> AlignmentMethod:
        if not isinstance(record, dict):
            raise ValueError(f"{where}: expected an object like {{'method': 'predict', ...}}")
        unknown = set(record) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
        heads = record.get("heads")
        try:
            return cls(
                method=record.get("method", "predict"),
                layer=record.get("layer"),
                heads=None if heads is None else tuple(int(h) for h in heads),
                normalize=record.get("normalize", "target"),
                links=record.get("links", "argmax"),
                chosen_on=record.get("chosen_on"),
                aer=record.get("aer"),
                spelling=float(record.get("spelling") or 0.0),
                linked=float(record.get("linked") or 0.0),
                blend=float(record.get("blend") or 0.0),
                blend_layer=record.get("blend_layer"),
                confidence=float(record.get("confidence") or 0.0),
            )
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: {e}") from None

    def describe(self) -> str:
        """For people: layers and heads counted from 1, as the command line counts them."""
        if self.method == "erase":
            parts = ["erase"]
        else:
            layer = "penultimate layer" if self.layer is None else f"layer {self.layer + 1}"
            heads = (
                "all heads"
                if self.heads is None
                else "heads " + "+".join(str(h + 1) for h in self.heads)
            )
            parts = [self.method, layer, heads]
            if self.normalize != "target":
                parts.append(f"normalized per {self.normalize} word")
        if self.blend:
            layer = "the last" if self.blend_layer is None else f"layer {self.blend_layer + 1}"
            parts.append(f"blended with predict, {layer}, all heads (weight {self.blend:g})")
        if self.links != "argmax":
            parts.append(self.links)
        if self.linked:
            parts.append(f"with words the training links joined (weight {self.linked:g})")
        if self.spelling:
            parts.append(f"with words spelt alike (weight {self.spelling:g})")
        if self.confidence:
            parts.append(f"each link {self.confidence:g} or more of its target word's scores")
        return ", ".join(parts)


DEFAULT = AlignmentMethod()


def method_from_meta(meta: dict[str, Any], where: str = "config.json") -> AlignmentMethod:
    """The method a model's config.json (as a dict) records; the default when it records none."""
    if meta.get(RECORD_KEY) is None:
        return DEFAULT
    return AlignmentMethod.from_record(meta[RECORD_KEY], f"{where}: {RECORD_KEY!r}")


def read_method(model_dir: str | Path) -> AlignmentMethod:
    """The method recorded in a model directory's config.json (heedful's or a Marian one's)."""
    from heedful.checkpoint import CONFIG_FILE, read_json

    path = Path(model_dir) / CONFIG_FILE
    return method_from_meta(read_json(path), str(path))


def write_method(model_dir: str | Path, method: AlignmentMethod) -> None:
    """Record ``method`` in a model directory's config.json (atomically; other keys kept)."""
    from heedful.checkpoint import CONFIG_FILE, atomic_write_json, read_json

    path = Path(model_dir) / CONFIG_FILE
    meta = read_json(path)
    meta[RECORD_KEY] = method.record()
    atomic_write_json(path, meta)


# --- scores --------------------------------------------------------------------------------


def source_words(pieces: list[str]) -> list[list[int]]:
    """Piece positions of each source word (``</s>`` is no word)."""
    return [g for g in word_groups(pieces) if pieces[g[0]] not in STANDALONE]


def target_words(pieces: list[str]) -> list[list[int]]:
    """Piece positions of each target word (``</s>`` is no word)."""
    return [g for g in target_groups(pieces) if pieces[g[0]] not in STANDALONE]


def head_scores(attended: Attended, method: str, layer: int) -> Tensor:
    """Every head's word-level cross-attention [H, target words, source words] of one layer,
    read at the step predicting each target token (``predict``) or reading it (``shift``)."""
    if attended.cross is None:
        raise ValueError("alignments need cross-attention: this model has none")
    if method == "full" and attended.cross_full is None:
        raise ValueError("the full method reads a full-context pass: attend with full_context")
    weights = (attended.cross_full if method == "full" else attended.cross)[layer]  # [H, T, S]
    return word_head_scores(weights, attended.source_pieces, attended.target_pieces, method)


def word_head_scores(
    weights: Tensor, source_pieces: list[str], target_pieces: list[str], method: str
) -> Tensor:
    """``head_scores`` from one layer's piece-level cross-attention [H, T, S]."""
    if method not in ATTENTION_METHODS:
        raise ValueError(f"{method!r} is not an attention method {ATTENTION_METHODS}")
    weights = weights.float()
    rows = reading_rows(target_words(target_pieces), weights.shape[1], method)
    return merge(weights, rows, source_words(source_pieces))


def reading_rows(groups: list[list[int]], length: int, method: str) -> list[list[int]]:
    """The rows of a pair's [T, S] attention that each target word (its ``groups`` of piece
    positions) is read at: its own (``predict``), or where the token is the decoder's input;
    a last piece without </s> after it was never read, so its own row stands in."""
    if method == "predict":
        return groups
    last = length - 1
    return [[min(t + 1, last) for t in group] for group in groups]


def attention_scores(attended: Attended, method: AlignmentMethod) -> Tensor:
    """[target words, source words] scores of an attention method (layer resolved), blended
    with its second reading if it has one."""
    scores = head_scores(attended, method.method, method.layer)
    if method.heads is not None:
        scores = scores[list(method.heads)]
    if method.blend:
        second = head_scores(attended, "predict", method.blend_layer).mean(0)
        return blended(scores.mean(0), second, method.blend)
    return scores.mean(0)


def blended(first: Tensor, second: Tensor, weight: float) -> Tensor:
    """Two readings' [target words, source words] scores, each made to sum to 1 per target word,
    multiplied: the first to the power 1 - ``weight``, the second to ``weight``."""
    first = first / first.sum(-1, keepdim=True).clamp_min(1e-12)
    second = second / second.sum(-1, keepdim=True).clamp_min(1e-12)
    return first ** (1 - weight) * (second + BLEND_FLOOR) ** weight


# --- links ---------------------------------------------------------------------------------


def piece_words(pieces: list[str], groups: list[list[int]]) -> list[str]:
    """Each group of piece positions as the word it spells ("▁Minist", "er" -> "Minister")."""
    return ["".join(pieces[k] for k in group).replace("\u2581", "") for group in groups]


def spelling_prior(sources: Sequence[str], targets: Sequence[str]) -> Tensor:
    """[target words, source words], 0-1: how alike each two words are spelt. Accents and case
    aside, the share of the longer word that a common beginning of 4 letters or more covers
    ("ministre" / "Minister": 6 of 8, 0.75); a word shorter than 4 letters, or of no letter or
    digit ("." / "."), counts only the same word (1) and a single letter never."""
    prior = torch.zeros(len(targets), len(sources))
    for j, i, value in spelt_alike(sources, targets):
        prior[j, i] = value
    return prior


def spelt_alike(sources: Sequence[str], targets: Sequence[str]) -> Iterator[tuple[int, int, float]]:
    """``spelling_prior``'s values above 0, as (target word, source word, value): few."""
    bare_sources = [_bare(w) for w in sources]
    for j, target in enumerate(map(_bare, targets)):
        for i, source in enumerate(bare_sources):
            if value := _alike(source, target):
                yield j, i, value


def _alike(source: str, target: str) -> float:
    if len(target) < 4 or len(source) < 4 or not target.isalnum():
        return float(source == target and (len(target) > 1 or not target.isalpha()))
    if target[:4] != source[:4]:
        return 0.0
    common, shorter = 4, min(len(target), len(source))
    while common < shorter and target[common] == source[common]:
        common += 1
    return common / max(len(target), len(source))


@functools.lru_cache(maxsize=65536)
def _bare(word: str) -> str:
    word = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in word if unicodedata.category(c) != "Mn")


def link(
    scores: Tensor,
    normalize: str = "target",
    links: str = "argmax",
    prior: Tensor | None = None,
    spelling: float = 0.0,
    linked_prior: Tensor | None = None,
    linked: float = 0.0,
    confidence: float = 0.0,
) -> set[Link]:
    """Links (source word, target word) from a [target words, source words] score matrix (with
    ``spelling`` x ``prior``, a ``spelling_prior`` of the same shape, added, and after the
    scores were weighed by ``linked_prior``, a ``LinkedWords.prior``; with ``confidence``, only
    the links holding that share or more of their target word's scores: module docstring)."""
    if scores.numel() == 0:
        return set()
    scores = weighed(scores, normalize, prior, spelling, linked_prior, linked)
    forward = {(i, j) for j, i in enumerate(scores.argmax(1).tolist())}  # a list: no 0-d tensors
    found = forward
    if links != "argmax":
        reverse = {(i, j) for i, j in enumerate(scores.argmax(0).tolist())}
        n_target, n_source = scores.shape
        found = symmetrize(forward, reverse, n_source, n_target, links)
    if not confidence:
        return found
    sure = (shares(scores) >= confidence).tolist()
    return {(i, j) for i, j in found if sure[j][i]}


def shares(scores: Tensor) -> Tensor:
    """[..., target words, source words] weighed scores as shares of each target word's."""
    return scores / scores.sum(-1, keepdim=True).clamp_min(1e-12)


def weighed(
    scores: Tensor,
    normalize: str,
    prior: Tensor | None,
    spelling: float,
    linked_prior: Tensor | None,
    linked: float,
) -> Tensor:
    """The scores ``link`` takes its best of: [..., target words, source words] weighed by the
    linked words' and spelling's priors (of the same shape), normalised as ``normalize`` says."""
    if linked and linked_prior is not None:
        rows = scores / scores.sum(-1, keepdim=True).clamp_min(1e-12)
        scores = rows * (linked_prior + FLOOR) ** linked
    if spelling and prior is not None:
        rows = scores / scores.sum(-1, keepdim=True).clamp_min(1e-12)
        scores = rows + spelling * prior * rows.amax(-1, keepdim=True)
    if normalize == "source":
        scores = scores / scores.sum(-2, keepdim=True).clamp_min(1e-12)
    return scores
