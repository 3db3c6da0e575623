"""What a model attended to for one sentence: tokens and every layer's and head's weights.

Produced by ``Translator.attend`` (and the language model's equivalent); consumed by the tables,
heatmaps, the interactive page, alignments and the server. Its word level (pieces merged into the
text's words) is ``heedful.explain.words.to_words``.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch import Tensor


@dataclass
class Attended:
    """One sentence pair's attention, at subword level.

    ``source_pieces`` / ``target_pieces`` are the sentencepiece pieces the weights index (the
    source ends with ``</s>``; the target pieces are the tokens the decoder *produced*, ending with
    ``</s>``, so row t of ``cross`` is the attention used to produce target_pieces[t]).
    """

    source: str
    translation: str
    source_pieces: list[str]
    target_pieces: list[str]
    encoder_self: Tensor | None  # [L, H, S, S]  (None for a decoder-only model)
    decoder_self: Tensor | None  # [L, H, T, T]
    cross: Tensor | None  # [L, H, T, S]       (None for a decoder-only model)
    score: float | None = None  # the hypothesis's score under beam search
    # [L, H, T, S]: cross-attention of a pass reading the whole target (no causal mask), for
    # the ``full`` alignment method; computed only where that method is asked for
    cross_full: Tensor | None = None
