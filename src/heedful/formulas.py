"""A letter's greeting and closing, and wishes ("Merry Christmas!"), written the target
language's way from a table.

Tatoeba holds no letters, and the bundled models garbled every greeting and closing tried: "Dear
Mr. Brown," -> "Entre M. Brown,", "Kind regards," -> "Les combats s'entendent,", "Best
regards," -> "Les meilleures salutations,", "Estimado Sr. Gómez:" -> "Be Mr. Gómez careful:",
"Un saludo," -> "He greeted,", "Atentamente," -> "Watch closely,". Such a line is a formula that
letter-writing guides give the equivalents of; no library lists them, so this table does:

* a line that is one of ``CLOSINGS`` (before a comma, or alone on its line without a mark; one
  of one word only before a comma; "Love." and "Best wishes!" may be sentences) becomes the
  target language's first form of the same row: "Un saludo," -> "Best regards,", "Kind
  regards," -> "Cordialement,";
* a line of a word of ``GREETINGS`` and a name ("Dear Anna,", "Estimado Sr. Gómez:") gets the
  target language's word, for a woman where the name is a woman's (by her title or her first
  name: heedful.names), formal where the name has a title ("Estimado", not "Querido"), and the
  name as it is, its title written the target language's way: "Cher M. Brown,", "Dear Mr.
  Gómez:".

The line's mark stays (heedful.real_input puts it back); its words are linked in order. A
letter written on one line ("Querida Ana: ¡muchas gracias! Un abrazo, Pablo") is cut after its
greeting and before its signature (``greeting_end``), so that each is such a line.

Wishes are formulas too, and the models garbled most that were tried: "Merry Christmas!" ->
"Bonne Noël !", "Happy birthday!" -> "Bonne anniversaire !", "Get well soon!" -> "Hors bien !",
"Happy Easter!" -> "Joyeuse !", "¡Buen viaje!" -> "Stand up!", "¡Felices fiestas!" -> "You are
complete.", "Feliz Navidad y próspero Año Nuevo." -> "Happy Christmas and I think of the Nue.".
A line of ``WISHES`` joined by "and" ("¡Feliz Navidad y próspero Año Nuevo!"), perhaps "to all"
after them, becomes the target language's first forms of the same rows; a wish and a comma
opening a sentence ("¡Feliz cumpleaños, abuela!") is cut from the rest as a greeting is
(``greeting_end``), so that it is such a line. A wish inside a sentence ("Te deseo una feliz
Navidad.") is the model's.

A greeting and a comma opening a sentence ("Hola, me llamo Ana.") is translated as a sentence
of its own (``greeting_end``, cut by heedful.pauses), and the rest after it: the bundled es -> en
model read the comma as part of the sentence ("Hi, call me Ana.", "Hola, ¿cómo estás?" -> "Hi,
guys what are you?") and each part well alone ("Hi.", "My name is Ana.", "How are you?"): 3 of
6 sentences of my own right as written, 5 of 6 cut after "Hola,".
"""

from __future__ import annotations

import re

from heedful.lexicon import strip_accents
from heedful.names import feminine_title, has_title, people, write_title
from heedful.textmap import Span

