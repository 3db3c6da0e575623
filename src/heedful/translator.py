"""Translate text with a trained Transformer: batching, beam search, int8, attention capture.

    >>> translator = Translator.load("models/es-en")
    >>> translator.translate(["Hola, mundo."])
    ['Hello, world.']

``translate`` takes real input: a text of several sentences is translated sentence by sentence
(``heedful.segment``), ALL CAPS round-trips (``heedful.casing``), URLs, e-mail addresses and long
numbers are copied (``heedful.protect``), and words of characters the model cannot read are
carried (``heedful.unknown_words``).

The Translator only prepares batches and turns ids into text; the searches themselves live in
``heedful.search`` and see the model through one step function. Special ids (pad, end of
sentence, the decoder's start token) come from ``model.config``, so an imported Marian model with
its own tokenizer (anything with ``encode``, ``encode_batch``, ``decode`` and ``pieces``; and
``unk_id``, if it has an unknown piece) works the same way.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from heedful.attended import Attended
from heedful.casing import capitalise, is_all_caps, is_title_case, uncapitalise
from heedful.cpu import OneDNNWeights, onednn_linears, quantize_model
from heedful.explain.align import align, penultimate
from heedful.explain.words import STANDALONE
from heedful.model import DecoderCache, Memory, Transformer
from heedful.protect import Protected, find_spans, protect
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
from heedful.segment import Paragraph, SentenceSplitter
from heedful.unknown_words import Unreadable, put_back, split_unreadable

__all__ = ["Sampling", "Translation", "Translator", "quantize_model"]

EXTRA_LENGTH = 50  # maximum output length = source length + 50 (paper §6.1)


@dataclass
class Translation:
    """One of a source's n best translations. A source of several sentences is translated
    sentence by sentence: its score is the sum of theirs, its tokens theirs one after the other."""

    text: str
    score: float
    tokens: list[int]  # generated ids, ending with end-of-sentence unless cut at max_length


@dataclass
class _Prepared:
    """A sentence as the model is given it: cased if it was in capitals or Title Case
    (heedful.casing, ``caps``: it was in capitals), its
    URLs, e-mail addresses and long numbers replaced by placeholders (heedful.protect)."""

    text: str
    protected: Protected | None
    caps: bool


@dataclass
class _BeamCache:
    """A DecoderCache whose rows come ``group`` beams per sentence: the beams share one copy of
    their sentence's cross-attention keys and values (see ``DecoderCache.reorder``)."""

    inner: DecoderCache
    group: int

    def reorder(self, index: Tensor) -> _BeamCache:
        return _BeamCache(self.inner.reorder(index, self.group), self.group)


def _paragraph_n_best(
    paragraph: Paragraph, parts: list[list[Translation]], n_best: int
) -> list[Translation]:
    """A paragraph's n best translations from its sentences' (``parts``): the combinations with
    the highest sums of scores. A sentence left untranslated (no tokens: nothing the model can
    read) is kept as it is when the paragraph has others."""
    best: list[tuple[float, list[Translation]]] = [(0.0, [])]
    for sentence, options in zip(paragraph.sentences, parts, strict=True):
        if len(parts) > 1 and not options[0].tokens:
            options = [Translation(sentence, 0.0, [])]
        combined = [(score + o.score, chosen + [o]) for score, chosen in best for o in options]
        best = sorted(combined, key=lambda pair: -pair[0])[:n_best]
    return [
        Translation(paragraph.join([o.text for o in chosen]), score,
                    [t for o in chosen for t in o.tokens])
        for score, chosen in best
    ]  # fmt: skip


def _best_draws(
    drawn: list[Hypothesis], length_penalty: LengthPenalty, n_best: int
) -> list[Hypothesis]:
    """The n_best of a source's sampled translations, scored as beam search scores its own."""
    scored = [replace(h, score=h.log_prob / length_penalty(len(h.tokens))) for h in drawn]
    return sorted(scored, key=lambda h: -h.score)[:n_best]


