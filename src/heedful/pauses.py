"""Pauses within a sentence that the bundled models read as its end, and the sentence going on
after one.

After an opening greeting and its comma ("Hola, me llamo Ana.", heedful.formulas.greeting_end),
before a Spanish "¡" after a comma ("Llego tarde, ¡lo siento!": "I'm late. I feel it!"),
before a saying or a letter's closing that ends a sentence after a comma ("gotta go, bye!",
"Gracias por su ayuda, un saludo.": heedful.sayings, heedful.formulas)
and after "..." before a small letter ("Wait... what did you say?") the models ended the
sentence and garbled the rest: "Hi, call me Ana.", "Hi, guys what are you?" for "Hola, ¿cómo
estás?", "Attends ! Qu'avez-vous dit ?". Each part alone they translate well. So a sentence is
cut there (``pauses``), each part translated as a sentence of its own, given opening with a
capital as sentences do (``opened``), and the part after a pause goes on in lower case where the
source's does (``going_on``): "Hi, my name is Ana.", "Attends... qu'as-tu dit ?".

A long sentence (``LONG`` words or more: Tatoeba's are short) is cut after the commas where a
clause opens (``CLAUSE_OPENINGS``: a conjunction, a subject pronoun, a determiner) and each part
is translated so: the models dropped whole clauses of such sentences ("... and a small cafe
where students meet after class to study together." -> "... et une petite place où se
rencontra."). On 24 long sentences of my own (26 to 46 words, the 5 under 30 left whole;
/root/heedful-runs/s36/long*), 8 came out better, 3 worse, 4 mixed and 9 the same. A part that
opens with its verb, or a relative pronoun, is not cut from its subject ("is coming to see us"
alone gave "venez nous voir").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from heedful.asides import as_aside
from heedful.explain.alignment_spans import WordLink
from heedful.formulas import closing_after_comma, greeting_end
from heedful.lexicon import Lexicon
from heedful.sayings import saying_after_comma
from heedful.textmap import Span

# "..." or "…" inside a sentence, before a word in lower case ("Wait... what?", "Bueno… ¿qué?")
_ELLIPSIS_WITHIN = re.compile(r"(?<=[^\W_])(\.\.\.|…)\s+(?=[¿¡]?[^\W\d_A-Z])")
# a comma before a Spanish exclamation opening inside a sentence ("Llego tarde, ¡lo siento!"):
# the model read "I'm late. I feel it!". Not a question: "Si llueve," alone gave "It's raining if
# it rains"
_OPENED_WITHIN = re.compile(r"(?<=[^\W_])(,)\s+(?=¡+[^\W\d_])")
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
    if language == "es":
        cuts += [m.end(1) for m in _OPENED_WITHIN.finditer(text, start, end)]
    if (saying := saying_after_comma(text[start:end], language)) is not None:
        cuts.append(start + saying)  # "gotta go, bye!"
    elif (closing := closing_after_comma(text[start:end], language)) is not None:
        cuts.append(start + closing)  # "Gracias por su ayuda, un saludo."
    cuts += _clause_cuts(text, start, end, language)
    spans, at = [], start
    for cut in sorted(set(cuts)):  # a greeting's comma may open an exclamation too
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
    letter = word.group() if len(word.group()) == 1 else None
    if letter and any(lexicon.usual_words(letter, lang) != letter for lang in ("en", "es")):
        return sentence  # chat's letter for a word ("q haces"), spelt out in lower case only
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


# a long sentence (``LONG`` words or more) is cut after a comma where both parts have
# ``_LEAST`` words or more and the part after it opens as a clause does: with a conjunction, a
# subject pronoun or a determiner (not a verb, whose subject it would lose: "is coming to see
# us" alone gave "venez nous voir"; nor a relative pronoun: "which cost me" gave "qu'est-ce
# qui m'a coûté")
LONG, _LEAST = 30, 5
CLAUSE_OPENINGS = {
    "en": "but and so because although though while when if then the a an my your his her its "
          "our their this that these those there i you he she we they it".split(),
    "es": "pero y e así porque aunque mientras cuando si luego el la los las un una mi mis tu "
          "tus su sus este esta estos estas yo tú él ella nosotros nosotras ellos ellas".split(),
    "fr": "mais et alors donc parce car bien quand si puis le la les un une mon ma mes ton ta "
          "tes son sa ses notre nos leur leurs ce cette ces je tu il elle nous vous ils "
          "elles".split(),
}  # fmt: skip
_CLAUSE_COMMA = {
    lang: re.compile(rf"(?<=[^\W_]),(?= (?i:{'|'.join(words)})\b)")
    for lang, words in CLAUSE_OPENINGS.items()
}
_WORDS = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")


def _clause_cuts(text: str, start: int, end: int, language: str | None) -> list[int]:
    """Where a long sentence ``text[start:end]`` is cut into clauses: after its commas that
    ``_CLAUSE_COMMA`` finds, where each part has ``_LEAST`` words or more."""
    comma = _CLAUSE_COMMA.get(language or "")
    if comma is None or "," not in text[start:end]:
        return []
    if len(_WORDS.findall(text, start, end)) < LONG:
        return []
    cuts, at = [], start
    for m in comma.finditer(text, start, end):
        before = len(_WORDS.findall(text, at, m.end()))
        after = len(_WORDS.findall(text, m.end(), end))
        if before >= _LEAST and after >= _LEAST:
            cuts.append(m.end())
            at = m.end()
    return cuts