# closings that say the same, a row each: each language's forms, the first the one written
CLOSINGS = [
    {  # neutral, as in most letters and e-mails
        "en": ("Best regards", "Kind regards", "Regards", "Warm regards", "Best wishes",
               "All the best"),
        "es": ("Un saludo", "Saludos", "Un cordial saludo", "Saludos cordiales", "Cordialmente",
               "Un saludo cordial"),
        "fr": ("Cordialement", "Bien cordialement", "Bien à vous", "Meilleures salutations"),
    },
    {  # formal
        "en": ("Yours sincerely", "Sincerely", "Sincerely yours", "Yours faithfully",
               "Yours truly", "Respectfully"),
        "es": ("Atentamente", "Le saluda atentamente", "Muy atentamente"),
        "fr": ("Salutations distinguées", "Respectueusement", "Sincères salutations"),
    },
    {  # thanks, signing a message ("Thanks, Louis": "Grâce, plus fort" before)
        "en": ("Thanks", "Thank you", "Many thanks", "Thanks a lot", "Thanks again"),
        "es": ("Gracias", "Muchas gracias", "Mil gracias"),
        "fr": ("Merci", "Merci beaucoup", "Mille mercis"),
    },
    {  # to family and friends
        "en": ("Love", "Lots of love", "With love", "Hugs", "Hugs and kisses"),
        "es": ("Un abrazo", "Abrazos", "Un beso", "Besos", "Con cariño", "Un abrazo fuerte"),
        "fr": ("Bises", "Bisous", "Grosses bises", "Je t'embrasse", "Affectueusement"),
    },
]  # fmt: skip
# each language's closing, in lower case -> its row
_CLOSING = {
    lang: {form.lower(): row for row in CLOSINGS for form in row[lang]} for lang in CLOSINGS[0]
}
# wishes that say the same, a row each: each language's forms, the first the one written
WISHES = [
    {"en": ("Merry Christmas", "Happy Christmas"), "es": ("Feliz Navidad", "Felices Navidades"),
     "fr": ("Joyeux Noël",)},
    {"en": ("Happy New Year",), "es": ("Feliz Año Nuevo", "Próspero Año Nuevo", "Feliz año"),
     "fr": ("Bonne année", "Bonne et heureuse année")},
    {"en": ("Happy birthday",), "es": ("Feliz cumpleaños",),
     "fr": ("Joyeux anniversaire", "Bon anniversaire")},
    {"en": ("Happy holidays", "Season's greetings"), "es": ("Felices fiestas",),
     "fr": ("Bonnes fêtes",)},
    {"en": ("Happy Easter",), "es": ("Feliz Pascua",), "fr": ("Joyeuses Pâques",)},
    {"en": ("Happy Valentine's Day",), "es": ("Feliz San Valentín", "Feliz día de San Valentín"),
     "fr": ("Joyeuse Saint-Valentin", "Bonne Saint-Valentin")},
    {"en": ("Happy anniversary",), "es": ("Feliz aniversario",), "fr": ("Joyeux anniversaire",)},
    {"en": ("Congratulations",), "es": ("Enhorabuena", "Felicidades", "Felicitaciones"),
     "fr": ("Félicitations",)},
    {"en": ("Good luck", "Best of luck"), "es": ("Buena suerte", "Mucha suerte"),
     "fr": ("Bonne chance",)},
    {"en": ("Have a nice trip", "Have a good trip", "Safe travels", "Bon voyage"),
     "es": ("Buen viaje",), "fr": ("Bon voyage",)},
    {"en": ("Enjoy your meal", "Bon appétit"), "es": ("Buen provecho", "Que aproveche"),
     "fr": ("Bon appétit",)},
    {"en": ("Get well soon",), "es": ("Que te mejores", "Mejórate pronto", "Que se mejore"),
     "fr": ("Bon rétablissement",)},
    {"en": ("Have a nice weekend", "Have a good weekend", "Enjoy your weekend"),
     "es": ("Buen fin de semana", "Feliz fin de semana"), "fr": ("Bon week-end", "Bon weekend")},
]  # fmt: skip
# what people say to each other, whole lines only ("¿Qué tal?"), a row each as ``WISHES``; the
# bundled models wrote "¿Qué tal?" -> "How about?", "¿Qué pasa?" -> "What's that about?", "Nice
# to meet you." -> "Conduisez-vous à vous rencontrer.", "Hi, how are you?" -> "Salut, comment
# es-tu ?" (its forms below are without their marks: the line's are put back)
SAYINGS = [
    {"en": ("How are you", "How's it going", "How are you doing"),
     "es": ("Qué tal", "Qué tal estás", "Cómo estás", "Cómo te va", "Qué tal todo", "Cómo va",
            "Q tal"),
     "fr": ("Comment allez-vous", "Comment ça va", "Ça va", "Comment vas-tu")},
    {"en": ("What's up", "What's new"),
     "es": ("Qué pasa", "Qué hay", "Qué onda", "Qué hay de nuevo"), "fr": ("Quoi de neuf",)},
    {"en": ("Nice to meet you", "Pleased to meet you"),
     "es": ("Encantado de conocerte", "Encantada de conocerte", "Mucho gusto", "Encantado",
            "Encantada"),
     "fr": ("Enchanté", "Ravi de vous rencontrer")},
    {"en": ("Long time no see",), "es": ("Cuánto tiempo sin verte", "Cuánto tiempo"),
     "fr": ("Ça fait longtemps",)},
    {"en": ("You're welcome",), "es": ("De nada",), "fr": ("De rien",)},
    {"en": ("See you tomorrow",), "es": ("Hasta mañana",), "fr": ("À demain",)},
]  # fmt: skip
# each language's saying, in lower case and without accents -> its row
_SAYING = {
    lang: {strip_accents(form.lower()): row for row in SAYINGS for form in row[lang]}
    for lang in SAYINGS[0]
}
# a saying may follow a hello and its comma ("Hi, how are you?"), written the target's way
HELLOS = {"en": ("Hi", "Hello", "Hey"), "es": ("Hola", "Oye"), "fr": ("Salut", "Bonjour")}
# the first words of each language's sayings and hellos (in lower case, without accents)
_SAYING_FIRST = {
    lang: {form.split()[0] for form in forms} | {strip_accents(w.lower()) for w in HELLOS[lang]}
    for lang, forms in _SAYING.items()
}
_SAYING_LONGEST = 2 * max(len(f) for row in SAYINGS for forms in row.values() for f in forms)
_SAYING_LINE = re.compile(
    rf"(?:(?P<hello>{'|'.join(w for words in HELLOS.values() for w in words)}),? )?"
    r"(?P<open>[¡¿]?)(?P<words>[^¡¿.!?]+?)(?P<end>[.!?]*)",
    re.IGNORECASE,
)
# each language's wish, in lower case and without accents -> its row (the first that has it)
_WISH = {lang: {} for lang in WISHES[0]}
for _row in WISHES:
    for _lang, _forms in _row.items():
        for _form in _forms:
            _WISH[_lang].setdefault(strip_accents(_form.lower()), _row)
