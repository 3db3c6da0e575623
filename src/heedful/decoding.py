"""From source ids to hypotheses: how to decode (``DecodingOptions``), and the glue between an
encoder-decoder model and the searches of ``heedful.search``.

    sources -> sorted by length, batches of batch_size -> encode -> one step function
            -> greedy / beam search / sampling -> hypotheses, in the caller's order

The searches see the model only through ``step(tokens, cache)``; beam search's rows come
``beam_size`` per sentence, and ``BeamCache`` lets those rows share one copy of their sentence's
cross-attention keys and values. Special ids (pad, end of sentence, the decoder's start token)
come from ``model.config``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import torch
from torch import Tensor, nn

from heedful import continuous, continuous_beam, coverage, native
from heedful.aligning import Trails, forced_cross
from heedful.beam_cache import BeamCache
from heedful.inference import is_onednn
from heedful.masks import pad
from heedful.model import Memory
from heedful.search import (
    Hypothesis,
    LengthPenalty,
    PenaltyForm,
    Sampling,
    Stepped,
    beam_search,
    greedy_search,
    sample,
)

EXTRA_LENGTH = 50  # maximum output length = source length + 50 (paper §6.1)
# Batches of 128 sentences, at most 8,192 source tokens with padding (128 of 64 tokens): with
# continuous batching, the fastest of 32, 64, 128 and 256 sentences, with and without a token
# limit, on the bundled models' dev sets with 300 paragraphs of 2-6 sentences on these 2 cores
# (beam 4: 1.30-1.38x batch-by-batch 32; 64 sentences 1.20-1.28x, 256 0.98-1.38x; greedy
# 1.5-1.6x). The token limit keeps long inputs' batches (and caches) from growing with them.
BATCH_SIZE, BATCH_TOKENS = 128, 8192


@dataclass(frozen=True)
class DecodingOptions:
    """How to decode, in one place (``Translator.translate``, ``generate``, the commands).

    ``beam_size``: beams per source (1 is greedy search); ``n_best``: translations kept per
    source, best first. Beam search scores a hypothesis log P(Y) / lp(|Y|) with the length
    penalty ``length_penalty_form`` (``gnmt``: ((5 + |Y|) / 6)^α, the paper's; ``power``: |Y|^α)
    and α = ``length_penalty``. ``max_length``: generated tokens at most, default source length
    + 50; ``min_length``: no end-of-sentence before that many tokens. ``sampling``: instead of
    searching, draw ``beam_size`` translations of each source and keep the ``n_best`` of them by
    score (fairseq's ``--sampling``). ``early_stopping``: beam search stops a sentence as soon as
    it holds ``beam_size`` finished hypotheses, as fairseq and CTranslate2 do (Hugging Face's
    ``early_stopping=True``); by default it goes on while a live beam could still win.
    ``coverage_penalty``: β of the coverage penalty (heedful.coverage, Wu et al. 2016): beam
    search's finished hypotheses of each source rescored by how fully they attend to its
    pieces, so that a translation that drops a phrase loses; 0: off; None: the model's own
    (``Translator``: its directory's ``generation.coverage_penalty``, 0.1 for the bundled
    models; 0 elsewhere). Needs the aligning heads' weights (``generate``'s ``aligning``).
    ``batch_size``: sources per batch (sorted by length first); ``batch_tokens``: fewer where
    sources x the longest's tokens would exceed it (None: no such limit); see ``BATCH_SIZE``.
    ``continuous``: greedy and beam search give a finished sentence's rows to a waiting one, so
    that the batch stays full (heedful.continuous; the same tokens and scores); False: batch
    by batch. An int8 model
    decodes batch by batch either way: its activations are quantised with one scale per
    product, so its rows' results depend on the rows beside them, and refilling would change
    some (1 greedy translation in 14 on the bundled es -> en dev set); so do models off the CPU,
    or without the native kernels (``_exact_rows``).
    """

    beam_size: int = 4
    n_best: int = 1
    length_penalty: float = 0.6
    length_penalty_form: PenaltyForm = "gnmt"
    max_length: int | None = None
    min_length: int = 0
    sampling: Sampling | None = None
    early_stopping: bool = False
    coverage_penalty: float | None = None
    batch_size: int = BATCH_SIZE
    batch_tokens: int | None = BATCH_TOKENS
    continuous: bool = True

    def __post_init__(self) -> None:
        if self.beam_size < 1:
            raise ValueError(f"beam_size must be >= 1, not {self.beam_size}")
        if not 1 <= self.n_best <= self.beam_size:
            raise ValueError(
                f"n_best={self.n_best} needs 1 <= n_best <= beam_size={self.beam_size}"
            )
        if self.max_length is not None and self.max_length < 1:
            raise ValueError(f"max_length must be at least 1, not {self.max_length}")
        if self.coverage_penalty is not None and self.coverage_penalty < 0:
            raise ValueError(f"coverage_penalty must be >= 0, not {self.coverage_penalty}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, not {self.batch_size}")
        if self.batch_tokens is not None and self.batch_tokens < 1:
            raise ValueError(f"batch_tokens must be at least 1, not {self.batch_tokens}")
        self.penalty  # noqa: B018 - checks the form

    @property
    def penalty(self) -> LengthPenalty:
        return LengthPenalty(self.length_penalty, self.length_penalty_form)

    @classmethod
    def given(
        cls, options: DecodingOptions | None, beam_size: int | None = None, **changes: Any
    ) -> DecodingOptions:
        """``options`` (default: the defaults) with the fields named in ``changes`` and, if
        given, ``beam_size``: the keyword arguments ``Translator.translate`` takes."""
        if beam_size is not None:
            changes["beam_size"] = beam_size
        options = cls() if options is None else options
        return replace(options, **changes) if changes else options


@torch.inference_mode()
def generate(
    model: nn.Module,
    src_ids: list[list[int]],
    options: DecodingOptions,
    *,
    banned: list[int],
    force_eos: bool = False,
    keep_attention: bool = False,
    beam: Callable[..., list[list[Hypothesis]]] = beam_search,
    on_batch: Callable[[list[int], list[list[Hypothesis]], Memory], None] | None = None,
    aligning: Trails | None = None,
    watched: Sequence[Sequence[Sequence[int]]] | None = None,
) -> list[list[Hypothesis]]:
    """Per source (ids ending with end-of-sentence), its ``options.n_best`` hypotheses, best
    first, in the caller's order. ``banned``: ids never generated; ``force_eos``: an output cut
    at max_length ends with end-of-sentence. ``keep_attention``: each hypothesis's trace holds,
    per token, its decoder self-attention [L, H, t] and cross-attention [L, H, S] (beam search
    reorders them with the beams). ``beam``: the beam search to run (a test's spy).
    ``on_batch(indices, hypotheses, memory)``: called after each batch with its sources'
    indices in ``src_ids``, their hypotheses and their encoder output (for a teacher-forced pass
    to reuse while it is at hand). ``aligning``: where decoding refills rows
    (``heedful.continuous``), each hypothesis carries its aligning heads' weights
    (``Hypothesis.attention``, heedful.aligning); elsewhere they are left None. A coverage
    penalty (``options.coverage_penalty``) reads the heads ``aligning`` names; ``watched``: per
    source, the words (their pieces' positions) whose loss it ranks first (heedful.coverage).
    """
    config = model.config
    beta = _coverage(options, aligning)
    sources = [fit_source(ids, config) for ids in src_ids]
    generator = None if options.sampling is None else options.sampling.generator()
    order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
    results: list[list[Hypothesis]] = [[] for _ in sources]
    if _continuous(options, keep_attention, beam) and _exact_rows(model) and sources:
        lengths = [max_length(len(s), options.max_length, config) for s in sources]
        common = dict(batch_size=options.batch_size, batch_tokens=options.batch_tokens,
                      banned=banned, force_eos=force_eos, on_batch=on_batch,
                      aligning=aligning)  # fmt: skip
        if options.beam_size == 1:
            found = continuous.greedy(
                model, sources, lengths, min_length=options.min_length, **common
            )
            return [[h] for h in found]
        return continuous_beam.beam(
            model, sources, lengths, beam_size=options.beam_size,
            length_penalty=options.penalty, n_best=options.n_best,
            early_stopping=options.early_stopping, coverage_penalty=beta, watched=watched,
            **common,
        )  # fmt: skip
    start = 0
    while start < len(order):
        size = continuous.batch_length(
            len(sources[order[start]]), options.batch_size, options.batch_tokens
        )
        batch, start = order[start : start + size], start + size
        lengths = [max_length(len(sources[i]), options.max_length, config) for i in batch]
        searched = replace(options, n_best=options.beam_size) if beta else options
        found, memory = _search(
            model, [sources[i] for i in batch], lengths, searched, banned=banned,
            force_eos=force_eos, keep_attention=keep_attention, generator=generator, beam=beam,
            aligning=aligning if beta else None,
        )  # fmt: skip
        if beta:
            found = _rescored(model, [sources[i] for i in batch], found, memory, aligning, beta,
                              [watched[i] if watched else () for i in batch])  # fmt: skip
            found = [hypotheses[: options.n_best] for hypotheses in found]
        for i, hypotheses in zip(batch, found, strict=True):
            results[i] = hypotheses
        if on_batch is not None:
            on_batch(batch, found, memory)
    return results


def _coverage(options: DecodingOptions, aligning: Trails | None) -> float:
    """The coverage penalty's β for beam search (0: none; sampling and greedy search have
    none)."""
    beta = options.coverage_penalty or 0.0
    if not beta or options.beam_size == 1 or options.sampling is not None:
        return 0.0
    if aligning is None:
        raise ValueError(
            "coverage_penalty reads the aligning heads' weights: pass aligning "
            "(Translator.generate does)"
        )
    return beta


def _rescored(model: nn.Module, sources: list[list[int]], found: list[list[Hypothesis]],
              memory: Memory, aligning: Trails, beta: float,
              watched: list[Sequence[Sequence[int]]]) -> list[list[Hypothesis]]:  # fmt: skip
    """Each source's hypotheses rescored by heedful.coverage, their aligning heads' weights
    [T, S] as the search kept them, or else (``keep_attention``'s search keeps every weight)
    read by one teacher-forced pass over the batch's encoder output ``memory``."""
    layer, heads = aligning.layer_heads
    rows = [(r, h) for r, found_r in enumerate(found) for h in found_r if h.attention is None]
    if rows:
        pairs = [(sources[r], h.tokens) for r, h in rows]
        states = [memory.states[r, : len(sources[r])] for r, _ in rows]
        for (_, h), cross in zip(rows, forced_cross(model, pairs, layer, memories=states),
                                 strict=True):  # fmt: skip
            h.attention = cross[heads].mean(0)
    return [coverage.rescored(h, beta, w) for h, w in zip(found, watched, strict=True)]


def _continuous(options: DecodingOptions, keep_attention: bool, beam: Callable) -> bool:
    """Whether to refill rows (heedful.continuous): greedy and beam search (beam search
    without a minimum length, and not a test's own), not sampling nor keeping attention."""
    searching = options.sampling is None and not keep_attention and beam is beam_search
    return options.continuous and searching and (options.beam_size == 1 or not options.min_length)


def _exact_rows(model: nn.Module) -> bool:
    """Whether a row's numbers do not depend on the rows beside it, so that refilling rows
    (heedful.continuous) changes no result: a float32 model on the CPU built for inference
    (heedful.inference: oneDNN's products; MKL's, under nn.Linear, change the last digits with
    the batch's rows), with the native kernels (which read a row's keys in the same order,
    masked or not; PyTorch's batched products change the last digits). Not int8 models: their
    activations are quantised with one scale per product."""
    weight = next(model.parameters())
    cpu32 = weight.dtype == torch.float32 and weight.device.type == "cpu"
    return cpu32 and native.available() and is_onednn(model)


def _search(model, sources, max_lengths, options, *, banned, force_eos, keep_attention,
            generator, beam, aligning=None) -> tuple[list[list[Hypothesis]], Memory]:  # fmt: skip
    """One batch: the sources encoded once (their Memory is returned too), then searched (or
    sampled) over one step function. ``aligning``: beam search's hypotheses carry the aligning
    heads' weights (``Hypothesis.attention``), unless ``keep_attention``."""
    config = model.config
    src = pad(sources, config.pad_id, next(model.parameters()).device)
    memory = encoded = model.encode(src)
    beam_size, draws = options.beam_size, 1
    if options.sampling is not None:  # each source's beam_size draws are rows side by side
        draws, beam_size = beam_size, 1
        memory = Memory(memory.states.repeat_interleave(draws, 0),
                        memory.mask.repeat_interleave(draws, 0))  # fmt: skip
        max_lengths = [n for n in max_lengths for _ in range(draws)]
    # the decoder reads the start token and at most max_length - 1 generated tokens
    cache = BeamCache(model.start_decoding(memory, max(max_lengths)), beam_size)
    rows = len(max_lengths)
    start = torch.full((rows, 1), config.start_id, dtype=torch.long, device=src.device)
    # a coverage penalty's weights ride along as each hypothesis's trace, as Trails keep them
    heads = None if keep_attention or aligning is None else aligning.layer_heads
    step = step_function(model, keep_attention, heads)
    common = dict(
        eos_id=config.eos_id, max_length=max_lengths, min_length=options.min_length,
        banned=banned, force_eos=force_eos, keep_trace=keep_attention or heads is not None,
    )  # fmt: skip
    sampling = options.sampling
    if sampling is not None:
        drawn = sample(
            step, cache, start, temperature=sampling.temperature, top_k=sampling.top_k,
            top_p=sampling.top_p, generator=generator, **common,
        )  # fmt: skip
        return [
            _best_draws(drawn[i : i + draws], options.penalty, options.n_best)
            for i in range(0, rows, draws)
        ], encoded
    if beam_size == 1:
        return [[h] for h in greedy_search(step, cache, start, **common)], encoded
    found = beam(
        step, cache, start, beam_size=beam_size, length_penalty=options.penalty,
        n_best=options.n_best, early_stopping=options.early_stopping, **common,
    )  # fmt: skip
    if heads is not None:  # each token's aligning weights [S] -> the hypothesis's [T, S]
        for hypotheses, source in zip(found, sources, strict=True):
            for h in hypotheses:
                h.attention = torch.stack([t[0] for t in h.trace])[:, : len(source)]
                h.trace = None
    return found, encoded


def step_function(model: nn.Module, keep_attention: bool,
                  aligning: tuple[int, list[int]] | None = None):  # fmt: skip
    """``step(tokens, cache) -> Stepped`` for the searches, over a ``BeamCache``; its trace
    is each row's decoder self- and cross-attention (``keep_attention``), or the mean weights
    [rows, S] of the ``aligning`` heads (layer, heads)."""

    def step(tokens: Tensor, cache: BeamCache) -> Stepped:
        out = model.decode_step(
            tokens, cache.inner, return_attention=keep_attention,
            aligning=None if aligning is None else [aligning],
        )  # fmt: skip
        trace = ()
        if keep_attention:  # [L, B, H, 1, *] -> [B, L, H, *]
            attention = out.attention
            trace = (attention.decoder_self[:, :, :, -1].transpose(0, 1),
                     attention.cross[:, :, :, -1].transpose(0, 1))  # fmt: skip
        elif aligning is not None:  # [B, h, 1, S] -> [B, S]
            trace = (out.attention.aligning[0][:, :, 0].float().mean(1),)
        return Stepped(out.logits[:, -1], BeamCache(out.cache, cache.group), trace)

    return step


def _best_draws(drawn: list[Hypothesis], length_penalty: LengthPenalty,
                n_best: int) -> list[Hypothesis]:  # fmt: skip
    """The n_best of a source's sampled translations, scored as beam search scores its own."""
    scored = [replace(h, score=h.log_prob / length_penalty(len(h.tokens))) for h in drawn]
    return sorted(scored, key=lambda h: -h.score)[:n_best]


def fit_source(ids: list[int], config: Any, *, quiet: bool = False) -> list[int]:
    """A source the model can read: end-of-sentence alone for an empty one, and the first
    max_positions - 1 tokens (with a warning unless ``quiet``) of one too long."""
    limit = config.max_positions
    ids = list(ids) or [config.eos_id]
    if len(ids) > limit:
        if not quiet:
            warnings.warn(
                f"a source of {len(ids)} tokens is longer than the model's max_positions="
                f"{limit}; translating its first {limit - 1} tokens only",
                stacklevel=4,
            )
        ids = ids[: limit - 1] + [config.eos_id]
    return ids


def max_length(source_length: int, wanted: int | None, config: Any) -> int:
    """Generated tokens at most for a source: ``wanted``, or its length + ``EXTRA_LENGTH``,
    within the model's positions."""
    wanted = source_length + EXTRA_LENGTH if wanted is None else wanted
    return min(wanted, config.max_positions)  # DecodingOptions refused max_length < 1
