"""Aligning sentence pairs with a method, scoring methods on gold links, and choosing one.

``choose`` tries every method (``heedful.explain.alignment_methods``) on a gold set: for the
attention methods each decoder layer, both normalizations and both ways of linking, with heads
chosen by greedy forward selection (start from none, add the head that lowers the AER most, stop
when none does; every head together is a candidate too); each candidate also with the words'
spelling at the weights ``SPELLING`` (``spelling_prior``; the model's heads are chosen without),
and, where the model directory has a table of the words its training links joined
(``heedful.explain.linked_words``), at each weight ``LINKED`` of it too; the best attention
method blended with a second reading (``BLEND``); the best of all keeping only the links that
hold a share ``CONFIDENCE`` of their target word's scores. The lowest AER wins; on a tie the
candidate tried first (simpler: fewer heads, plain normalization, argmax, no spelling) wins.
Choose on a development gold set only, never on the set you report.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, replace

import torch
from torch import Tensor

from heedful.attended import Attended
from heedful.explain.align import Gold, Link, aer
from heedful.explain.alignment_batch import link_batch
from heedful.explain.alignment_methods import (
    ATTENTION_METHODS,
    LINKINGS,
    METHODS,
    NORMALIZATIONS,
    AlignmentMethod,
    attention_scores,
    head_scores,
    link,
    piece_words,
    source_words,
    spelling_prior,
    target_words,
)
from heedful.explain.linked_words import LinkedWords
from heedful.wordalign import words_with_spans

SPELLING = (1.0, 2.0, 4.0)  # the weights of the words' spelling that ``choose`` tries besides 0
LINKED = (0.25, 0.5, 1.0)  # the weights of the training's linked words it tries besides 0
BLEND = (0.25, 0.5, 0.75)  # the weights of a second reading it tries with the best (``blends``)
CONFIDENCE = (0.25, 0.5, 0.75)  # the shares a link must hold that it tries with the best last
SURE_FIRST = 5  # how many of the best readings it tries with each confidence before blending


@dataclass
class Pair:
    """One sentence pair as a method needs it: its attention (piece level, target forced); for
    ``erase``, its erasure scores [target words, source words]; for a method with a ``linked``
    weight, its words' ``LinkedWords.prior`` [target words, source words]."""

    attended: Attended
    erasure: Tensor | None = None
    linked: Tensor | None = None


def prepare(
    translator, sources: Sequence[str], targets: Sequence[str], *, erase: bool
) -> list[Pair]:
    """Forced decoding of each pair, causal and full-context (and its erasure scores if
    ``erase``; its linked words' prior if the translator has their table)."""
    from heedful.explain.erasure import erase_pair

    pairs = []
    for source, target in zip(sources, targets, strict=True):
        erased = erase_pair(translator, source, target) if erase else None
        attended = translator.attend(source, target, full_context=True)
        pairs.append(Pair(attended, erased, linked_of(translator, attended)))
    return pairs


def linked_of(translator, attended: Attended) -> Tensor | None:
    """The ``LinkedWords.prior`` of a pair's words, if the translator's model directory has the
    table (``Translator.linked_words``)."""
    table = translator.linked_words
    if table is None:
        return None
    return _linked_prior(table, attended.source_pieces, attended.target_pieces)


def _linked_prior(table, source_pieces: list[str], target_pieces: list[str]) -> Tensor:
    sources = piece_words(source_pieces, source_words(source_pieces))
    return table.prior(sources, piece_words(target_pieces, target_words(target_pieces)))


def _needs_table(method: AlignmentMethod, found):
    """``found`` (the pair's linked-words prior, or the model's table), refused as None where
    the method weighs linked words."""
    if method.linked and found is None:
        raise ValueError(
            f"the alignment method weighs linked words ({method.linked:g}) but the model "
            "directory has no linked-words.tsv (heedful.explain.linked_words)"
        )
    return found


def scores_of(pair: Pair, method: AlignmentMethod) -> Tensor:
    """[target words, source words] scores of one pair under a resolved method."""
    if method.method == "erase":
        if pair.erasure is None:
            raise ValueError(
                "the erase method needs the pair's erasure scores (prepare(erase=True))"
            )
        return pair.erasure
    return attention_scores(pair.attended, method)


def links_of(pair: Pair, method: AlignmentMethod) -> set[Link]:
    prior = prior_of(pair.attended.source_pieces, pair.attended.target_pieces) if (
        method.spelling
    ) else None  # fmt: skip
    linked = _needs_table(method, pair.linked)
    return link(
        scores_of(pair, method), method.normalize, method.links, prior, method.spelling,
        linked, method.linked, method.confidence,
    )  # fmt: skip