class Translator:
    """A Transformer and its tokenizer, ready to translate.

    ``meta``: the model directory's config.json (data, language pair), if any.
    """

    def __init__(self, model: Transformer, tokenizer: Any, meta: dict[str, Any] | None = None):
        if not hasattr(model, "encode"):
            raise ValueError(
                f"a Translator needs an encoder-decoder model, not {type(model).__name__}"
            )
        self.model = model.eval()
        self.tokenizer = tokenizer
        self.meta = meta or {}
        self.config = model.config
        self._onednn_weights = OneDNNWeights()
        # words of nothing but unknown characters carried into the translation as they are
        # (heedful.unknown_words); off for imported models, which translate as their own tools do
        self.carry_unreadable = self.meta.get("generation", {}).get("carry_unreadable", True)
        # real input, off for imported models too: texts cut into sentences (heedful.segment),
        # ALL CAPS sentences translated cased (heedful.casing), URLs, e-mail addresses and long
        # numbers kept from the model (heedful.protect)
        ours = self.meta.get("format") != "marian"
        self.split_sentences = self.uncapitalise = self.protect_spans = ours
        data = self.meta.get("data", {})
        self.source_language, self.target_language = data.get("src"), data.get("tgt")
        self._splitter = SentenceSplitter(self.source_language)

    @classmethod
    def load(
        cls,
        model_dir: str | Path,
        *,
        device: str | torch.device = "cpu",
        quantize: str | None = None,
    ) -> Translator:
        """Load a model directory (heedful's, or a Marian / OPUS-MT one saved by HF
        transformers); ``quantize="int8"``: dynamic int8 linear layers (CPU)."""
        from heedful.checkpoint import load_model_dir

        try:
            from heedful.interop.marian import is_marian_dir, load_marian
        except ImportError:  # pragma: no cover - the interop package is optional here
            is_marian_dir = None
        if is_marian_dir is not None and is_marian_dir(model_dir):
            return load_marian(model_dir, device=device, quantize=quantize)
        model, tokenizer, meta = load_model_dir(model_dir, device=device)
        if meta.get("architecture", "Transformer") != "Transformer":
            raise ValueError(
                f"{Path(model_dir) / 'config.json'}: a {meta['architecture']} cannot translate; "
                "use `heedful lm` for language models"
            )
        if quantize is not None:
            model = quantize_model(model, quantize)
        return cls(model, tokenizer, meta)

    # --- text ----------------------------------------------------------------------------------

    def translate(
        self,
        texts: list[str],
        beam_size: int = 4,
        *,
        max_length: int | None = None,
        min_length: int = 0,
        length_penalty: float = 0.6,
        length_penalty_form: PenaltyForm = "gnmt",
        batch_size: int = 32,
        sampling: Sampling | None = None,
        early_stopping: bool = False,
    ) -> list[str]:
        """Translate each text (best hypothesis); empty or blank texts give ""."""
        n_best = self.translate_n_best(
            texts, beam_size, n_best=1, max_length=max_length, min_length=min_length,
            length_penalty=length_penalty, length_penalty_form=length_penalty_form,
            batch_size=batch_size, sampling=sampling, early_stopping=early_stopping,
        )  # fmt: skip
        return [options[0].text for options in n_best]

    def translate_n_best(
        self,
        texts: list[str],
        beam_size: int = 4,
        *,
        n_best: int = 1,
        max_length: int | None = None,
        min_length: int = 0,
        length_penalty: float = 0.6,
        length_penalty_form: PenaltyForm = "gnmt",
        batch_size: int = 32,
        sampling: Sampling | None = None,
        early_stopping: bool = False,
    ) -> list[list[Translation]]:
        """The ``n_best`` translations of each text, best first, with their scores. A text of
        several sentences is cut into them, and all are translated in one batch with the rest
        (``split_sentences``, heedful.segment)."""
        if isinstance(texts, str):
            raise TypeError("translate takes a list of texts; wrap a single text in a list")
        paragraphs = [self._paragraph(text) for text in texts]
        in_capitals = [self._in_capitals(p) for p in paragraphs for _ in p.spans]
        found = self._translate_sentences(
            [s for p in paragraphs for s in p.sentences], in_capitals, beam_size,
            max_length=max_length, min_length=min_length, length_penalty=length_penalty,
            length_penalty_form=length_penalty_form, n_best=n_best, batch_size=batch_size,
            sampling=sampling, early_stopping=early_stopping,
        )  # fmt: skip
        out, at = [], 0
        for paragraph in paragraphs:
            parts, at = found[at : at + len(paragraph.spans)], at + len(paragraph.spans)
            out.append(_paragraph_n_best(paragraph, parts, n_best))
        return out

    def _paragraph(self, text: str) -> Paragraph:
        """``text`` cut into sentences, or, without ``split_sentences``, one sentence."""
        if not self.split_sentences:
            return Paragraph(text, [(0, len(text))] if text.strip() else [])
        return self._splitter.split(text, find_spans(text) if self.protect_spans else ())

    def _in_capitals(self, paragraph: Paragraph) -> bool:
        """Whether a paragraph of several sentences is in capitals, but for its spans (URLs...)."""
        if not self.uncapitalise or len(paragraph.spans) < 2:
            return False
        text = paragraph.text
        for start, end in reversed(find_spans(text)):
            text = f"{text[:start]} {text[end:]}"
        return is_all_caps(text)

    def _translate_sentences(self, sentences: list[str], in_capitals: list[bool],
                             beam_size: int, *, n_best: int,
                             **search: Any) -> list[list[Translation]]:  # fmt: skip
        """Each sentence's n best translations (none for one the model cannot read, with a
        warning); ``in_capitals``: whether each is in a paragraph in capitals."""
        prepared = [self._prepare(s, c) for s, c in zip(sentences, in_capitals, strict=True)]
        src_ids = self.tokenizer.encode_batch([p.text for p in prepared])
        todo, unreadable = [], []
        carried: dict[int, Unreadable] = {}  # sources with words the model cannot read
        for i, (text, ids) in enumerate(zip(sentences, src_ids, strict=True)):
            if not text.strip() or all(t == self.config.eos_id for t in ids):
                continue
            if not self._knows_some_of(ids):
                unreadable.append(i)
                continue
            todo.append(i)
            split = self._split_unreadable(prepared[i].text, ids)
            if split is not None:
                carried[i] = split
                src_ids[i] = self.tokenizer.encode(split.text)
        if unreadable:
            warnings.warn(
                f"{len(unreadable)} source{'s hold' if len(unreadable) > 1 else ' holds'} only "
                "characters outside the model's vocabulary (the first: "
                f"{sentences[unreadable[0]][:40]!r}); left untranslated",
                stacklevel=4,
            )
        hypotheses = self.generate([src_ids[i] for i in todo], beam_size, n_best=n_best, **search)
        out: list[list[Translation]] = [[Translation("", 0.0, [])] for _ in sentences]
        for i, options in zip(todo, hypotheses, strict=True):
            out[i] = [
                Translation(self._finish(prepared[i], carried.get(i), self._text(h.tokens)),
                            h.score, h.tokens)
                for h in options
            ]  # fmt: skip
        return out

    def _prepare(self, sentence: str, in_capitals: bool) -> _Prepared:
        """The sentence with placeholders for what the model cannot copy (``protect_spans``),
        cased as usual if it is in capitals or Title Case (``uncapitalise``); a short sentence
        of a paragraph ``in_capitals`` counts as in capitals."""
        source, target = self.source_language, self.target_language
        protected = protect(sentence, source, target) if self.protect_spans else None
        text = sentence if protected is None else protected.text
        placeholders = [] if protected is None else protected.placeholders
        caps = self.uncapitalise and is_all_caps(text, placeholders, short=in_capitals)
        if caps or self.uncapitalise and is_title_case(text, placeholders):
            text = uncapitalise(text, self._rarity, placeholders)
        return _Prepared(text, protected, caps)

    def _finish(self, prepared: _Prepared, carried: Unreadable | None, translation: str) -> str:
        """The model's translation of ``prepared.text`` with the words carried past the model
        put back, and the placeholders' spans too, in capitals if the source was."""
        protected = prepared.protected
        split = carried or Unreadable(prepared.text.split(), [], [])
        if protected is not None:
            split = protected.missing(translation, split)
        if split.words:
            translation = self._put_back(split, translation)
        if prepared.caps:
            translation = capitalise(
                translation, [] if protected is None else protected.placeholders
            )
        return translation if protected is None else protected.restore(translation)

    def _rarity(self, word: str) -> tuple[int, float]:
        """How rare a spelling of a word is to the tokenizer (heedful.casing): its pieces, then
        minus their scores, where the tokenizer has them."""
        ids = self.tokenizer.encode(word)
        score = getattr(getattr(self.tokenizer, "sp", None), "get_score", None)
        return len(ids), -sum(map(score, ids)) if score is not None else 0.0

    def _split_unreadable(self, text: str, ids: list[int]) -> Unreadable | None:
        """The words of a source that the model cannot read at all (heedful.unknown_words), if
        it has some besides words it can."""
        unk_id = getattr(self.tokenizer, "unk_id", None)
        if not self.carry_unreadable or unk_id is None or unk_id not in ids:
            return None
        encode = self.tokenizer.encode
        return split_unreadable(text, lambda char: not self._knows_some_of(encode(char)))

    def _put_back(self, split: Unreadable, translation: str) -> str:
        """The translation of ``split.text`` with the words the model could not read put back,
        those between readable words where word alignment (penultimate layer) puts them."""
        links = None
        inside = any(0 <= before < len(split.readable) - 1 for before in split.after)
        if inside and translation:
            words = self.attend(split.text, target=translation).words()
            targets = [w for w in words.target_pieces if w not in STANDALONE]
            if len(targets) == len(translation.split()):  # else: by relative place
                links = align(words, penultimate(words.cross.shape[0]))
        return put_back(split, translation, links)

    def _knows_some_of(self, ids: list[int]) -> bool:
        """Whether a source holds a piece other than unknown characters, a bare word boundary
        and end-of-sentence: from nothing else a model can only hallucinate."""
        unknown = {self.config.eos_id, getattr(self.tokenizer, "unk_id", None)}
        pieces = self.tokenizer.pieces(ids)
        return any(i not in unknown and p != "\u2581" for i, p in zip(ids, pieces, strict=True))

    def _text(self, tokens: list[int]) -> str:
        return self.tokenizer.decode([i for i in tokens if i != self.config.eos_id])

    # --- ids -----------------------------------------------------------------------------------

    @torch.inference_mode()
    def generate(
        self,
        src_ids: list[list[int]],
        beam_size: int = 4,
        *,
        max_length: int | None = None,
        min_length: int = 0,
        length_penalty: float = 0.6,
        length_penalty_form: PenaltyForm = "gnmt",
        n_best: int = 1,
        batch_size: int = 32,
        keep_attention: bool = False,
        sampling: Sampling | None = None,
        early_stopping: bool = False,
    ) -> list[list[Hypothesis]]:
        """Token-id level translation: per source (ids ending with end-of-sentence), its n_best
        hypotheses, best first. ``max_length``: generated tokens at most, default source length
        + 50; ``min_length``: no end-of-sentence before that many tokens. Sources are sorted by
        length into batches of ``batch_size``; results come back in the caller's order.
        ``keep_attention``: each hypothesis's trace holds, per token, its decoder self-attention
        [L, H, t] and cross-attention [L, H, S] (beam search reorders them with the beams).
        ``sampling``: instead of searching, draw ``beam_size`` translations of each source and
        keep the ``n_best`` of them by score, log P(Y) / lp(|Y|) (fairseq's ``--sampling``).
        ``early_stopping``: beam search stops a sentence as soon as it holds ``beam_size``
        finished hypotheses, as fairseq and CTranslate2 do (Hugging Face's
        ``early_stopping=True``); by default it goes on while a live beam could still win.
        """
        if beam_size < 1:
            raise ValueError(f"beam_size must be >= 1, not {beam_size}")
        if not 1 <= n_best <= beam_size:
            raise ValueError(f"n_best={n_best} needs 1 <= n_best <= beam_size={beam_size}")
        if max_length is not None and max_length < 1:
            raise ValueError(f"max_length must be at least 1, not {max_length}")
        sources = [self._fit_source(ids) for ids in src_ids]
        penalty = LengthPenalty(length_penalty, length_penalty_form)
        generator = None if sampling is None else sampling.generator()
        order = sorted(range(len(sources)), key=lambda i: -len(sources[i]))
        results: list[list[Hypothesis]] = [[] for _ in sources]
        with onednn_linears(self.model, self._onednn_weights):
            for start in range(0, len(order), batch_size):
                batch = order[start : start + batch_size]
                lengths = [self._max_length(len(sources[i]), max_length) for i in batch]
                found = self._search(
                    [sources[i] for i in batch], lengths, beam_size=beam_size,
                    min_length=min_length, length_penalty=penalty, n_best=n_best,
                    keep_attention=keep_attention, sampling=sampling, generator=generator,
                    early_stopping=early_stopping,
                )  # fmt: skip
                for i, hypotheses in zip(batch, found, strict=True):
                    results[i] = hypotheses
        return results

    def _search(self, sources, max_lengths, *, beam_size, min_length, length_penalty, n_best,
                keep_attention, sampling, generator,
                early_stopping) -> list[list[Hypothesis]]:  # fmt: skip
        config = self.config
        src = self._pad(sources)
        memory = self.model.encode(src)
        draws = 1
        if sampling is not None:  # each source's beam_size draws are rows side by side
            draws, beam_size = beam_size, 1
            memory = Memory(memory.states.repeat_interleave(draws, 0),
                            memory.mask.repeat_interleave(draws, 0))  # fmt: skip
            max_lengths = [n for n in max_lengths for _ in range(draws)]
        # the decoder reads the start token and at most max_length - 1 generated tokens
        cache = _BeamCache(self.model.start_decoding(memory, max(max_lengths)), beam_size)
        rows = len(max_lengths)
        start = torch.full((rows, 1), config.start_id, dtype=torch.long, device=src.device)
        step = self._step_function(keep_attention)
        common = dict(
            eos_id=config.eos_id, max_length=max_lengths, min_length=min_length,
            banned=self.banned_ids(), force_eos=self.force_eos, keep_trace=keep_attention,
        )  # fmt: skip
        if sampling is not None:
            drawn = sample(
                step, cache, start, temperature=sampling.temperature, top_k=sampling.top_k,
                top_p=sampling.top_p, generator=generator, **common,
            )  # fmt: skip
            return [
                _best_draws(drawn[i : i + draws], length_penalty, n_best)
                for i in range(0, rows, draws)
            ]
        if beam_size == 1:
            return [[h] for h in greedy_search(step, cache, start, **common)]
        return beam_search(
            step, cache, start, beam_size=beam_size, length_penalty=length_penalty,
            n_best=n_best, early_stopping=early_stopping, **common,
        )  # fmt: skip

    def _step_function(self, keep_attention: bool):
        model = self.model

        def step(tokens: Tensor, cache: _BeamCache) -> Stepped:
            out = model.decode_step(tokens, cache.inner, return_attention=keep_attention)
            trace = ()
            if keep_attention:  # [L, B, H, 1, *] -> [B, L, H, *]
                attention = out.attention
                trace = (attention.decoder_self[:, :, :, -1].transpose(0, 1),
                         attention.cross[:, :, :, -1].transpose(0, 1))  # fmt: skip
            return Stepped(out.logits[:, -1], _BeamCache(out.cache, cache.group), trace)

        return step

    def banned_ids(self) -> list[int]:
        """Ids never generated: padding, the start token unless it is end-of-sentence, and any
        in meta["generation"]["banned_ids"] (an imported model's bad_words_ids)."""
        config = self.config
        extra = self.meta.get("generation", {}).get("banned_ids", [])
        return sorted({config.pad_id, config.start_id, *extra} - {config.eos_id})

    @property
    def force_eos(self) -> bool:
        """End every output cut at max_length with EOS: HF's forced_eos_token_id, which Marian
        models set (meta["generation"]["forced_eos_token_id"])."""
        return self.meta.get("generation", {}).get("forced_eos_token_id") is not None

    def _pad(self, sources: list[list[int]]) -> Tensor:
        device = next(self.model.parameters()).device
        src = torch.full(
            (len(sources), max(map(len, sources))), self.config.pad_id, dtype=torch.long
        )
        for i, ids in enumerate(sources):
            src[i, : len(ids)] = torch.tensor(ids, dtype=torch.long)
        return src.to(device)

    def _fit_source(self, ids: list[int]) -> list[int]:
        limit = self.config.max_positions
        ids = list(ids) or [self.config.eos_id]
        if len(ids) > limit:
            warnings.warn(
                f"a source of {len(ids)} tokens is longer than the model's max_positions="
                f"{limit}; translating its first {limit - 1} tokens only",
                stacklevel=3,
            )
            ids = ids[: limit - 1] + [self.config.eos_id]
        return ids

    def _max_length(self, source_length: int, max_length: int | None) -> int:
        wanted = source_length + EXTRA_LENGTH if max_length is None else max_length
        return min(wanted, self.config.max_positions)  # generate refused max_length < 1

    # --- attention -----------------------------------------------------------------------------

    def attend(self, source: str, target: str | None = None, beam_size: int = 4) -> Attended:
        """Every attention weight for one sentence: of the translation found by beam search
        (the final hypothesis's own weights), or, with ``target``, of that target forced.
        Raises ValueError for an empty source, and, without ``target``, for one that ``translate``
        leaves untranslated (only characters outside the vocabulary): it has no translation."""
        if not source.strip():
            raise ValueError("the source is empty: give a sentence to attend to")
        src_ids = self._fit_source(self.tokenizer.encode(source))
        if target is None:
            if not self._knows_some_of(src_ids):
                raise ValueError(
                    f"{source[:40]!r} holds only characters outside the model's vocabulary, so "
                    "it has no translation to show the attention of; give a target to force one"
                )
            return self.attend_ids(src_ids, None, beam_size=beam_size, source=source)
        # a tokenizer with two vocabularies (Marian) encodes targets with the target one
        encode_target = getattr(self.tokenizer, "encode_target", self.tokenizer.encode)
        return self.attend_ids(src_ids, encode_target(target), source=source)

    @torch.inference_mode()
    def attend_ids(
        self,
        src_ids: list[int],
        tgt_ids: list[int] | None = None,
        *,
        beam_size: int = 4,
        source: str | None = None,
    ) -> Attended:
        """``attend`` at id level: ``tgt_ids`` are the tokens the decoder is to produce."""
        src = self._pad([src_ids])
        encoder_self = self.model.encode(src, return_attention=True).attention[:, 0]
        score = None
        if tgt_ids is None:
            (best,) = self.generate([src_ids], beam_size, keep_attention=True)[0][:1]
            tgt_ids, score = best.tokens, best.score
            cross = torch.stack([c for _, c in best.trace], dim=2)  # [L, H, T, S]
            T = len(best.trace)
            decoder_self = cross.new_zeros(cross.shape[0], cross.shape[1], T, T)
            for t, (d, _) in enumerate(best.trace):
                decoder_self[:, :, t, : t + 1] = d
        else:
            tgt_in = torch.tensor([[self.config.start_id, *tgt_ids[:-1]]], device=src.device)
            attention = self.model(src, tgt_in, return_attention=True).attention
            decoder_self, cross = attention.decoder_self[:, 0], attention.cross[:, 0]
        return Attended(
            source=source if source is not None else self._text(src_ids),
            translation=self._text(tgt_ids),
            source_pieces=getattr(self.tokenizer, "source_pieces", self.tokenizer.pieces)(src_ids),
            target_pieces=self.tokenizer.pieces(tgt_ids),
            encoder_self=encoder_self,
            decoder_self=decoder_self,
            cross=cross,
            score=score,
        )
