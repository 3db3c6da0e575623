"""From subword pieces to words: which pieces make a word, and how their weights merge.

A word is what the user typed between two spaces: a sentencepiece piece that starts with ``▁``
starts a new word, every other piece continues the current one, and the special tokens ``<s>``,
``</s>`` and ``<pad>`` are words of their own. Punctuation stays with its word (``jardín.``)
unless the text has a space before it, so pre-tokenised input gives pre-tokenised words.

Merging a weight matrix [.., Q, K] (Q query positions, K key positions) into words follows Clark
et al. (2019, "What does BERT look at?"), one rule for every kind of attention:

- attention **to** a word (a column) is the **sum** over its pieces: the share of attention the
  whole word receives;
- attention **from** a word (a row) is the **mean** over its pieces: a typical piece of the word.

So every word-level row is still a distribution (it sums to 1), for cross-attention (rows are
target words, columns source words) and self-attention (rows and columns are words of the same
sentence) alike.

The decoder's keys are what it *read*: the start token, then every produced token but the last
(``decoder_inputs``). So decoder self-attention has rows ``target_pieces`` and columns
``decoder_inputs(target_pieces)``; at word level the same holds for words.
"""

from __future__ import annotations

from dataclasses import replace

import torch
from torch import Tensor

from heedful.attended import Attended
from heedful.tokenizer import normalize

WORD_START = "▁"
START, END = "<s>", "</s>"
STANDALONE = {START, END, "<pad>"}


def word_groups(pieces: list[str]) -> list[list[int]]:
    """The piece positions of each word, in order: ['▁gat', 'o', '▁negro'] -> [[0, 1], [2]].

    Pieces without any ``▁`` (not from sentencepiece, e.g. a toy task's symbols) are words."""
    if not any(piece.startswith(WORD_START) for piece in pieces):
        return [[i] for i in range(len(pieces))]
    groups: list[list[int]] = []
    joinable = False  # may the next piece continue the last group?
    for i, piece in enumerate(pieces):
        if piece in STANDALONE:
            groups.append([i])
            joinable = False
        elif piece.startswith(WORD_START) or not joinable:
            groups.append([i])
            joinable = True
        else:
            groups[-1].append(i)
    return groups


def word_labels(pieces: list[str], groups: list[list[int]], text: str | None = None) -> list[str]:
    """A label per word: the text's own words where they line up with the groups (so an
    ``<unk>`` piece shows as the character it stood for), else the pieces joined."""
    joined = ["".join(pieces[i] for i in g).replace(WORD_START, "") for g in groups]
    if text is None:
        return joined
    words = normalize(text).split()
    ordinary = [k for k, g in enumerate(groups) if pieces[g[0]] not in STANDALONE]
    if len(words) != len(ordinary):
        return joined
    for k, word in zip(ordinary, words, strict=True):
        joined[k] = word
    return joined


def merge(weights: Tensor, row_groups: list[list[int]], col_groups: list[list[int]]) -> Tensor:
    """[.., Q, K] piece weights -> [.., Qw, Kw] word weights: rows averaged, columns summed."""
    q, k = weights.shape[-2:]
    rows = [[0.0] * q for _ in row_groups]  # built as lists: one tensor, not one per group
    for w, group in enumerate(row_groups):
        for i in group:
            rows[w][i] = 1.0 / len(group)
    cols = [[0.0] * len(col_groups) for _ in range(k)]
    for w, group in enumerate(col_groups):
        for i in group:
            cols[i][w] = 1.0

    def tensor(matrix: list[list[float]], shape: tuple[int, int]) -> Tensor:
        return torch.tensor(matrix, dtype=weights.dtype, device=weights.device).reshape(shape)

    # [Qw, Q] @ [.., Q, K] @ [K, Kw]
    return tensor(rows, (len(row_groups), q)) @ weights @ tensor(cols, (k, len(col_groups)))


def decoder_inputs(target: list[str]) -> list[str]:
    """The tokens the decoder read: the start token, then every target token but the last."""
    return [START] + target[:-1]


def target_groups(pieces: list[str]) -> list[list[int]]:
    """Word groups of a target. Its last piece is always a word of its own (normally ``</s>``;
    for an unfinished hypothesis, the one piece the decoder never read), so that the decoder's
    inputs group into the same words shifted by one."""
    if not pieces:
        return []
    return word_groups(pieces[:-1]) + [[len(pieces) - 1]]


def to_words(attended: Attended) -> Attended:
    """The same attention at word level: pieces become words and every weight is merged."""
    src_groups = word_groups(attended.source_pieces)
    tgt_groups = target_groups(attended.target_pieces)
    # Key j of the decoder is what it read at position j: the start token, then target j - 1.
    input_groups = [[0]] + [[i + 1 for i in g] for g in tgt_groups[:-1]]

    def merged(weights: Tensor | None, rows, cols) -> Tensor | None:
        return None if weights is None else merge(weights, rows, cols)

    return replace(
        attended,
        source_pieces=word_labels(attended.source_pieces, src_groups, attended.source),
        target_pieces=word_labels(attended.target_pieces, tgt_groups, attended.translation),
        encoder_self=merged(attended.encoder_self, src_groups, src_groups),
        decoder_self=merged(attended.decoder_self, tgt_groups, input_groups),
        cross=merged(attended.cross, tgt_groups, src_groups),
    )