def prior_of(source_pieces: list[str], target_pieces: list[str]) -> Tensor:
    """``spelling_prior`` of a pair's words, from its pieces."""
    sources = piece_words(source_pieces, source_words(source_pieces))
    return spelling_prior(sources, piece_words(target_pieces, target_words(target_pieces)))


def align_pair(translator, attended: Attended, method: AlignmentMethod) -> set[Link]:
    """Links of one pair as ``Translator.attend`` gives it (a translation found or a target
    forced), by a method resolved for the model (``method.resolve``); the erase method runs
    its passes here, on the attended source and translation."""
    erasure = None
    if method.method == "erase":
        from heedful.explain.erasure import erase_pair

        erasure = erase_pair(translator, attended.source, attended.translation)
    linked = linked_of(translator, attended) if method.linked else None
    return links_of(Pair(attended, erasure, linked), method)


def align_ids(
    translator,
    pairs: Sequence[tuple[list[int], list[int]]],
    method: AlignmentMethod,
    memories: list[Tensor] | None = None,
    apart: Sequence[tuple[Collection[int], Collection[int]]] | None = None,
    pieces: Sequence[tuple[list[str], list[str]]] | None = None,
    weights: Sequence[Tensor | None] | None = None,
    seconds: Sequence[Tensor | None] | None = None,
) -> list[set[Link]]:
    """Links of many pairs of ids (a source ending with end-of-sentence, the target tokens
    produced, ending with it too) by a resolved method: the attention methods read one batched
    teacher-forced pass (``heedful.aligning.forced_cross``, reusing the encoder outputs
    ``memories`` if given); erasure runs its passes pair by pair. ``apart``: per pair, source
    and target words left out of the scores (placeholders, which the caller links itself), so
    that no other word links to them. ``pieces``: each pair's source and target pieces, if the
    caller has them. ``weights``: each pair's attention [T, S], the mean over the method's
    heads of its layer, where decoding kept it (heedful.aligning); ``seconds``: a blended
    method's second reading [T, S] (the mean over every head of its layer), where decoding
    kept it; the forced pass computes the others."""
    from heedful.aligning import forced_cross
    from heedful.explain.erasure import erasure_scores

    model, tokenizer = translator.model, translator.tokenizer
    source_pieces = getattr(tokenizer, "source_pieces", tokenizer.pieces)
    apart = apart or [((), ())] * len(pairs)
    if pieces is None:
        pieces = [(source_pieces(src), tokenizer.pieces(tgt)) for src, tgt in pairs]
    table = translator.linked_words if method.linked else None
    if method.method == "erase":
        return [
            _link_apart(erasure_scores(model, src, tgt, *both), method, kept, both, table)
            for (src, tgt), both, kept in zip(pairs, pieces, apart, strict=True)
        ]
    weights = list(weights) if weights is not None else [None] * len(pairs)
    missing = [k for k, w in enumerate(weights) if w is None]
    if missing:
        with torch.inference_mode():
            found = forced_cross(
                model, [pairs[k] for k in missing], method.layer,
                memories=None if memories is None else [memories[k] for k in missing],
                full_context=method.method == "full",
            )  # fmt: skip
        heads = slice(None) if method.heads is None else list(method.heads)
        for k, cross in zip(missing, found, strict=True):
            weights[k] = cross[heads].mean(0)  # merging into words is linear: mean first
    seconds = list(seconds) if seconds is not None else [None] * len(pairs)
    missing = [k for k, w in enumerate(seconds) if w is None] if method.blend else []
    if missing:  # the second reading where decoding did not keep it
        with torch.inference_mode():
            found = forced_cross(
                model, [pairs[k] for k in missing], method.blend_layer,
                memories=None if memories is None else [memories[k] for k in missing],
            )  # fmt: skip
        for k, cross in zip(missing, found, strict=True):
            seconds[k] = cross.mean(0)
    _needs_table(method, table)
    return link_batch(weights, seconds, pieces, apart, method, table)


def _link_apart(scores: Tensor, method: AlignmentMethod, apart, pieces, table) -> set[Link]:
    """``link`` of the [target words, source words] scores without the words ``apart`` (the
    pair's ``pieces`` spell its words, for a method that reads their spelling or looks them up
    in ``table``, the model's ``LinkedWords``)."""
    prior = prior_of(*pieces) if method.spelling else None
    linked = _linked_prior(table, *pieces) if table is not None else None
    _needs_table(method, linked)
    how = (method.normalize, method.links)
    sources, targets = set(apart[0]), set(apart[1])
    if not sources and not targets:
        return link(scores, *how, prior, method.spelling, linked, method.linked, method.confidence)
    rows = [j for j in range(scores.shape[0]) if j not in targets]
    columns = [i for i in range(scores.shape[1]) if i not in sources]
    if prior is not None:
        prior = prior[rows][:, columns]
    if linked is not None:
        linked = linked[rows][:, columns]
    found = link(
        scores[rows][:, columns], *how, prior, method.spelling, linked, method.linked,
        method.confidence,
    )  # fmt: skip
    return {(columns[i], rows[j]) for i, j in found}


