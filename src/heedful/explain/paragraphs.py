"""A paragraph's attention: its sentences' own, side by side.

``Translator.translate`` cuts a paragraph into sentences and translates each alone
(heedful.segment); its attention is theirs. ``attend`` gives one ``Attended`` for the whole
paragraph: the sentences' pieces one after the other (each sentence's ``</s>`` kept, where it
ended), and every weight matrix block-diagonal, sentence i's target rows attending to sentence
i's source only. Tables, heatmaps, the page and word alignments then read it as they read one
sentence's, and each target word's attention lands on the paragraph's own words.

The decoder's keys follow ``Attended``'s convention (key j is what it read: the start token,
then each target token but the last): sentence i + 1 starts where sentence i's ``</s>`` stands,
which its decoder read as its start.
"""

from __future__ import annotations

from collections.abc import Callable

from torch import Tensor

from heedful.attended import Attended
from heedful.protect import find_spans
from heedful.segment import SentenceSplitter


def attend_paragraph(
    translator, source: str, target: str | None, attend_one: Callable[[str, str | None], Attended]
) -> Attended | None:
    """The attention of a ``source`` of two or more sentences, sentence by sentence with
    ``attend_one(sentence, its target)``; None for one sentence, or for a ``target`` that does not
    cut into as many sentences (it is then attended to as one, as before)."""
    if not translator.split_sentences:
        return None
    paragraph = translator._splitter.split(source, find_spans(source))
    if len(paragraph.spans) < 2:
        return None
    targets: list[str | None] = [None] * len(paragraph.spans)
    target_paragraph = None
    if target is not None:
        target_paragraph = SentenceSplitter(translator.target_language).split(
            target, find_spans(target)
        )
        if len(target_paragraph.spans) != len(paragraph.spans):
            return None
        targets = list(target_paragraph.sentences)
    parts = [attend_one(s, t) for s, t in zip(paragraph.sentences, targets, strict=True)]
    translation = target if target is not None else paragraph.join([p.translation for p in parts])
    return joined(parts, source, translation)


def joined(parts: list[Attended], source: str, translation: str) -> Attended:
    """Sentences' attention as one paragraph's (``source`` and ``translation``: the texts they
    are the sentences of, in order)."""
    scores = [p.score for p in parts]
    return Attended(
        source=source,
        translation=translation,
        source_pieces=[x for p in parts for x in p.source_pieces],
        target_pieces=[x for p in parts for x in p.target_pieces],
        encoder_self=block_diagonal([p.encoder_self for p in parts]),
        decoder_self=block_diagonal([p.decoder_self for p in parts]),
        cross=block_diagonal([p.cross for p in parts]),
        score=None if None in scores else sum(scores),
        cross_full=block_diagonal([p.cross_full for p in parts]),
    )


def block_diagonal(blocks: list[Tensor | None]) -> Tensor | None:
    """[L, H, a_i, b_i] blocks -> [L, H, sum a, sum b], zero outside the blocks."""
    if any(b is None for b in blocks):
        return None
    rows, cols = sum(b.shape[-2] for b in blocks), sum(b.shape[-1] for b in blocks)
    out = blocks[0].new_zeros(*blocks[0].shape[:-2], rows, cols)
    r = c = 0
    for b in blocks:
        out[..., r : r + b.shape[-2], c : c + b.shape[-1]] = b
        r, c = r + b.shape[-2], c + b.shape[-1]
    return out
