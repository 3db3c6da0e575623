"""Typographic characters and symbols a vocabulary lacks: read as the plain ones it knows, or
kept from the model.

Tatoeba writes straight quotes and hyphens; text from the web, a word processor or a phone
writes curly quotes and dashes. The bundled models' vocabularies lack some of them (es -> en:
“ ” –; en -> fr: “ ”), read them as unknown pieces, and garble the words around them: "She said
“hello, friend”." gave "Elle a dit à  ⁇ hellojour." and "Ella dijo: “Hola, amigo”." gave "She
said,  ⁇ ola Hola.". Such a character is given to the model as its plain equivalent ("“" as
'"'), one character for one, so that every offset holds (``heedful.real_input``); where the
source's curly double quotes were replaced, the translation's straight ones are curled again,
in pairs (``curl``). A character the vocabulary knows stays as it is: the en -> fr model knows
« and », and writes them. A word mixing other symbols it lacks with digits ("£5", "[1]") is
kept from the model whole (``unreadable_symbols``, for heedful.protect).

A model trained on sentences ends every translation with a mark; a heading, a list item or a
label has none, and gets none (``unended``): "Two apples" gave "Deux pommes !".

French elides "de", "le", "que"... before a vowel; the bundled en -> fr model now and then wrote
them whole ("Combien y a-t-il de enfants ?", "suivre le exemple de Tom"): ``elided`` mends that.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

from heedful.casing import opens_capitalised
from heedful.names import cities
from heedful.textmap import Span

# each typographic character and the plain one a model may know instead
EQUIVALENTS = {
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u00ab": '"', "\u00bb": '"',
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'",
    "\u2013": "-", "\u2014": "-", "\u2012": "-", "\u2015": "-", "\u2212": "-",
}  # fmt: skip


def plain(text: str, unknown: Callable[[str], bool]) -> str:
    """``text`` with each character that is ``unknown`` to the model, and has a plain
    equivalent that is not, replaced by that equivalent (as long as ``text``)."""
    return "".join(
        EQUIVALENTS[c] if c in EQUIVALENTS and unknown(c) and not unknown(EQUIVALENTS[c]) else c
        for c in text
    )


def replaced_quotes(text: str, given: str) -> tuple[str, str] | None:
    """The pair of double quotes (opening, closing) that ``given`` (``plain(text)``) made
    straight, if it made a pair straight: "“" and "”" -> ("“", "”"), "«" and "»" -> ("«", "»")."""
    changed = [c for c, g in zip(text, given, strict=True) if c != g and g == '"']
    if not changed:
        return None
    closing = next((c for c in changed[1:] if c != changed[0]), None)
    return None if closing is None else (changed[0], closing)


def curl(text: str, quotes: tuple[str, str]) -> str:
    """``text`` with its straight double quotes made ``quotes``, opening and closing in turn,
    if they pair up (an even number of them); else as it is."""
    if text.count('"') % 2:
        return text
    out, opening = [], True
    for c in text:
        if c == '"':
            out.append(quotes[0] if opening else quotes[1])
            opening = not opening
        else:
            out.append(c)
    return "".join(out)


def unreadable_symbols(text: str, unknown: Callable[[str], bool]) -> list[Span]:
    """Words that mix symbols the model cannot read (``unknown(c)``) with digits, or with letters
    on both sides of one: "£5", "[1]", "x=3", "x==y" for a vocabulary without "£", "[" or "="; the
    bundled models wrote " ⁇ 5" and "la sexe  ⁇ 1 ⁇ ". Punctuation the model reads around such a
    word ("(£5).") is not part of it. A word with such symbols only at its edges ("[nota]",
    "¨Hola¨", quoting marks) is translated, its symbols left to the model. Unknown letters are
    ``heedful.names.unreadable_letters``'s, and pictographs ("hola😀") and words without a letter
    or digit the model reads ("😀", "=") are carried past the model (heedful.unknown_words)."""
    out = []
    for match in re.finditer(r"\S+", text):
        start, end = match.span()
        while start < end and not text[start].isalnum() and not unknown(text[start]):
            start += 1
        while end > start and not text[end - 1].isalnum() and not unknown(text[end - 1]):
            end -= 1
        word = text[start:end]
        at = [k for k, c in enumerate(word) if unknown(c) and not c.isalnum()]
        if not at or any(unicodedata.category(word[k]) == "So" for k in at):
            continue
        digits = any(c.isdigit() and not unknown(c) for c in word)
        inside = any(_has_alnum(word[:k]) and _has_alnum(word[k + 1 :]) for k in at)  # "x==y"
        if digits or inside:
            out.append((start, end))
    return out


def _has_alnum(text: str) -> bool:
    return any(c.isalnum() for c in text)


def unended(translation: str, source: str) -> str:
    """``translation`` without the full stop, exclamation or question mark the model ended it
    with, where its ``source`` begins with a capital or a digit and ends in a letter or digit: a
    heading, a list item, a label ("Two apples" gave "Deux pommes !", "Contact us" "Contactez-nous
    ?", "Ana" at a letter's foot "Ana.", "24-hour reception" "24 heure réception."). A source
    in lower case (typed in a hurry: "donde esta el bano") keeps the model's ending. Emoticons
    ending both are looked past ("Thanks for your help :)" gave "Merci pour votre aide. :)").
    """
    from heedful.unknown_words import is_emoticon

    words, faces = source.split(), []
    while len(words) > 1 and is_emoticon(words[-1]):
        faces.insert(0, words.pop())
    if faces:  # "aide. :)" -> "aide :)"
        ending = " " + " ".join(faces)
        if not translation.rstrip().endswith(ending):
            return translation
        return unended(translation.rstrip()[: -len(ending)], " ".join(words)) + ending
    words = source.strip()
    opening = opens_capitalised(words) or words[:1].isdigit()  # "24 hour reception", "3 eggs"
    if not words or not words[-1].isalnum() or not opening:
        return translation
    if "¡" in translation or "¿" in translation:  # "¡Hola!": the opening mark's pair stays
        return translation
    return _ADDED_END.sub("", translation)


# "pommes !", "Ana.", "50 $." (not "etc...")
_ADDED_END = re.compile(r"(?<=[^\W_]|[%°€$£¥])\s?[.!?]$")


def exclaimed(translation: str, source: str, target: str | None) -> str:
    """``translation`` ended with an exclamation mark where its ``source`` is an exclamation
    and the model ended it with a full stop ("¡Gracias por tu ayuda!" gave "Thank you for your
    help.", "¡Gracias!" "Thank you."); in French, with the space before it. An ellipsis, an
    abbreviation's stop ("etc.") and an initial's stay."""
    if not source.rstrip().endswith("!") or source.rstrip().endswith("?!"):
        return translation
    found = _STOP_END.search(translation)
    if found is None or found.group("word").lower() in _ABBREVIATED_ENDS:
        return translation
    return translation[: found.end("word")] + (" !" if target == "fr" else "!")


_STOP_END = re.compile(r"(?P<word>[^\W\d_]{2,}|\d)\.\s*$")  # "help.", "at 9."; not "A.", "..."
_ABBREVIATED_ENDS = {"etc", "approx", "min", "max", "no", "vs"}


def stated(translation: str, source: str) -> str:
    """``translation`` ended with a full stop where its ``source`` ends with one and the model
    ended it with an exclamation mark, as Tatoeba's French often ends a command ("Turn left at
    the second traffic light." gave "Tourne au second feu à gauche !"; 40 of the bundled en ->
    fr model's 3,385 dev translations, of which 32 have a reference ending with a stop). An
    ellipsis and "!!" or "?!" stay."""
    if not _WORD_STOP_END.search(source):
        return translation
    found = _EXCLAMATION_END.search(translation)
    if found is None:
        return translation
    return translation[: found.start()] + "." + translation[found.end() :]


_WORD_STOP_END = re.compile(r"[^\W\d_]\.[\s\"'”’»)]*$")  # "light.", 'he said."'; not "..."
_EXCLAMATION_END = re.compile(r"(?<=[^\W_])[ \u00a0\u202f]?!(?=[\s\"'”’»)]*$)")


def closed_quote(translation: str, source: str) -> str:
    """``translation`` with the closing double quote put back at its end where the model dropped
    it: ``source`` ends with a quotation it closes, and the translation's last quote opens one
    that nothing closes ('He said: "I will come tomorrow."' gave 'Il a dit : "Je viendrai
    demain.'). Straight quotes, as the model reads them (``curl`` curls them after)."""
    if source.count('"') % 2 or not source.rstrip().endswith('"'):
        return translation
    if translation.count('"') % 2 == 0 or not _OPEN_LAST.search(translation):
        return translation
    return translation.rstrip() + '"'


_OPEN_LAST = re.compile(r'(?:^|\s)"(?=\S)[^"]*$')  # a last quote that opens: '... : "Je'


def after_quoted_speech(translation: str, source: str) -> str:
    """``translation`` with the word after a quotation ending in "?" or "!" in lower case where
    the source's is ('"Where are you going?" she asked.' gave '« Où allez-vous ? » Elle a
    demandé.'): the sentence goes on after the quotation ("I" counts as lower case in the
    source, and keeps its capital in an English translation)."""
    said = _AFTER_QUOTED.search(source)
    if said is None or not (said.group("word")[0].islower() or said.group("word") == "I"):
        return translation
    found = _AFTER_QUOTED.search(translation)
    if found is None or not found.group("word")[0].isupper() or found.group("word") == "I":
        return translation
    at = found.start("word")
    return translation[:at] + translation[at].lower() + translation[at + 1 :]


# a quotation ending in "?" or "!" and the word after it: '"Help!" she', '« Aide ! » Elle'
_AFTER_QUOTED = re.compile(r"[?!][ \u00a0\u202f]?[\"”»],?[ \u00a0\u202f]+(?P<word>[^\W\d_]+)")


def elided(translation: str, language: str | None) -> str:
    """A French ``translation`` with the short words that elide before a vowel elided: "de
    enfants" -> "d'enfants", "que aucun" -> "qu'aucun", "si il" -> "s'il" (12 of the bundled en
    -> fr model's 3,385 dev translations had one). Not before an "h" (French elides before some
    and not others: "l'homme", "le héros"), a "y", or a word that takes none ("le onze", "le
    oui"); any other text as it is."""
    if language != "fr" or not _UNELIDED.search(translation):
        return translation
    return _UNELIDED.sub(_elide, translation)


def at_a_city(translation: str, language: str | None) -> str:
    """A French ``translation`` with "en" before a city's name as "à" (heedful.names.cities):
    French puts a city after "à", a country or region after "en"; the bundled en -> fr model
    wrote "Il fait très froid en Chicago en hiver." and "Il pleut beaucoup en Seattle." where
    weather sentences taught it "en France", "en hiver". Any other text as it is."""
    if language != "fr" or not _EN_A_NAME.search(translation):
        return translation

    def mended(found: re.Match) -> str:
        place = found["place"].replace("\u00a0", " ")
        if place not in cities() and place.split()[0] not in cities():
            return found.group()
        return "À" if found["en"] == "En" else "à"

    return _EN_A_NAME.sub(mended, translation)


_EN_A_NAME = re.compile(
    r"(?<![\w'’-])(?P<en>[Ee]n)(?=[ \u00a0]+(?P<place>[A-Z][\w'’-]*(?:[ \u00a0][A-Z][\w'’-]*)?))"
)


def aged(translation: str, language: str | None) -> str:
    """A French ``translation`` with an age said with "être" said with "avoir", as French says
    it: the bundled en -> fr model read "My son is 7." as an age and wrote "Mon fils est 7
    ans." ("Ma grand-mère est 90 ans.", "Mon chien est 4 ans."). Not after "c'", "ce", "cela"
    or "ça" ("C'est 5 ans de travail."), nor before a comparison ("est 5 ans plus âgé"). Any
    other text as it is."""
    if language != "fr" or " ans" not in translation:
        return translation

    def said(found: re.Match) -> str:
        verb = found["verb"]
        have = _HAVE[verb.lower()]
        if found["je"]:  # "je suis" -> "j'ai"
            return found["je"][0] + "'" + have + found["age"]
        return (have.capitalize() if verb[0].isupper() else have) + found["age"]

    return _BE_AGED.sub(said, translation)


# "être" -> "avoir", in the persons and tenses an age is said in
_HAVE = {
    "suis": "ai", "es": "as", "est": "a", "sommes": "avons", "êtes": "avez", "sont": "ont",
    "étais": "avais", "était": "avait", "étions": "avions", "étiez": "aviez",
    "étaient": "avaient", "serai": "aurai", "seras": "auras", "sera": "aura", "serons": "aurons",
    "serez": "aurez", "seront": "auront",
}  # fmt: skip
_NUMBER_WORD = (
    r"(?:un|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|treize|quatorze|quinze"
    r"|seize|vingt|trente|quarante|cinquante|soixante|cent)[a-z-]*"
)
_BE_AGED = re.compile(
    r"(?<![\w'’])(?<!ce )(?<!cela )(?<!ça )(?P<je>[Jj]e )?(?P<verb>" + "|".join(_HAVE) + ")"
    rf"(?P<age> (?:\d{{1,3}}|{_NUMBER_WORD}) ans)(?![\w-])"
    r"(?! (?:plus|de plus|trop|avant|après|de moins))",
    re.IGNORECASE,
)


def undoubled(translation: str, source: str, language: str | None) -> str:
    """``translation`` with a word the model wrote twice or more in a row written once, where the
    source holds no word twice in a row: the bundled models stutter on a word they cannot read
    ("Gira a la izquierda en el segundo semáforo." -> "Turn left in the second light light
    light.", "Buy bread, milk and eggs, please." -> "Un pain pain, le lait ..."). Words a
    language doubles ("nous nous sommes", "vous vous trompez"; "had had") stay."""
    if not _STUTTER.search(translation) or _STUTTER.search(source):
        return translation
    doubled = _DOUBLED.get(language or "", frozenset())

    def once(found: re.Match) -> str:
        return found.group() if found["word"].lower() in doubled else found["word"]

    return _STUTTER.sub(once, translation)


# a word of two letters or more, then the same again (in any case), once or more
_STUTTER = re.compile(
    r"(?<![\w'’-])(?P<word>[^\W\d_]{2,})(?:[ \u00a0]+(?P=word))+(?![\w'’-])", re.IGNORECASE
)
_DOUBLED = {"fr": frozenset({"nous", "vous"}), "en": frozenset({"had", "that"})}


def _elide(found: re.Match) -> str:
    return (found["word"] or found["si"])[:-1] + "'"  # "de " -> "d'", "si " -> "s'"


_VOWEL = "aeiouéèêëàâîïôûœæ"
_UNELIDED = re.compile(
    rf"(?<![\w'’-])(?P<word>(?:[djlmnst]|qu|jusqu|lorsqu|puisqu)e|la)[ \u00a0]+"
    rf"(?=[{_VOWEL}])(?!(?:onze|onzième|oui|ouistiti)\b)"
    rf"|(?<![\w'’-])(?P<si>si)[ \u00a0]+(?=ils?\b)",
    re.IGNORECASE,
)