def evaluate(pairs: Sequence[Pair], gold: Sequence[Gold], method: AlignmentMethod) -> float:
    """The AER of a resolved method over a gold set."""
    return aer([links_of(p, method) for p in pairs], gold)


def _heads_aer(
    per_head: list[Tensor], heads: Iterable[int], gold: Sequence[Gold], normalize: str, links: str,
    priors: Sequence[Tensor | None] | None = None, spelling: float = 0.0,
    linked: Sequence[Tensor | None] | None = None, linked_weight: float = 0.0,
) -> float:  # fmt: skip
    """The AER of the mean of some heads' scores (``per_head``: [H, Tw, Sw] of each pair)."""
    heads = list(heads)
    priors, linked = priors or [None] * len(per_head), linked or [None] * len(per_head)
    found = [
        link(h[heads].mean(0), normalize, links, prior, spelling, table, linked_weight)
        for h, prior, table in zip(per_head, priors, linked, strict=True)
    ]
    return aer(found, gold)


def _greedy_heads(per_head: list[Tensor], gold: Sequence[Gold], normalize: str, links: str):
    """Greedy forward selection of heads: (AER, heads) of each step's best, and of all heads."""

    def score(heads: Iterable[int]) -> float:
        return _heads_aer(per_head, heads, gold, normalize, links)

    n_heads = per_head[0].shape[0]
    chosen: list[int] = []
    best = float("inf")
    while len(chosen) < n_heads:
        tried = [(score([*chosen, h]), h) for h in range(n_heads) if h not in chosen]
        value, head = min(tried)
        if value >= best:
            break
        best, chosen = value, [*chosen, head]
    return (best, tuple(sorted(chosen))), (score(range(n_heads)), None)


def candidates(
    pairs: Sequence[Pair], gold: Sequence[Gold], methods: Sequence[str] = METHODS
) -> list[AlignmentMethod]:
    """Every candidate method scored on the gold set (``aer`` filled in), in the order tried."""
    unknown = set(methods) - set(METHODS)
    if unknown or not methods:
        raise ValueError(f"methods to choose from are some of {METHODS}, not {sorted(unknown)}")
    if len(pairs) != len(gold):
        raise ValueError(f"{len(pairs)} sentence pairs but {len(gold)} gold lines")
    found = []
    priors = [prior_of(p.attended.source_pieces, p.attended.target_pieces) for p in pairs]
    linked = [p.linked for p in pairs]
    weights = _prior_weights(pairs)[1:]  # (0, 0) is the plain candidate itself
    if any(m in ATTENTION_METHODS for m in methods):
        n_layers = pairs[0].attended.cross.shape[0]
    for method in [m for m in methods if m in ATTENTION_METHODS]:
        for layer in range(n_layers):
            per_head = [head_scores(p.attended, method, layer) for p in pairs]  # [H, Tw, Sw] each
            n_heads = per_head[0].shape[0]
            for normalize in NORMALIZATIONS:
                for links in LINKINGS:
                    greedy, everyone = _greedy_heads(per_head, gold, normalize, links)
                    every_head = len(greedy[1]) == n_heads  # then only once
                    for value, heads in (everyone,) if every_head else (everyone, greedy):
                        found.append(
                            AlignmentMethod(method, layer, heads, normalize, links, aer=value)
                        )
                        chosen = range(n_heads) if heads is None else heads
                        plain = found[-1]
                        for spelling, weight in weights:
                            value = _heads_aer(
                                per_head, chosen, gold, normalize, links, priors, spelling,
                                linked, weight,
                            )  # fmt: skip
                            found.append(
                                replace(plain, spelling=spelling, linked=weight, aer=value)
                            )
    if "erase" in methods:
        for links in LINKINGS:
            for spelling, weight in [(0.0, 0.0), *weights]:
                method = AlignmentMethod("erase", links=links, spelling=spelling, linked=weight)
                found.append(replace(method, aer=evaluate(pairs, gold, method)))
    return found


def _prior_weights(pairs: Sequence[Pair]) -> list[tuple[float, float]]:
    """The (spelling, linked) weights ``choose`` tries, (0, 0) first: linked ones only where
    every pair has its linked words' prior (the model directory has the table)."""
    linked = (0.0, *LINKED) if all(p.linked is not None for p in pairs) else (0.0,)
    return [(s, w) for w in linked for s in (0.0, *SPELLING)]