# a letter and the letters typed for it when accents are left out ("prospero", "navidad")
_LOOSE = {"a": "[aáàâ]", "e": "[eéèê]", "i": "[iíî]", "o": "[oóô]", "u": "[uúüû]", "n": "[nñ]",
          "c": "[cç]"}  # fmt: skip


def _loosely(form: str) -> str:
    """A pattern of ``form`` (without accents) that matches it with or without them."""
    return "".join(_LOOSE.get(c, re.escape(c)) for c in form)


# the first words of each language's wishes (without accents): a line that opens with none of
# them is no wish, without trying the patterns below (7 us a line)
_WISH_FIRST = {lang: {form.split()[0] for form in forms} for lang, forms in _WISH.items()}
_AND = {"en": "and", "es": "y", "fr": "et"}
_TO_ALL = {"en": ("to all", "to everyone"), "es": ("a todos", "a todas"), "fr": ("à tous",)}


def _may_wish(text: str, lang: str) -> bool:
    """Whether ``text`` opens with the first word of one of ``lang``'s wishes."""
    return _opens_with(text, _WISH_FIRST[lang])


def _opens_with(text: str, words: set[str]) -> bool:
    """Whether the first word of ``text``, in lower case and without accents, is one of
    ``words``."""
    first = _FIRST_WORD.search(text)
    if first is None:
        return False
    word = first.group().lower()
    return word in words or not word.isascii() and strip_accents(word) in words


_FIRST_WORD = re.compile(r"[^\W\d_]+")


def _wishes(lang: str) -> str:
    """A pattern of ``lang``'s wishes joined by "and" ("¡Feliz Navidad y próspero Año
    Nuevo")."""
    forms = "|".join(map(_loosely, sorted(_WISH[lang], key=len, reverse=True)))
    return rf"¡?(?P<wishes>(?:{forms})(?:,? (?:and|y|e|et) (?:a )?(?:{forms}))*)"


# a line of wishes, perhaps to all, and its end; a wish and a comma opening a sentence
_WISH_LINE = {
    lang: re.compile(
        rf"{_wishes(lang)}(?: (?P<all>{'|'.join(_TO_ALL[lang])}))?(?P<end>[.!]*)", re.IGNORECASE
    )
    for lang in _WISH
}
_WISH_OPENING = {lang: re.compile(rf"{_wishes(lang)}!?,(?=\s+\S)", re.I) for lang in _WISH}
# the wish a language's model reads best before a comma, given in place of the wish opening a
# sentence there: the bundled es -> en model translated "¡Feliz cumpleaños, X!" well for 10 of
# 13 X ("Happy birthday, boys!"), and "X!" alone for 3 ("chicos!" -> "Go!", "abuela!" ->
# "Fire!"); without one (en -> fr read "Grandma!" and "guys!" alone well), the wish is cut from
# the rest as a greeting is
WISH_STAND_INS = {"es": "Feliz cumpleaños"}

