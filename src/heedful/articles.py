"""The words before a name or a number put back in a translation, as the target language
needs them where the model was given a placeholder (heedful.protect): French's elision ("de
Agnes" -> "d'Agnes", "la France" given for "l'Autriche"), a doctor's or professor's article ("le
Dr Smith", "au professeur Dubois"), and a decade's plural ("du 12" -> "des années 1960")."""

from __future__ import annotations

import re

from heedful.textmap import Span
from heedful.written import DECADE_WORD


def plural_before(match: re.Match, span: str, translation: str) -> list[tuple[Span, str]]:
    """A decade's article made plural ("du 12" for "from the 1960s": "des années 1960")."""
    if not span.startswith(tuple(DECADE_WORD.values())):
        return []
    before = _SINGULAR_BEFORE.search(translation, 0, match.start())
    if before is None:
        return []
    word = before.group(1)
    plural = _PLURAL[word.lower()]
    return [(before.span(1), plural.capitalize() if word[0].isupper() else plural)]


def article_elided(match: re.Match, span: str, translation: str) -> list[tuple[Span, str]]:
    """French's "la" or "le" before a name opening with a vowel, elided: "la France" for "la
    Autriche" -> "l'Autriche"."""
    vowel = span[:1] in _VOWELS and not (span[:1] in "Yy" and span[1:2] in _VOWELS)
    before = _ARTICLE_BEFORE.search(translation, 0, match.start()) if vowel else None
    if before is None:
        return []
    article = before.group(1)
    elided = "L'" if article.isupper() else "l'" if article.islower() else "L'"
    return [(before.span(), elided)]


_ARTICLE_BEFORE = re.compile(r"(?<![\w'’])([lL][ae]|L[AE]) $")


def elision_before(match: re.Match, span: str, translation: str) -> list[tuple[Span, str]]:
    """French's "de" and "que" before a name, elided as its first letter needs: "de Agnes" ->
    "d'Agnes" (the placeholder "Mary" took "de"), "d'Tom" -> "de Tom" (after "Alice")."""
    vowel = span[:1] in _VOWELS and not (span[:1] in "Yy" and span[1:2] in _VOWELS)  # "de Yaa"
    before = (_UNELIDED if vowel else _ELIDED).search(translation, 0, match.start())
    if before is None:
        return []
    word = before.group(1)
    if vowel:
        return [(before.span(), word[:-1] + "'")]  # "de " -> "d'", "que " -> "qu'"
    return [(before.span(), word + "e ")]  # "d'" -> "de ", "qu'" -> "que "


def french_title(match: re.Match, put: str, translation: str) -> tuple[str, list[tuple[Span, str]]]:
    """A doctor's or professor's name in French, with the article French gives the title when
    it speaks of them ("Le Dr Smith est ici.", "le numéro du Dr Gomez", "J'ai parlé au Dr
    Brown."; the en -> fr model, given a name, wrote none: "Dr Smith est ici.", "de Dr Gomez"):
    ``put``, perhaps with the article before it, and the word before it contracted. None to
    whom one speaks, after a comma or opening a sentence before one ("Merci, Dr Smith.", "Dr
    Smith, entrez."), nor after an article or a greeting ("Cher Dr Smith", "Bonjour Dr
    Smith"), nor alone on its line (signing a letter). Not for a woman either, whom French
    calls "la Dre" in some countries and "le Dr" in others: "Dr Jennifer Smith est prête."."""
    before = translation[: match.start()]
    if contracted := _DE_OR_A.search(before):  # "de Dr Gomez" -> "du Dr Gomez"
        word = contracted.group(1)
        put_word = ("Du" if word[0] in "Dd" else "Au") + " "
        put_word = put_word.upper() if put.isupper() else put_word
        put_word = put_word if word[0].isupper() else put_word.lower()
        return put, [(contracted.span(), put_word)]
    opening = not before.strip(" \"«“'¡¿")
    signing = opening and not translation[match.end() :].strip(' .!?»”"')  # the line: a name
    addressed = translation.startswith(",", match.end()) and opening or signing
    if addressed or _NO_ARTICLE.search(before) or before.rstrip().endswith((",", ":", "(")):
        return (put[:1].upper() + put[1:] if opening else put), []  # "Professeur Smith, ..."
    article = "Le " if opening else "le "
    return (article.upper() if put.isupper() else article) + put, []


FRENCH_TITLE = re.compile(r"(?:Dr|Pr|professeur|capitaine|DR|PR|PROFESSEUR|CAPITAINE) \w")
_DE_OR_A = re.compile(r"(?<![\w'’])([dD]e|[àÀ]) $")
_NO_ARTICLE = re.compile(
    r"(?<![\w'’])(?:le|la|les|l'|du|au|aux|un|une|ce|cet|cette|cher|chère|chers|mon|ton|son|notre"
    r"|votre|leur|bonjour|bonsoir|salut|merci) $",
    re.IGNORECASE,
)
_VOWELS = set("AEIOUYÀÂÉÈÊËÎÏÔÛÜaeiouyàâéèêëîïôûü")
_UNELIDED = re.compile(r"(?<![\w'’])([dD]e|[qQ]ue) $")
_ELIDED = re.compile(r"(?<![\w'’])([dD]|[qQ]u)['’]$")
_SINGULAR_BEFORE = re.compile(r"(?<!\w)(du|au|del|al) $", re.IGNORECASE)
_PLURAL = {"du": "des", "au": "aux", "del": "de los", "al": "a los"}