def choose(
    pairs: Sequence[Pair], gold: Sequence[Gold], chosen_on: str, methods: Sequence[str] = METHODS
) -> tuple[AlignmentMethod, list[AlignmentMethod]]:
    """The candidate with the lowest AER (recording ``chosen_on``), and every candidate: those
    of ``candidates``, the ``SURE_FIRST`` best readings with each ``CONFIDENCE`` (keeping only
    the sure links favours one sharp head over the mean of several), then the best of
    ``candidates`` and the best of those with a confidence, each blended with each layer's
    ``predict`` reading at each weight of ``BLEND`` (with each spelling and linked weight
    again), then the best of all with each ``CONFIDENCE``."""
    tried = candidates(pairs, gold, methods)
    plain = min(range(len(tried)), key=lambda k: (tried[k].aer, k))
    readings = {}  # the best few readings (each its best weights of the spelling and the table)
    for k in sorted(range(len(tried)), key=lambda k: (tried[k].aer, k)):
        reading = replace(tried[k], spelling=0.0, linked=0.0, aer=None)
        readings.setdefault(reading, k)
    for k in list(readings.values())[:SURE_FIRST]:
        for confidence in CONFIDENCE:
            candidate = replace(tried[k], confidence=confidence, aer=None)
            tried.append(replace(candidate, aer=evaluate(pairs, gold, candidate)))
    sure = min(range(len(tried)), key=lambda k: (tried[k].aer, k))
    for start in dict.fromkeys((plain, sure)):  # blended from the best with and without
        if tried[start].method in ATTENTION_METHODS:
            tried += blends(pairs, gold, replace(tried[start], aer=None))
    best = min(range(len(tried)), key=lambda k: (tried[k].aer, k))
    for confidence in CONFIDENCE:
        candidate = replace(tried[best], confidence=confidence, aer=None)
        tried.append(replace(candidate, aer=evaluate(pairs, gold, candidate)))
    best = min(range(len(tried)), key=lambda k: (tried[k].aer, k))
    return replace(tried[best], chosen_on=chosen_on), tried


def blends(pairs: Sequence[Pair], gold: Sequence[Gold], method: AlignmentMethod):
    """``method`` (an attention method, resolved) blended with each layer's ``predict`` reading
    at each weight of ``BLEND``, with each spelling and linked weight; scored on the gold."""
    found = []
    for layer in range(pairs[0].attended.cross.shape[0]):
        for blend in BLEND:
            for spelling, linked in _prior_weights(pairs):
                candidate = replace(
                    method, blend=blend, blend_layer=layer, spelling=spelling, linked=linked
                )
                found.append(replace(candidate, aer=evaluate(pairs, gold, candidate)))
    return found


def own_linked_words(
    translator, sources: Sequence[str], targets: Sequence[str], method, name: str, *,
    batch_size: int = 1024, bar=None,
) -> tuple[LinkedWords, int]:  # fmt: skip
    """The table of the links ``translator``'s model finds itself by ``method`` (resolved, an
    attention method reading no table) over sentence pairs (``name``: what they are, for the
    table's ``origin``), and how many pairs were left out. Words are split as training splits
    them for eflomal (heedful.wordalign.words_with_spans) and given to the model with a space
    between each, as alignment gold is; a pair whose pieces do not fall into those words is
    left out. ``bar``: a progress bar, advanced by pairs."""
    if method.linked:
        raise ValueError("the links that make a table cannot come from a method that reads one")
    if method.method not in ATTENTION_METHODS:
        raise ValueError(f"a table of linked words counts attention links, not {method.method}'s")
    tokenizer = translator.tokenizer
    source_pieces = getattr(tokenizer, "source_pieces", tokenizer.pieces)
    words, links, left_out = [], [], 0
    for start in range(0, len(sources), batch_size):
        part = range(start, min(start + batch_size, len(sources)))
        split = [(words_with_spans(sources[k])[0], words_with_spans(targets[k])[0]) for k in part]
        ids = [(tokenizer.encode(" ".join(s)), tokenizer.encode(" ".join(t))) for s, t in split]
        pieces = [(source_pieces(s), tokenizer.pieces(t)) for s, t in ids]
        fits = [
            len(source_words(s)) == len(sw) and len(target_words(t)) == len(tw)
            for (s, t), (sw, tw) in zip(pieces, split, strict=True)
        ]
        kept = [k for k, ok in enumerate(fits) if ok]
        left_out += len(fits) - len(kept)
        found = align_ids(
            translator, [ids[k] for k in kept], method, pieces=[pieces[k] for k in kept]
        )
        words += [split[k] for k in kept]
        links += found
        if bar is not None:
            bar.update(len(part))
    table = LinkedWords.count([s for s, _ in words], [t for _, t in words], links)
    counted = f"{len(words):,} pairs of {name}"
    table.origin = f"the model's own links ({method.describe()}) over {counted}"
    return table, left_out
