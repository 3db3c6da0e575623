"""Sentences in another language than the model reads: one already in the language it writes is
kept as it is, any other is translated with a warning that names its language.

Given English, the bundled es -> en model wrote "Hello, how are you today? I hope everything is
fine." as "Hello, guys are there? hope was lucky."; given Spanish, the en -> fr model wrote
"¿Dónde está la biblioteca?" as "Dónde orthétéestomá manque-t-il de biote ?". A translation
service keeps text that is already in the target language, and says when a text is in a
language it does not read.

Identification is lingua's (``heedful.languages.Detector``, as the server's), among
``LANGUAGES`` and the model's two. It runs only on a sentence of at least ``WORDS`` different
words whose translation the model scored low (log-probability per token below ``LOW``); the
target language counts at ``SURE_TARGET`` confidence or more, a third at ``SURE_OTHER``
(Spanish typed casually was taken for Portuguese or Italian at 0.6-0.8 in 8 of 4,800 dev
sentences, at 0.8 in none). Through
``Translator.translate`` (beam 4; /root/heedful-runs/s31/wrong_lang_pipeline.py), no dev source
of either model (2,400 es -> en, 3,385 en -> fr), typed casually or not, nor any of 1,014
Multi30k English captions given to en -> fr, was kept as written or warned about; of 400
Tatoeba sentences in each other language, es -> en kept 129 English ones as written and warned
about 111 French ones, en -> fr kept 189 French ones and warned about 74 Spanish ones (the rest
scored too well to be looked at, or were too close to call). lingua loads its models at the
first sentence it looks at (under a second).
"""

from __future__ import annotations

import re
import warnings
from functools import cache

from heedful.languages import Detector, language_name

LOW = -0.3  # log-probability per token: the dev sources' 5th percentile is about -0.5
WORDS = 3
SURE_TARGET = 0.6
SURE_OTHER = 0.8
LANGUAGES = ("en", "es", "fr", "de", "it", "pt")


def identify(texts: list[str], source: str, target: str) -> list[str | None]:
    """Each text's language if lingua is sure enough of one other than ``source`` (``target``
    at ``SURE_TARGET``, a third at ``SURE_OTHER``), else None."""
    found: list[str | None] = []
    for best in _detector(tuple(sorted({*LANGUAGES, source, target}))).likeliest(texts):
        code, value = best or (None, 0.0)
        sure = SURE_TARGET if code == target else SURE_OTHER
        found.append(code if code not in (None, source) and value >= sure else None)
    return found


def as_written(translator, sentences: list[str], prepared: list, todo: list[int],
               hypotheses: list) -> tuple[set[int], dict[int, str]]:  # fmt: skip
    """Of the sentences ``todo`` (heedful.real_input's, ``prepared`` for the model and
    translated as ``hypotheses``), those already in the target language, to keep as written; a
    warning for them, and one for those in a third language; and a note on each of either, by
    sentence. What is identified is the model's text without its placeholders ("Tom
    responsabilizó a Duyên." was Portuguese; "Bonjour, je m'appelle Mary et j'habite à Boston."
    French at 0.77, without "Mary" and "Boston" at 0.86)."""
    source, target = translator.source_language, translator.target_language
    if not translator.protect_spans or not source or not target:
        return set(), {}
    suspects = [
        i for i, (best, *_) in zip(todo, hypotheses, strict=True)
        if suspect(sentences[i], best.log_prob, len(best.tokens))
    ]  # fmt: skip
    if not suspects:
        return set(), {}
    found = identify([_unnamed(prepared[i]) for i in suspects], source, target)
    written = {i for i, code in zip(suspects, found, strict=True) if code == target}
    others = [
        (i, code) for i, code in zip(suspects, found, strict=True) if code not in (None, target)
    ]
    if written:
        first = sentences[min(written)]
        warnings.warn(
            f"{len(written)} sentence{'s' if len(written) > 1 else ''} already in "
            f"{language_name(target)}, the language the model translates into (the first: "
            f"{first[:40]!r}), kept as written",
            stacklevel=6,
        )
    if others:
        (i, code), n = others[0], len(others)
        warnings.warn(
            f"{n} sentence{'s' if n > 1 else ''} in another language than {language_name(source)},"
            f" which the model reads (the first, in {language_name(code)}: {sentences[i][:40]!r});"
            " the translation is likely wrong",
            stacklevel=6,
        )
    notes = {i: f"{sentences[i][:60]!r}: already in {language_name(target)}, kept as written"
             for i in written}  # fmt: skip
    for i, code in others:
        notes[i] = f"{sentences[i][:60]!r}: in {language_name(code)}, likely translated wrong"
    return written, notes


def _unnamed(prepared) -> str:
    """The text given to the model without its placeholders (heedful.real_input.Prepared)."""
    if prepared.protected is None:
        return prepared.text
    words = "|".join(re.escape(p) for p in prepared.protected.placeholders)
    return re.sub(rf"(?<!\w)(?:{words})(?!\w)", "", prepared.text)


def suspect(text: str, log_prob: float, tokens: int) -> bool:
    """Whether a sentence is worth identifying: of ``WORDS`` different words or more ("gato gato
    gato ..." was Italian to lingua), and translated with a low score."""
    return len(set(text.lower().split())) >= WORDS and log_prob / max(tokens, 1) < LOW


@cache
def _detector(codes: tuple[str, ...]) -> Detector:
    return Detector(codes)
