"""Word links with every translation of real input: the model's links found as decoding ends,
then carried through the real-input steps' edits to the text given and the translation returned.

``heedful.real_input`` prepares each sentence for the model (placeholders, casing, unreadable
words set aside) and finishes each translation (words put back, capitals, the spans restored);
every stage's text is kept (``Prepared``, ``Finished``), and here each edit between two stages
becomes a ``heedful.textmap.TextMap``. The links themselves: ``heedful.explain.alignment_spans``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from heedful.aligning import Trails
from heedful.decoding import fit_source
from heedful.explain.alignment_methods import DECODED_METHODS
from heedful.explain.alignment_spans import (
    Edits,
    ModelLinks,
    ModelPair,
    Side,
    WordLink,
    model_links,
    trim,
    user_links,
)
from heedful.protect import find_word
from heedful.textmap import TextMap

if TYPE_CHECKING:
    from heedful.real_input import Finished, Prepared
    from heedful.unknown_words import Unreadable


class TranslationLinks:
    """With alignments: each translation's links between the model's words, found batch by
    batch as decoding ends, then shown on the user's texts once the translation is finished.
    The aligning heads' weights come with the hypotheses where decoding kept them
    (``trails``, heedful.aligning); the others' come from a forced pass that reads the batch's
    encoder output (so no more than a batch of it is kept)."""

    def __init__(self, translator, prepared: list[Prepared], carried: dict[int, Unreadable],
                 src_ids: list[list[int]], todo: list[int]):  # fmt: skip
        self.translator, self.prepared, self.carried = translator, prepared, carried
        self.src_ids, self.todo = src_ids, todo
        self.method = translator.resolved_alignment()
        self.trails = None  # decoding keeps the aligning heads' weights (heedful.aligning)
        if self.method.method in DECODED_METHODS:
            every = range(translator.config.n_heads)
            second = (self.method.blend_layer, every) if self.method.blend else None
            self.trails = Trails(self.method.layer, self.method.heads or every, second)
        self.found: dict[tuple[int, int], ModelLinks] = {}  # (source, option) -> links
        self.tokens: dict[tuple[int, int], list[int]] = {}  # the translations they are of

    def on_batch(self, batch: list[int], hypotheses: list, memory) -> None:
        """``generate``'s hook: ``batch`` indexes ``todo``; ``memory`` is its encoder output."""
        keys, pairs, memories, weights, seconds = [], [], [], [], []
        for row, (k, found) in enumerate(zip(batch, hypotheses, strict=True)):
            for option, h in enumerate(found):
                keys.append((self.todo[k], option))
                pairs.append(self._model_pair(self.todo[k], h.tokens))
                memories.append(memory.states[row, : len(pairs[-1].src_ids)])
                kept = h.attention is not None and len(h.attention) == len(pairs[-1].tgt_ids)
                weights.append(h.attention if kept else None)  # else: cut without </s>
                seconds.append(h.second_attention if kept else None)
                self.tokens[keys[-1]] = h.tokens
        self._find(keys, pairs, memories, weights, seconds)

    def complete(self, hypotheses: list) -> None:
        """Links for the translations the hook did not see (a ``generate`` without it)."""
        keys, pairs = [], []
        for i, found in zip(self.todo, hypotheses, strict=True):
            for option, h in enumerate(found):
                if self.tokens.get((i, option)) != h.tokens:
                    keys.append((i, option))
                    pairs.append(self._model_pair(i, h.tokens))
                    self.tokens[keys[-1]] = h.tokens
        if keys:
            self._find(keys, pairs, None)

    def _find(self, keys, pairs: list[ModelPair], memories, weights=None, seconds=None) -> None:
        links = model_links(self.translator, pairs, self.method, memories, weights, seconds)
        self.found.update(zip(keys, links, strict=True))

    def _model_pair(self, i: int, tokens: list[int]) -> ModelPair:
        """The source's ids and text as the model read them, the translation's as it wrote
        them (numbers it miscopied mended to their placeholders, so they link as placeholders)."""
        prepared, carried, config = self.prepared[i], self.carried.get(i), self.translator.config
        protected, text = prepared.protected, self.translator._text(tokens)
        tgt_ids = tokens
        if tokens[-1:] != [config.eos_id] and len(tokens) < config.max_positions:
            tgt_ids = [*tokens, config.eos_id]  # so that its last word groups as any other
        return ModelPair(
            fit_source(self.src_ids[i], config, quiet=True), tgt_ids,
            prepared.text if carried is None else carried.text,
            text if protected is None else protected.mended(text),
            [] if protected is None else protected.placeholders,
            [] if protected is None else protected.as_translated(),
        )  # fmt: skip

    def of(self, i: int, option: int, done: Finished) -> list[WordLink]:
        """The links of a finished translation, on the user's texts."""
        edits = _edits(self.prepared[i], self.carried.get(i), done)
        return user_links(self.found[(i, option)], edits)


def _edits(prepared: Prepared, carried: Unreadable | None, done: Finished) -> Edits:
    """Every edit between the model's texts and the user's (heedful.textmap), and the words
    carried past the model, linked to where they were put back."""
    protected, sentence = prepared.protected, prepared.sentence
    model_text = prepared.text if carried is None else carried.text
    before_casing = sentence if protected is None else protected.text
    unprotected = TextMap.identity()
    source = Side(
        [model_text, prepared.text, before_casing, sentence],
        [TextMap.diff(model_text, prepared.text), TextMap.recased(prepared.text, before_casing),
         unprotected if protected is None else protected.sentence_map(sentence)],
    )  # fmt: skip
    restored, text = TextMap.identity(), done.cased
    if protected is not None:
        text, restored = protected.restore_map(done.cased)
    target = Side(  # last: a date written its way, quotes curled, a heading's mark left out
        [done.mended, done.put_back, done.cased, text, done.text],
        [TextMap.diff(done.mended, done.put_back), TextMap.recased(done.put_back, done.cased),
         restored, TextMap.identity() if text == done.text else TextMap.diff(text, done.text)],
    )  # fmt: skip
    links = []
    given_as = {}  # a placeholder as the translation holds it -> as the model was given it
    if protected is not None:
        given_as = dict(zip(protected.as_translated(), protected.placeholders, strict=True))
    unknown = list(zip(carried.words, carried.spans, strict=True)) if carried else []
    for word, span in zip(done.split.words, done.carried, strict=True):
        if unknown and word == unknown[0][0]:  # punctuation it holds left out, as of any word
            given = trim(prepared.text, unknown.pop(0)[1])
            links.append(((1, given), (1, trim(done.put_back, span))))
        elif (where := find_word(given_as.get(word, word), model_text)) is not None:
            # a placeholder dropped (a date's: its weekday, as the model was given it)
            links.append(((0, where), (1, span)))
    return Edits(source, target, links)
