"""Translate text with a trained Transformer: a tokenizer, a model and a way to decode, together.

    >>> translator = Translator.load("models/es-en")
    >>> translator.translate(["El gato negro duerme."])
    ['The black cat sleeps.']
    >>> translator.translate(["El gato negro duerme."], options=DecodingOptions(beam_size=5))
    ['The black cat sleeps.']
    >>> (found,) = translator.translate(["El gato negro duerme."], alignments=True)
    >>> found.alignment[1]
    WordLink(source=(8, 13), target=(4, 9), source_word='negro', target_word='black')

Each part lives in a module of its own: how to decode and the search loop's glue in
``heedful.decoding`` (``DecodingOptions``), the searches in ``heedful.search``, real input
(paragraphs, ALL CAPS, URLs and numbers, unreadable words) in ``heedful.real_input``, attention
capture in ``heedful.explain.capture``, a translation's word links as spans of the user's texts
in ``heedful.explain.alignment_spans``. Special ids (pad, end of sentence, the decoder's start
token) come from ``model.config``, so an imported Marian model with its own tokenizer (anything
with ``encode``, ``encode_batch``, ``decode`` and ``pieces``; and ``unk_id``, if it has an
unknown piece) works the same way.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal, overload

import torch
from torch import Tensor

from heedful import decoding, real_input
from heedful.aligning import Trails
from heedful.attended import Attended
from heedful.decoding import EXTRA_LENGTH, DecodingOptions
from heedful.explain.alignment_methods import AlignmentMethod, method_from_meta
from heedful.explain.alignment_spans import WordLink
from heedful.explain.linked_words import LinkedWords
from heedful.inference import for_inference
from heedful.lexicon import Lexicon
from heedful.loading import load_model
from heedful.model import Transformer
from heedful.real_input import Translation
from heedful.search import Hypothesis, Sampling, beam_search
from heedful.segment import SentenceSplitter

__all__ = [
    "EXTRA_LENGTH",
    "DecodingOptions",
    "Sampling",
    "Translation",
    "Translator",
    "WordLink",
]


class Translator:
    """A Transformer and its tokenizer, ready to translate.

    ``meta``: the model directory's config.json (data, language pair), if any. The real-input
    steps are on for heedful's models and off for imported ones (``heedful.real_input``):
    ``split_sentences``, ``uncapitalise``, ``protect_spans``, ``carry_unreadable``.
    ``model`` is used as given: ``Translator.load`` builds it for inference first
    (``heedful.inference.for_inference``: oneDNN or int8 layers, and continuous batching, whose
    exact results need them); do the same for a model of your own.
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
        # words of nothing but unknown characters carried into the translation as they are
        # (heedful.unknown_words); off for imported models, which translate as their own tools do
        self.carry_unreadable = self.meta.get("generation", {}).get("carry_unreadable", True)
        # real input, off for imported models too: texts cut into sentences (heedful.segment),
        # ALL CAPS sentences translated cased (heedful.casing), URLs, e-mail addresses and long
        # numbers kept from the model (heedful.protect); names the vocabulary cuts into many
        # pieces too (``protect_names``, heedful.names.rare_names)
        ours = self.meta.get("format") != "marian"
        self.split_sentences = self.uncapitalise = self.protect_spans = ours
        self.protect_names = ours
        # the words the model read in training (heedful.lexicon), if its directory lists them:
        # names it never read are protected, accents typed without are put back
        self.lexicon: Lexicon | None = None
        # the directory it was loaded from (``Translator.load``), where ``linked_words`` are read
        self.model_dir: Path | None = None
        data = self.meta.get("data", {})
        self.source_language, self.target_language = data.get("src"), data.get("tgt")
        self._splitter = SentenceSplitter(self.source_language)
        # how translate(..., alignments=True) aligns; None: as the model directory records
        # (config.json "alignment", heedful.explain.alignment_methods)
        self.alignment_method: AlignmentMethod | None = None

    @classmethod
    def load(
        cls,
        model_dir: str | Path,
        *,
        device: str | torch.device = "cpu",
        quantize: str | None = None,
    ) -> Translator:
        """Load a translation model directory, any format ``heedful.loading`` reads (heedful's,
        or a Marian / OPUS-MT one saved by HF transformers); ``quantize="int8"``: int8 linear
        layers, the inputs quantised at each call (CPU; ``heedful.inference``).

        What the process holds once it is loaded (torch's own objects, about 166,000, the
        model, its word list) is moved out of the cyclic garbage collector's reach
        (``gc.freeze``): each of Python's full collections walked them all, about 0.1 s, one in
        every 1,200 sentences or so translated (9% of their time; 3 ms after the freeze).
        Objects freed by their reference counts are freed as before; a frozen cycle is not,
        until ``gc.unfreeze()``."""
        model, tokenizer, meta = load_model(model_dir, device=device, task="translation")
        translator = cls(for_inference(model, quantize), tokenizer, meta)
        translator.lexicon = Lexicon.load(model_dir)
        translator.model_dir = Path(model_dir)
        gc.freeze()
        return translator

    @functools.cached_property
    def linked_words(self) -> LinkedWords | None:
        """The words its training's alignment links joined (heedful.explain.linked_words), if its
        directory has them: read when an alignment method with a ``linked`` weight first asks."""
        return None if self.model_dir is None else LinkedWords.load(self.model_dir)

    # --- text ----------------------------------------------------------------------------------

    @overload
    def translate(
        self, texts: list[str], beam_size: int | None = None, *,
        options: DecodingOptions | None = None, alignments: Literal[False] = False, **keywords: Any,
    ) -> list[str]: ...  # fmt: skip
    @overload
    def translate(
        self, texts: list[str], beam_size: int | None = None, *,
        options: DecodingOptions | None = None, alignments: Literal[True], **keywords: Any,
    ) -> list[Translation]: ...  # fmt: skip
    def translate(self, texts, beam_size=None, *, options=None, alignments=False, **keywords):
        """Translate each text (best hypothesis); empty or blank texts give "".

        ``options``: how to decode (default ``DecodingOptions()``: beam 4); ``beam_size`` and
        keywords named after its fields (``max_length=20``, ``sampling=Sampling(...)``) change
        those fields. ``alignments=True``: each text's best ``Translation`` instead of its
        text, with its word links (``Translation.alignment``: ``WordLink``s whose spans index
        the text given and the translation)."""
        options = DecodingOptions.given(options, beam_size, **keywords)
        found = self.translate_n_best(
            texts, options=replace(options, n_best=1), alignments=alignments
        )
        return [best[0] if alignments else best[0].text for best in found]

    def translate_n_best(
        self,
        texts: list[str],
        beam_size: int | None = None,
        *,
        options: DecodingOptions | None = None,
        alignments: bool = False,
        **keywords: Any,
    ) -> list[list[Translation]]:
        """The ``n_best`` translations of each text, best first, with their scores. A text of
        several sentences is cut into them, and all are translated in one batch with the rest
        (``split_sentences``, heedful.segment). Options as for ``translate``; ``alignments``:
        each translation carries its word links (``Translation.alignment``), found after
        decoding by one teacher-forced pass over every (sentence, translation) pair with the
        model's alignment method (``alignment_method``)."""
        options = DecodingOptions.given(options, beam_size, **keywords)
        return real_input.translate_texts(self, texts, options, alignments=alignments)

    def resolved_alignment(self) -> AlignmentMethod:
        """``alignment_method``, or the model directory's record, with its layer filled in."""
        method = self.alignment_method or method_from_meta(self.meta)
        return method.resolve(self.config.n_decoder_layers, self.config.n_heads)

    # --- ids -----------------------------------------------------------------------------------

    def generate(
        self,
        src_ids: list[list[int]],
        beam_size: int | None = None,
        *,
        options: DecodingOptions | None = None,
        keep_attention: bool = False,
        on_batch: Callable[..., None] | None = None,
        aligning: Trails | None = None,
        banned: Sequence[int] = (),
        watched: Sequence[Sequence[Sequence[int]]] | None = None,
        **decoding_keywords: Any,
    ) -> list[list[Hypothesis]]:
        """Token-id level translation: per source (ids ending with end-of-sentence), its n_best
        hypotheses, best first (``heedful.decoding.generate``). Options as for ``translate``.
        ``keep_attention``: each hypothesis's trace holds, per token, its decoder
        self-attention [L, H, t] and cross-attention [L, H, S]. ``on_batch(indices,
        hypotheses, memory)``: called after each batch (``heedful.decoding.generate``).
        ``aligning``: hypotheses carry their aligning heads' weights where decoding can keep them
        (heedful.aligning). ``banned``: ids never generated, besides ``banned_ids``. A
        coverage penalty left to the model (``options.coverage_penalty`` None) is its
        directory's ``generation.coverage_penalty`` (0 if none), read with the heads of
        ``resolved_alignment``; ``watched``: per source, the words (their pieces' positions)
        whose loss the coverage penalty ranks first (heedful.coverage)."""
        options = DecodingOptions.given(options, beam_size, **decoding_keywords)
        if options.coverage_penalty is None:
            options = replace(options, coverage_penalty=self.coverage_penalty)
        if options.coverage_penalty and aligning is None:
            method = self.resolved_alignment()
            if method.layer is None:  # erasure reads no attention: the default method's heads
                method = AlignmentMethod().resolve(
                    self.config.n_decoder_layers, self.config.n_heads
                )
            aligning = Trails(method.layer, method.heads or range(self.config.n_heads))
        return decoding.generate(
            self.model, src_ids, options, banned=sorted({*self.banned_ids(), *banned}),
            force_eos=self.force_eos,
            keep_attention=keep_attention,
            beam=beam_search,  # looked up here at each call, where a test may replace it
            on_batch=on_batch, aligning=aligning, watched=watched,
        )  # fmt: skip

    @property
    def coverage_penalty(self) -> float:
        """β of the coverage penalty by default (heedful.coverage): the model directory's
        ``generation.coverage_penalty``, 0 if it has none (imported models)."""
        return float(self.meta.get("generation", {}).get("coverage_penalty", 0.0))

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

    # --- attention -----------------------------------------------------------------------------

    def attend(
        self, source: str, target: str | None = None, beam_size: int = 4,
        *, full_context: bool | None = None,
    ) -> Attended:  # fmt: skip
        """Every attention weight for one sentence, of the translation beam search finds or of
        ``target`` forced (``heedful.explain.capture.attend``); ``full_context``: with the
        ``full`` alignment method's pass too (None: where the model records that method)."""
        from heedful.explain import capture

        return capture.attend(self, source, target, beam_size, full_context=full_context)

    def as_translated(self, sentence: str) -> tuple[str, Callable[[str], str]]:
        """``sentence`` as ``translate`` gives it to the model (heedful.real_input.as_given:
        Markdown's markers taken out, a run of marks ending it given as one, then ``prepare``),
        and how ``translate`` finishes the model's translation of it (``finish``, the run put
        back; not the markers, which go back by word links)."""
        return real_input.as_given(self, sentence)

    def attend_ids(
        self,
        src_ids: list[int],
        tgt_ids: list[int] | None = None,
        *,
        beam_size: int = 4,
        source: str | None = None,
        full_context: bool | None = None,
    ) -> Attended:
        """``attend`` at id level: ``tgt_ids`` are the tokens the decoder is to produce."""
        from heedful.explain import capture

        return capture.attend_ids(self, src_ids, tgt_ids, beam_size=beam_size, source=source,
                                  full_context=full_context)  # fmt: skip

    # --- the tokenizer's side --------------------------------------------------------------------

    def _text(self, tokens: list[int]) -> str:
        return self.tokenizer.decode([i for i in tokens if i != self.config.eos_id])

    def _knows_some_of(self, ids: list[int]) -> bool:
        """Whether a source holds a piece other than unknown characters, a bare word boundary
        and end-of-sentence: from nothing else a model can only hallucinate."""
        unknown = {self.config.eos_id, getattr(self.tokenizer, "unk_id", None)}
        pieces = self.tokenizer.pieces(ids)
        return any(i not in unknown and p != "\u2581" for i, p in zip(ids, pieces, strict=True))

    def _rarity(self, word: str) -> tuple[int, float]:
        """How rare a spelling of a word is to the tokenizer (heedful.casing): its pieces, then
        minus their scores, where the tokenizer has them."""
        ids = self.tokenizer.encode(word)
        score = getattr(getattr(self.tokenizer, "sp", None), "get_score", None)
        return len(ids), -sum(map(score, ids)) if score is not None else 0.0

    def _pad(self, sources: list[list[int]]) -> Tensor:
        return decoding.pad(sources, self.config.pad_id, next(self.model.parameters()).device)

    def _fit_source(self, ids: list[int]) -> list[int]:
        return decoding.fit_source(ids, self.config)