# a greeting's word: (to a man, to a woman), familiar then formal (before a title)
GREETINGS = {
    "en": (("Dear", "Dear"), ("Dear", "Dear")),
    "es": (("Querido", "Querida"), ("Estimado", "Estimada")),
    "fr": (("Cher", "Chère"), ("Cher", "Chère")),
}
# greetings that open a sentence before a comma ("Hola, ..."), by language; Spanish only: the
# en -> fr model read "Hi, my name is Anna." and "Hello, I need help." well as written, and
# translated apart "Hi." as "Salut !"
OPENING_GREETINGS = {"es": ("hola", "buenos días", "buenas tardes", "buenas noches", "oye")}
_OPENING = {  # perhaps with whom it greets ("Hola Marta,", "Hola chicos,")
    lang: re.compile(
        rf"[¡]?(?:{'|'.join(words)})(?: [^\W\d_][\w'’-]*)?!?,(?=\s+\S)",
        re.IGNORECASE,
    )
    for lang, words in OPENING_GREETINGS.items()
}
_NAME = r"[^\W\d_][\w'’.-]*"  # a word of a name, or a title ("Sr.")
_GREETING = {
    lang: re.compile(
        rf"(?P<word>{'|'.join(sorted({w for pair in pairs for w in pair}))}) "
        rf"(?P<name>{_NAME}(?: {_NAME}){{0,3}})[.!]?",
        re.IGNORECASE,
    )
    for lang, pairs in GREETINGS.items()
}


# a letter's greeting and name before more words on its line ("Dear Anna, thank you!"), and a
# closing before the name that signs it ("Un abrazo, Pablo"): the bundled models read them as
# one sentence ("Hurry Ana, thank you...", "A huge, Pablo", "D'Anna, merci-en tant", "Écoute,
# Paul"), and are given each part apart (heedful.pauses)
_GREETING_OPENING = {
    lang: re.compile(rf"{pattern.pattern.removesuffix('[.!]?')}[,:](?=\s+\S)", re.IGNORECASE)
    for lang, pattern in _GREETING.items()
}
_CLOSING_BEFORE_NAME = {
    lang: re.compile(
        rf"(?i:{'|'.join(map(re.escape, sorted(table, key=len, reverse=True)))}),"
        rf"(?=\s+(?P<name>[^\W\d_][\w'’-]*(?: [^\W\d_][\w'’-]*)?)[.!]?$)"
    )
    for lang, table in _CLOSING.items()
}


def greeting_end(sentence: str, language: str | None) -> int | None:
    """Where the greeting or wish and comma opening ``sentence`` end ("Hola," of "Hola, me
    llamo Ana.", "¡Feliz cumpleaños," of "¡Feliz cumpleaños, abuela!"), if words follow them,
    a letter's greeting and its mark ("Dear Anna," of "Dear Anna, thank you!", "Querida Ana:"),
    or a closing before the name that signs it ("Love," of "Love, Paul"); None if it opens with
    none."""
    # a wish is given as its stand-in where the language has one (``opening_wish``)
    wishes = language in _WISH and language not in WISH_STAND_INS and _may_wish(sentence, language)
    for opening in (_OPENING, _WISH_OPENING) if wishes else (_OPENING,):
        found = opening[language].match(sentence) if language in opening else None
        if found is not None:  # "Hola,", "Hola Marta,", "Hola chicos,"
            return found.end()
    if language not in _GREETING_OPENING:
        return None
    found = _GREETING_OPENING[language].match(sentence)
    if found is not None and all(w[0].isupper() for w in found["name"].split()):
        return found.end()  # "Dear Anna," not "Dear all,"
    found = _CLOSING_BEFORE_NAME[language].match(sentence)
    if found is not None and all(w[0].isupper() for w in found["name"].split()):
        return found.end()  # "Love, Paul", not "Love, you"
    return None


def letter_formula(
    line: str, mark: str | None, source: str | None, target: str | None
) -> str | None:
    """The target language's form of a letter's greeting or closing, ``line`` given without
    ``mark`` (the comma or colon the line ended with, None if it ended with none; "." may end
    ``line`` in its place); None if ``line`` is neither, or a language has no table."""
    if source not in GREETINGS or target not in GREETINGS or mark not in (",", ":", None):
        return None
    said = wish_formula(line, source, target) or saying_formula(line, source, target)
    if said is not None:
        return said
    if mark is None and line.rstrip()[-1:] in ".!?":  # "Best wishes!": a sentence
        return None
    bare = line.rstrip(".!").strip()
    capitals = bare.isupper()  # "DEAR JOHN," -> "CHER JOHN,"
    row = _CLOSING[source].get(bare.lower())
    if row is not None and (" " in bare or mark is not None):  # "Love." may be a sentence
        return row[target][0].upper() if capitals else row[target][0]
    greeting = _GREETING[source].fullmatch(line.strip())
    if greeting is None or mark is None:
        return None
    name = greeting["name"].rstrip(".")  # the full stop given in place of the line's mark
    if not all(word[0].isupper() for word in name.split()):
        return None  # "Dear all", "Querido amigo"
    woman = feminine_title(name, source) or people(source).is_woman(name)
    formal = has_title(name, source)
    written = f"{GREETINGS[target][formal][woman]} {write_title(name, source, target)}"
    return written.upper() if capitals else written


