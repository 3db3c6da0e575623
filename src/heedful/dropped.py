"""Words a translation leaves out: watched while the beam chooses, named in a warning after.

A model trained on short sentences now and then writes a fluent translation without one of the
source's words ("We need to buy milk, eggs and bread." -> "Nous devons acheter du lait et du
pain.", "The house was carried away by the flood." -> "La maison a été laissée par la crue.").
The coverage penalty (heedful.coverage) sums over all pieces, and the aligning head leaves many
function words unattended by design ("to" of "I want to help" has no French word), so it stays
small and lets such a translation win. Here the words whose loss matters are *watched*: the
words of letters that are not among the ``COMMON`` words the model read most in training (the
model directory's ``source-words.txt``, heedful.lexicon), nor placeholders (heedful.protect).
Among the beam's hypotheses near the best, those that drop fewer watched words come first
(``heedful.coverage.rescored``: "... a été emportée par la crue."). A translation that still
drops one is named in a warning, with the words, so that nothing is left out silently, unless
the words are among the ``WARNED`` most read (a translation renders them without a word of
their own as often as it drops them: "old" of "five years old", "cinq ans") or the translation
depends on them: hidden from the model (erasure, heedful.explain.erasure), a word the
translation renders costs it log-probability ("ago" of "Tom was here just a few minutes ago."
-> "... il y a quelques minutes.": 6.6), a word it dropped hardly any ("butter" of "I like
butter better than cheese." -> "Je préfère mieux que le fromage.": none).

``COMMON``, ``WARNED``, ``USED``, ``heedful.coverage.COVERED`` and ``heedful.coverage.MARGIN``
were chosen on the dev sets by reading the sentences changed and warned of (bench/README.md,
"Dropped words"). Warned of: 15 of 3,385 en -> fr dev translations (13 sentences, some twice
in the set), all but one for a word the translation lacks ("fourth" of "The library is on the
fourth floor." -> "La bibliothèque est au sol."), and 10 of 2,400 es -> en, 7 of them so
("grifo", "Tokio"). Of the words flagged there, hiding one dropped cost the translation at most
0.4, hiding one rendered 0.65 or more; int8 weights move these by about 0.2 ("eggs" of "We need
to buy milk, eggs and bread.": 0.37, 0.60 in int8), hence 1.0, which names "cost" (0.65) too.
A word the translation lacks may still count as used where hiding it
changes the words around ("mi correo ana@example.com" -> "ana@example.com"), and a word the
context makes redundant may be named ("cost" of "How much does this jacket cost?" -> "Combien
coûte cette veste ?").

The words are warned of where the hypotheses carry the aligning heads' weights: with the
coverage penalty on (the bundled models' default; greedy search keeps the weights too, but has
no other hypotheses to choose from) or ``alignments`` asked for. The check by erasure costs one
forced pass for a sentence the coverage flags (about 1 in 100 on the dev sets).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

from heedful import coverage
from heedful.dates import weekdays_left_out
from heedful.decoding import fit_source
from heedful.explain.erasure import hidden_log_probs
from heedful.explain.words import word_groups

if TYPE_CHECKING:
    from heedful.real_input import Prepared
    from heedful.search import Hypothesis

COMMON = 150  # the model's most read source words, never watched ("to", "a", "off", "again")
WARNED = 300  # nor warned of: "old" of "five years old", "anymore", "soon" ("cinq ans", "plus")
USED = 1.0  # hidden, a word the translation renders costs it this much log-probability or more
_STRIP = ".,;:!?¡¿\"'«»“”()[]…"
Watched = tuple[list[str], list[list[int]]]  # a source's words and their pieces' positions


def watched(translator, prepared: Prepared, ids: list[int]) -> Watched:
    """The words of a source to watch, and each one's pieces' positions in ``ids`` (the ids the
    model reads, placeholders in place of what it was kept from); none without a word list with
    counts."""
    lexicon, pieces_of = translator.lexicon, getattr(translator.tokenizer, "pieces", None)
    if lexicon is None or lexicon.counts is None or pieces_of is None:
        return [], []
    common = lexicon.most_read(COMMON)
    kept = set() if prepared.protected is None else set(prepared.protected.placeholders)
    eos, limit = translator.config.eos_id, translator.config.max_positions - 1  # as fit_source
    pieces = pieces_of([i for i in ids[:limit] if i != eos])
    out_words, out_pieces = [], []
    for group in word_groups(pieces):
        word = "".join(pieces[p] for p in group).lstrip("▁").strip(_STRIP)
        positions = [p for p in group if any(c.isalpha() for c in pieces[p])]
        if positions and word not in kept and word.lower() not in common:
            out_words.append(word)
            out_pieces.append(positions)
    return out_words, out_pieces


def warn(translator, sentences: list[str], found: dict[int, Hypothesis],
         watched_words: dict[int, Watched],
         src_ids: Sequence[list[int]]) -> dict[int, str]:  # fmt: skip
    """One warning naming the translations (best hypotheses ``found``, by sentence, of
    ``src_ids``) that drop a word of ``watched_words`` (``watched``'s, by sentence) not among
    the ``WARNED`` most read and that they do not depend on (``unused``), where they carry the
    aligning heads' weights; a note on each, by sentence."""
    common = translator.lexicon.most_read(WARNED) if translator.lexicon else frozenset()
    notes = {}
    for i, h in found.items():
        words, pieces = watched_words.get(i, ([], []))
        if h.attention is None or not words:
            continue
        lost = [w for w in coverage.dropped(h.attention, pieces) if words[w].lower() not in common]
        if lost:
            lost = unused(translator, src_ids[i], h.tokens, [pieces[w] for w in lost], lost)
        # a weekday the translation does not name, whatever the attention (heedful.dates)
        languages = translator.source_language, translator.target_language
        text = lambda h=h: translator._text(h.tokens)  # noqa: E731 - only where one is a weekday
        lost = sorted({*lost, *weekdays_left_out(words, text, *languages)})
        if lost:
            named = ", ".join(repr(words[w]) for w in lost)
            notes[i] = f"{sentences[i][:60]!r}: may leave out {named}"
    if notes:
        many = len(notes) > 1
        warnings.warn(
            f"{len(notes)} translation{'s' if many else ''} may leave out a word of "
            f"{'their sources' if many else 'its source'} (the first: {notes[min(notes)]})",
            stacklevel=6,
        )
    return notes


def unused(translator, src_ids: list[int], tokens: list[int], pieces: list[list[int]],
           words: list[int]) -> list[int]:  # fmt: skip
    """Of ``words`` (each its ``pieces``' positions in ``src_ids``), those the translation
    ``tokens`` does not depend on: with the word hidden (heedful.explain.erasure), the
    translation's log-probability falls by less than ``USED``."""
    config = translator.config
    tokens = tokens[: config.max_positions]
    log_p = hidden_log_probs(
        translator.model, fit_source(src_ids, config, quiet=True), tokens, pieces
    ).sum(-1)  # [1 + words]
    return [w for k, w in enumerate(words, 1) if (log_p[0] - log_p[k]).item() < USED]
