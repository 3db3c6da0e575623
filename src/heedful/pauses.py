"""Pauses within a sentence that the bundled models read as its end, and the sentence going on
after one.

After an opening greeting and its comma ("Hola, me llamo Ana.", heedful.formulas.greeting_end)
and after "..." before a small letter ("Wait... what did you say?") the models ended the
sentence and garbled the rest: "Hi, call me Ana.", "Hi, guys what are you?" for "Hola, ¿cómo
estás?", "Attends ! Qu'avez-vous dit ?". Each part alone they translate well. So a sentence is
cut there (``pauses``), each part translated as a sentence of its own, given opening with a
capital as sentences do (``opened``), and the part after a pause goes on in lower case where the
source's does (``going_on``): "Hi, my name is Ana.", "Attends... qu'as-tu dit ?".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from heedful.asides import as_aside
from heedful.explain.alignment_spans import WordLink
from heedful.formulas import greeting_end
from heedful.lexicon import Lexicon
from heedful.textmap import Span

# "..." or "…" inside a sentence, before a word in lower case ("Wait... what?", "Bueno… ¿qué?")
_ELLIPSIS_WITHIN = re.compile(r"(?<=[^\W_])(\.\.\.|…)\s+(?=[¿¡]?[^\W\d_A-Z])")
# the marks a part before a pause ends with: a greeting's comma, an ellipsis
MARKS = (",", "...", "…")


def pauses(text: str, start: int, end: int, language: str | None) -> list[Span]:
    """The sentence ``text[start:end]`` cut at its pauses: each part's span, without the
    spaces between them."""
    cuts = []
    greeting = greeting_end(text[start:end], language)
    if greeting is not None:
        cuts.append(start + greeting)
    cuts += [m.end(1) for m in _ELLIPSIS_WITHIN.finditer(text, start, end)]
    spans, at = [], start
    for cut in sorted(cuts):
        spans.append((at, cut))
        at = cut + len(text[cut:end]) - len(text[cut:end].lstrip())
    return spans + [(at, end)]


def opened(sentence: str, lexicon: Lexicon | None) -> str:
    """``sentence`` with its first word capitalised if the model read it as written (its
    ``lexicon``: heedful.lexicon; "pero mi teléfono..." -> "Pero mi teléfono..."; the same
    length): the bundled models dropped a small "pero" and "but" opening what they were given
    ("My phone was broken.", "Un téléphone était cassé."); a word they never read capitalised
    would be a name to them ("manana", typed for "mañana")."""
    word = _FIRST_WORD.search(sentence)
    if lexicon is None or word is None or not word.group()[0].islower():
        return sentence
    if not lexicon.knows(word.group(), accents=False):
        return sentence
    at = word.start()
    return sentence[:at] + sentence[at].upper() + sentence[at + 1 :]


_FIRST_WORD = re.compile(r"[^\W\d_]+")


def going_on(
    sentence: str, translation: str, links: Sequence[WordLink] | None, target: str | None
) -> tuple[str, list[WordLink] | None]:
    """The translation of a ``sentence`` that goes on after a pause ("me llamo Ana." of "Hola,
    me llamo Ana."), opened in lower case where the sentence is (heedful.asides.as_aside; its
    end as the model wrote it, as any sentence's), and its ``links`` with their words as the
    text now writes them."""
    text = as_aside(sentence.lstrip("¿¡\"'«“("), translation, target, ended=True)
    if links is None:
        return text, None
    # each link's words as the texts write them (the source was given opening with a capital)
    return text, [
        k._replace(source_word=sentence[k.source[0] : k.source[1]],
                   target_word=text[k.target[0] : k.target[1]])
        for k in links
    ]  # fmt: skip