def wish_formula(line: str, source: str | None, target: str | None) -> str | None:
    """The target language's form of a line of ``WISHES`` ("¡Feliz Navidad y próspero Año
    Nuevo!" -> "Merry Christmas and happy New Year!", "Merry Christmas to all." -> "Joyeux Noël
    à tous."), with its end; None if ``line`` is no such line."""
    if source not in _WISH_LINE or target not in _WISH or not _may_wish(line, source):
        return None
    found = _WISH_LINE[source].fullmatch(line.strip())
    if found is None:
        return None
    text = _written_wishes(found["wishes"], source, target)
    if found["all"]:
        text += " " + _TO_ALL[target][0]
    text = _ended(text, found["end"][:1], target)
    return text.upper() if line.strip().lstrip("¡").isupper() else text


def opening_wish(
    sentence: str, source: str | None, target: str | None
) -> tuple[Span, str, dict[str, str]] | None:
    """The wishes opening ``sentence`` before a comma and more words ("Buen viaje" of "¡Buen
    viaje, chicos!"), where ``source`` has a stand-in (``WISH_STAND_INS``) and they are not it
    as written ("feliz cumpleanos" is given as "Feliz cumpleaños"): their span, the stand-in
    to give the model in their place (in capitals, if they are), and each way the target may
    write the stand-in with what it becomes there ("Happy birthday" -> "Have a nice trip")."""
    stand_in = WISH_STAND_INS.get(source or "")
    if stand_in is None or target not in _WISH or not _may_wish(sentence, source):
        return None
    found = _WISH_OPENING[source].match(sentence)
    if found is None:
        return None
    capitals = found["wishes"].isupper()
    given = stand_in.upper() if capitals else stand_in
    if found["wishes"] == given:  # as the model reads it best already
        return None
    written = _written_wishes(found["wishes"], source, target)
    forms = _WISH[source][strip_accents(stand_in.lower())][target]
    return found.span("wishes"), given, {f: written.upper() if capitals else written for f in forms}


def _written_wishes(wishes: str, source: str, target: str) -> str:
    """Wishes joined by "and" (``source``'s, one of ``_wishes``) as ``target`` writes them:
    each row's first form, the later ones in lower case but in English ("Joyeux Noël et bonne
    année", "Merry Christmas and Happy New Year")."""
    parts = re.split(r",? (?:and|y|e|et) (?:a )?", wishes, flags=re.IGNORECASE)
    written = [_WISH[source][strip_accents(part.lower())][target][0] for part in parts]
    later = [w if target == "en" else w[0].lower() + w[1:] for w in written[1:]]
    return f" {_AND[target]} ".join([written[0], *later])


def saying_formula(line: str, source: str | None, target: str | None) -> str | None:
    """The target language's form of a line that is one of ``SAYINGS`` ("¿Qué tal?" -> "How
    are you?", typed "que tal" -> "How are you"), perhaps after a hello ("Hi, how are you?" ->
    "Salut, comment allez-vous ?"), with the line's end; None if it is none."""
    if source not in _SAYING or target not in _SAYING or len(line) > _SAYING_LONGEST:
        return None  # most lines: longer than any hello and saying
    if not _opens_with(line, _SAYING_FIRST[source]):
        return None
    found = _SAYING_LINE.fullmatch(line.strip())
    row = found and _SAYING[source].get(strip_accents(found["words"].strip().lower()))
    if not row:
        return None
    text, end = row[target][0], found["end"][:1]
    hello = found["hello"]
    if hello is not None and hello.lower() not in (w.lower() for w in HELLOS[source]):
        return None  # another language's hello
    if hello is not None:  # "Salut, comment ça va ?"
        text = text[0].lower() + text[1:]
    text = _ended(text, end, target)
    if hello is not None:
        text = f"{HELLOS[target][0]}, {text}"
    return text.upper() if found["words"].isupper() else text


def _ended(text: str, end: str, target: str) -> str:
    """``text`` ended with ``end`` ("", ".", "!" or "?") as ``target`` writes it: Spanish opens
    "¡" and "¿" too, French puts a space before "!" and "?" ("Joyeux Noël !")."""
    if end not in ("!", "?"):
        return text + end
    if target == "es":
        text = ("¿" if end == "?" else "¡") + text
    return f"{text} {end}" if target == "fr" else text + end
