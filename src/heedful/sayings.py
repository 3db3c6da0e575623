"""Wishes and everyday sayings ("Merry Christmas!", "¿Qué tal?"), written the target language's
way from tables.

Wishes are formulas, as a letter's greeting and closing are (heedful.formulas), and the models
garbled most that were tried: "Merry Christmas!" -> "Bonne Noël !", "Happy birthday!" ->
"Bonne anniversaire !", "Get well soon!" -> "Hors bien !", "Happy Easter!" -> "Joyeuse !",
"¡Buen viaje!" -> "Stand up!", "¡Felices fiestas!" -> "You are complete.", "Feliz Navidad y
próspero Año Nuevo." -> "Happy Christmas and I think of the Nue.". A line of ``WISHES`` joined
by "and" ("¡Feliz Navidad y próspero Año Nuevo!"), perhaps "to all" after them, becomes the
target language's first forms of the same rows (``wish_formula``). A wish and a comma opening a
sentence ("¡Feliz cumpleaños, abuela!") is cut from the rest (``wish_end``, as a greeting is:
heedful.pauses), so that it is such a line, or, in a language with a stand-in, given as the
stand-in (``opening_wish``: heedful.protect). A wish inside a sentence ("Te deseo una feliz
Navidad.") is the model's.

Sayings are whole lines ("¿Qué tal?" -> "How are you?"), perhaps after a hello ("Hi, how are
you?" -> "Salut, comment allez-vous ?"). A line is tried as either only if it opens with the
first word of one (heedful.formulas.letter_formula asks, for every line).
"""

from __future__ import annotations

import re

from heedful.lexicon import strip_accents
from heedful.textmap import Span

# wishes that say the same, a row each: each language's forms, the first the one written
WISHES = [
    {"en": ("Merry Christmas", "Happy Christmas"), "es": ("Feliz Navidad", "Felices Navidades"),
     "fr": ("Joyeux Noël",)},
    {"en": ("Happy New Year",), "es": ("Feliz Año Nuevo", "Próspero Año Nuevo", "Feliz año"),
     "fr": ("Bonne année", "Bonne et heureuse année")},
    {"en": ("Happy birthday",), "es": ("Feliz cumpleaños", "Feliz cumple"),
     "fr": ("Joyeux anniversaire", "Bon anniversaire")},
    {"en": ("Happy holidays", "Season's greetings"), "es": ("Felices fiestas",),
     "fr": ("Bonnes fêtes",)},
    {"en": ("Happy Easter",), "es": ("Feliz Pascua",), "fr": ("Joyeuses Pâques",)},
    {"en": ("Happy Valentine's Day",), "es": ("Feliz San Valentín", "Feliz día de San Valentín"),
     "fr": ("Joyeuse Saint-Valentin", "Bonne Saint-Valentin")},
    {"en": ("Happy anniversary",), "es": ("Feliz aniversario",), "fr": ("Joyeux anniversaire",)},
    # "Happy Mother's Day!" -> "Heureux la journée de sa mère !", "Feliz Día de la Madre." -> "I
    # was happy with Mother."
    {"en": ("Happy Mother's Day",), "es": ("Feliz Día de la Madre", "Feliz día de las madres"),
     "fr": ("Bonne fête des mères",)},
    {"en": ("Happy Father's Day",), "es": ("Feliz Día del Padre",),
     "fr": ("Bonne fête des pères",)},
    {"en": ("Happy Halloween",), "es": ("Feliz Halloween",), "fr": ("Joyeux Halloween",)},
    {"en": ("Happy Thanksgiving",), "es": ("Feliz Día de Acción de Gracias",),
     "fr": ("Joyeux Thanksgiving",)},
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
# es-tu ?", "Disculpen las molestias." -> "Disculpen disturbs." (its forms below are without
# their marks: the line's are put back)
SAYINGS = [
    {"en": ("How are you", "How's it going", "How are you doing", "Hows it going", "How r u",
            "How are u"),
     "es": ("Qué tal", "Qué tal estás", "Cómo estás", "Cómo te va", "Qué tal todo", "Cómo va",
            "Q tal"),
     "fr": ("Comment allez-vous", "Comment ça va", "Ça va", "Comment vas-tu")},
    {"en": ("What's up", "What's new", "Whats up", "Whats new", "Wassup", "Sup"),
     "es": ("Qué pasa", "Qué hay", "Qué onda", "Qué hay de nuevo"), "fr": ("Quoi de neuf",)},
    {"en": ("Nice to meet you", "Pleased to meet you"),
     "es": ("Encantado de conocerte", "Encantada de conocerte", "Mucho gusto", "Encantado",
            "Encantada"),
     "fr": ("Enchanté", "Ravi de vous rencontrer")},
    {"en": ("Long time no see",), "es": ("Cuánto tiempo sin verte", "Cuánto tiempo"),
     "fr": ("Ça fait longtemps",)},
    {"en": ("You're welcome", "Youre welcome", "Ur welcome"), "es": ("De nada",),
     "fr": ("De rien",)},
    {"en": ("Sorry for the inconvenience", "We apologize for any inconvenience",
            "We apologize for the inconvenience", "Apologies for the inconvenience"),
     "es": ("Disculpen las molestias", "Perdón por las molestias", "Disculpe las molestias",
            "Sentimos las molestias"),
     "fr": ("Veuillez nous excuser pour la gêne occasionnée", "Désolé pour le dérangement")},
    {"en": ("Looking forward to hearing from you", "I look forward to hearing from you"),
     "es": ("Quedo a la espera de tu respuesta", "Quedo a la espera de su respuesta",
            "Espero tu respuesta", "Espero tus noticias"),
     "fr": ("Dans l'attente de votre réponse", "Au plaisir de vous lire")},
    {"en": ("Thank you for your understanding", "Thanks for your understanding"),
     "es": ("Gracias por su comprensión", "Gracias por tu comprensión"),
     "fr": ("Merci de votre compréhension", "Merci pour votre compréhension")},
    {"en": ("See you tomorrow", "See u tomorrow"), "es": ("Hasta mañana", "Nos vemos mañana"),
     "fr": ("À demain",)},
    {"en": ("OK", "Okay"), "es": ("Vale", "Vale vale"), "fr": ("D'accord",)},  # "Watch, guys."
    # "¡Adiós!" -> "It happened!", "Adiós." -> "Go on.", "¡Lo siento!" -> "I feel it!"
    {"en": ("Goodbye", "Bye", "Bye-bye", "Bye bye"), "es": ("Adiós", "Chao", "Chau"),
     "fr": ("Au revoir",)},
    # typed in chat too ("see u soon" gave "vois-tu bientôt")
    {"en": ("See you later", "See u later"), "es": ("Hasta luego",), "fr": ("À plus tard",)},
    {"en": ("See you", "See u"), "es": ("Nos vemos",), "fr": ("À bientôt",)},
    {"en": ("See you soon", "See u soon"), "es": ("Hasta pronto",), "fr": ("À bientôt",)},
    {"en": ("I'm sorry", "Sorry"), "es": ("Lo siento", "Perdón"), "fr": ("Désolé",)},
    {"en": ("Please",), "es": ("Por favor",), "fr": ("S'il vous plaît", "S'il te plaît")},
    {"en": ("I'm so sorry", "I'm very sorry"), "es": ("Lo siento mucho", "Lo siento muchísimo"),
     "fr": ("Je suis vraiment désolé",)},
]  # fmt: skip
# signs and notices, whole lines too: the bundled models wrote "Out of order." -> "Surtout.",
# "Wet floor." -> "Libère-toi.", "Sold out." -> "Éloignez-vous.", "Prohibido fumar." -> "Keep up
# smoking.", "Suelo mojado." -> "I smell wet.", "Fuera de servicio." -> "Get off duty." (a line
# that is also said to people is left out: "Agotado." may be "Exhausted.", "No funciona." "It
# doesn't work.")
SIGNS = [
    {"en": ("No smoking",), "es": ("Prohibido fumar", "No fumar"),
     "fr": ("Défense de fumer", "Interdit de fumer")},
    {"en": ("No parking",), "es": ("Prohibido aparcar", "No aparcar", "Prohibido estacionar"),
     "fr": ("Stationnement interdit",)},
    {"en": ("Do not disturb",), "es": ("No molestar",), "fr": ("Ne pas déranger",)},
    {"en": ("Please do not disturb",), "es": ("Por favor, no molestar",),
     "fr": ("Prière de ne pas déranger",)},
    {"en": ("Out of order",), "es": ("Fuera de servicio",), "fr": ("Hors service",)},
    {"en": ("Wet floor", "Caution: wet floor"), "es": ("Suelo mojado", "Piso mojado"),
     "fr": ("Sol glissant", "Sol mouillé")},
    {"en": ("Emergency exit",), "es": ("Salida de emergencia",), "fr": ("Sortie de secours",)},
    {"en": ("Sold out",), "es": ("Entradas agotadas", "Producto agotado"),
     "fr": ("Épuisé", "Complet")},
    {"en": ("Keep out of reach of children",),
     "es": ("Mantener fuera del alcance de los niños",
            "Manténgase fuera del alcance de los niños"),
     "fr": ("Tenir hors de portée des enfants",)},
    {"en": ("No entry", "No admittance"), "es": ("Prohibido el paso", "Prohibida la entrada"),
     "fr": ("Entrée interdite", "Accès interdit")},
    {"en": ("Staff only",), "es": ("Solo personal autorizado", "Sólo personal autorizado"),
     "fr": ("Réservé au personnel",)},
    {"en": ("Do not touch",), "es": ("No tocar",), "fr": ("Ne pas toucher",)},
    {"en": ("Closed for holidays",), "es": ("Cerrado por vacaciones",),
     "fr": ("Fermé pour congés",)},
    {"en": ("Mind the step",), "es": ("Cuidado con el escalón",), "fr": ("Attention à la marche",)},
    {"en": ("Beware of the dog",), "es": ("Cuidado con el perro",), "fr": ("Attention au chien",)},
]  # fmt: skip
# a saying may follow a hello and its comma ("Hi, how are you?"), written the target's way
HELLOS = {"en": ("Hi", "Hello", "Hey"), "es": ("Hola", "Oye"), "fr": ("Salut", "Bonjour")}


def _by_form(rows: list[dict[str, tuple[str, ...]]]) -> dict[str, dict]:
    """Each language's forms of ``rows``, in lower case and without accents, -> its row (the
    first that has it)."""
    found: dict[str, dict] = {lang: {} for lang in rows[0]}
    for row in rows:
        for lang, forms in row.items():
            for form in forms:
                found[lang].setdefault(_key(form), row)
    return found


_FIRST_WORD = re.compile(r"[^\W\d_]+")


def _key(text: str) -> str:
    """``text`` as the tables are looked up: in lower case, without accents (where it has
    any: most lines have none, and taking them off costs more than the rest)."""
    text = text.lower()
    return text if text.isascii() else strip_accents(text)


def _first_word(text: str) -> str:
    """The first word of ``text`` as the tables are looked up: in lower case, without accents,
    its letters only ("What" of "What's up")."""
    return _key(_FIRST_WORD.search(text).group())


_SAYING = _by_form(SAYINGS + SIGNS)
# the first words of each language's sayings and hellos (in lower case, without accents)
_SAYING_FIRST = {
    lang: {_first_word(form) for form in forms} | {_first_word(w) for w in HELLOS[lang]}
    for lang, forms in _SAYING.items()
}
_SAYING_LONGEST = 2 * max(
    len(f) for row in SAYINGS + SIGNS for forms in row.values() for f in forms
)
_SAYING_LINE = re.compile(
    rf"(?:(?P<hello>{'|'.join(w for words in HELLOS.values() for w in words)}),? )?"
    r"[¡¿]?(?P<words>[^¡¿.!?]+?)(?P<end>[.!?]*)",
    re.IGNORECASE,
)
_WISH = _by_form(WISHES)
# a letter and the letters typed for it when accents are left out ("prospero", "navidad")
_LOOSE = {"a": "[aáàâ]", "e": "[eéèê]", "i": "[iíî]", "o": "[oóô]", "u": "[uúüû]", "n": "[nñ]",
          "c": "[cç]"}  # fmt: skip


def _loosely(form: str) -> str:
    """A pattern of ``form`` (without accents) that matches it with or without them."""
    return "".join(_LOOSE.get(c, re.escape(c)) for c in form)


# the first words of each language's wishes (without accents): a line that opens with none of
# them is no wish, without trying the patterns below (7 us a line)
_WISH_FIRST = {lang: {_first_word(form) for form in forms} for lang, forms in _WISH.items()}
_AND = {"en": "and", "es": "y", "fr": "et"}
_TO_ALL = {"en": ("to all", "to everyone"), "es": ("a todos", "a todas"), "fr": ("à tous",)}


def _may_wish(text: str, lang: str) -> bool:
    """Whether ``text`` opens with the first word of one of ``lang``'s wishes."""
    return _opens_with(text, _WISH_FIRST[lang])


def _opens_with(text: str, words: set[str]) -> bool:
    """Whether the first word of ``text``, in lower case and without accents, is one of
    ``words``."""
    first = _FIRST_WORD.search(text)
    return first is not None and _key(first.group()) in words


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
# the wish a language's model reads best before "to" and whom it is for ("Happy New Year to you
# and your family!" gave "Joyeuse année à toi et ta famille !", "¡Feliz Año Nuevo a ti y a tu
# familia!" "Happy New Year and your family!", "¡Feliz cumpleaños a mi mejor amiga!" "Happy to
# my best friend!"); given in place of another wish there, as ``WISH_STAND_INS`` is. Of five
# wishes before five such endings, the bundled models read these right for all five (es -> en)
# and four (en -> fr: "pour toi et ta famille"); "Feliz cumpleaños" for two
WISH_TO_STAND_INS = {"es": "Feliz Navidad", "en": "Good luck"}
_TO = {"en": "to", "es": "a", "fr": "à"}
# given as a wish before whom it is for, they came out "Félicitations de l'empire !" for
# "Congratulations to the winners!" and "Congratulations Christmas Day!" for "¡Felicidades a
# los novios!"
_CONGRATULATIONS = {
    _key(form) for row in WISHES if row["en"][0] == "Congratulations" for forms in row.values()
    for form in forms
}  # fmt: skip
_WISH_TO = {lang: re.compile(rf"{_wishes(lang)} (?={_TO[lang]} [^\W\d_])", re.I) for lang in _TO}


# a wish inside a sentence, after a verb of wishing ("I wish you a merry Christmas", "Te deseo
# una feliz Navidad"), as each language writes it there, with its article: the bundled models
# wrote "Je vous souhaite une pile Noël.", "We wish you some happy parties." (by the row's first
# English form)
WISHED = {
    "Merry Christmas": {"en": "a merry Christmas", "es": "una feliz Navidad",
                        "fr": "un joyeux Noël"},
    "Happy New Year": {"en": "a happy New Year", "es": "un feliz año nuevo",
                       "fr": "une bonne année"},
    "Happy birthday": {"en": "a happy birthday", "es": "un feliz cumpleaños",
                       "fr": "un joyeux anniversaire"},
    "Happy holidays": {"en": "happy holidays", "es": "unas felices fiestas",
                       "fr": "de joyeuses fêtes"},
    "Happy Easter": {"en": "a happy Easter", "es": "una feliz Pascua", "fr": "de joyeuses Pâques"},
    "Happy Valentine's Day": {"en": "a happy Valentine's Day", "es": "un feliz San Valentín",
                              "fr": "une joyeuse Saint-Valentin"},
    "Happy anniversary": {"en": "a happy anniversary", "es": "un feliz aniversario",
                          "fr": "un joyeux anniversaire"},
    "Good luck": {"en": "good luck", "es": "mucha suerte", "fr": "bonne chance"},
    "Have a nice trip": {"en": "a nice trip", "es": "un buen viaje", "fr": "un bon voyage"},
    "Get well soon": {"en": "a speedy recovery", "es": "una pronta recuperación",
                      "fr": "un prompt rétablissement"},
    "Have a nice weekend": {"en": "a nice weekend", "es": "un buen fin de semana",
                            "fr": "un bon week-end"},
}  # fmt: skip
# the wish each language's model reads best after a verb of wishing, given in place of the
# others: "I wish you good luck." -> "Je vous souhaite bonne chance.", "Te deseo un feliz
# cumpleaños." -> "I wish you a happy birthday."
WISHED_STAND_INS = {"en": "Good luck", "es": "Happy birthday"}
_ARTICLES = {"en": "a|an", "es": "un|una|unos|unas", "fr": "un|une|de|des"}
_WISHING = {  # a verb of wishing and whom to
    "en": r"\b(?:wish|wishes|wished|wishing) (?:you|y'all|everyone|everybody|them|him|her)"
    r"(?: all)? ",
    "es": r"\b(?:dese\w+|desear\w*) ",
    "fr": r"\bsouhait\w* ",
}


_WISHING_WORD = {"en": "wish", "es": "dese", "fr": "souhait"}  # what a verb of wishing holds


def _wished_rows(lang: str) -> dict[str, str]:
    """Each way ``lang`` writes a wish after a verb of wishing, without its article and without
    accents, -> its row's key in ``WISHED``."""
    rows = {row["en"][0]: row for row in WISHES}  # WISHED's keys: each row's first English form
    found = {}
    for key, forms in WISHED.items():
        written = re.sub(rf"^(?:{_ARTICLES[lang]}) ", "", forms[lang])
        for form in (written, *rows[key][lang]):
            found.setdefault(_key(form), key)
    return found


def _wished_pattern(lang: str) -> re.Pattern[str]:
    """A verb of wishing and one or two wishes after it, each perhaps with its article ("wish
    you a merry Christmas and a happy new year"), with or without their accents."""
    forms = "|".join(map(_loosely, sorted(_WISHED[lang], key=len, reverse=True)))
    wish = rf"(?:(?:{_ARTICLES[lang]}) )?(?:{forms})"
    return re.compile(
        rf"{_WISHING[lang]}(?P<wishes>{wish}(?: {_AND[lang]} {wish})?)(?!\w)", re.IGNORECASE
    )


_WISHED = {lang: _wished_rows(lang) for lang in WISHED_STAND_INS}
_WISHED_AT = {lang: _wished_pattern(lang) for lang in WISHED_STAND_INS}


def wish_within(
    sentence: str, source: str | None, target: str | None
) -> tuple[Span, str, dict[str, str]] | None:
    """The wishes after a verb of wishing in ``sentence`` ("a merry Christmas" of "I wish you a
    merry Christmas."), as ``opening_wish`` gives them: their span, the stand-in the model is
    given in their place (``WISHED_STAND_INS``), and each way the target may write the stand-in
    with what it becomes there ("bonne chance" -> "un joyeux Noël")."""
    pattern = _WISHED_AT.get(source or "")
    if pattern is None or target not in ("en", "es", "fr"):
        return None
    if _WISHING_WORD[source] not in sentence.lower():  # most sentences: one look
        return None
    found = pattern.search(sentence)
    if found is None:
        return None
    stand_in = WISHED[WISHED_STAND_INS[source]]
    wishes = found["wishes"]
    article = rf"^(?:(?:{_ARTICLES[source]}) )?"
    parts = re.split(rf" {_AND[source]} ", wishes, flags=re.IGNORECASE)
    keys = [_WISHED[source][_key(re.sub(article, "", p, flags=re.IGNORECASE))] for p in parts]
    if keys == [WISHED_STAND_INS[source]] and _key(wishes) == _key(stand_in[source]):
        return None  # as the model reads it best already
    written = f" {_AND[target]} ".join(WISHED[k][target] for k in keys)
    capitals = wishes.isupper()
    written = written.upper() if capitals else written
    target_forms = {stand_in[target], re.sub(rf"^(?:{_ARTICLES[target]}) ", "", stand_in[target])}
    given = stand_in[source].upper() if capitals else stand_in[source]
    return found.span("wishes"), given, {f: written for f in target_forms}


def congratulations_on(
    sentence: str, source: str | None, target: str | None
) -> tuple[Span, str, dict[str, str]] | None:
    """Congratulations on something opening ``sentence`` ("Enhorabuena por" of "¡Enhorabuena
    por el nuevo trabajo!"), as ``opening_wish`` gives a wish: given as thanks for it, which the
    models read well, and the thanks written as the congratulations ("Thank you for" ->
    "Congratulations on", "Merci pour" -> "Félicitations pour"). They wrote "Enhorabuena is out
    of the new job!" and "Les félicitations sur le nouveau travail !"."""
    found = _CONGRATULATIONS_AT.get(source or "")
    found = found and found.match(sentence)
    if not found or target not in _THANKS_FOR:
        return None
    capitals = found["said"].isupper()
    given = _THANKS_GIVEN[source].upper() if capitals else _THANKS_GIVEN[source]
    written = _CONGRATULATED[target].upper() if capitals else _CONGRATULATED[target]
    forms = {form: written + " " * form.endswith("'") for form in _THANKS_FOR[target]}
    return found.span("said"), given, forms  # "Merci d'avoir" -> "Félicitations pour avoir"


_CONGRATULATIONS_AT = {
    lang: re.compile(rf"[¡\"“«]?\s?(?P<said>{'|'.join(forms)}) (?=\w)", re.IGNORECASE)
    for lang, forms in {
        "es": ("enhorabuena por", "felicidades por", "felicitaciones por"),
        "en": ("congratulations on", "congrats on"),
    }.items()
}
_THANKS_GIVEN = {"es": "Gracias por", "en": "Thank you for"}
_THANKS_FOR = {  # how the models write the thanks given
    "en": ("Thank you very much for", "Thank you for", "Thanks for"),
    "fr": ("Merci beaucoup pour", "Merci pour", "Merci de", "Merci d'"),
}
_CONGRATULATED = {"en": "Congratulations on", "fr": "Félicitations pour"}


def how_was(sentence: str, language: str | None) -> str:
    """A Spanish "¿Qué tal ...?" about something ("¿Qué tal el viaje?"), given to the model as
    the question it reads: "¿Cómo fue el viaje?" for an event (``EVENTS``), "¿Cómo está tu
    madre?" for anything else, in the plural after a plural article; any other sentence as it
    is. The bundled es -> en model read "¿Qué tal el viaje?" as "How about the trip?", "¿Qué tal
    las vacaciones?" as "How about the holidays?" ("¿Qué tal?" alone is a saying)."""
    if language != "es" or "tal " not in sentence.lower():
        return sentence
    found = _QUE_TAL.fullmatch(sentence.strip())
    if found is None:
        return sentence
    plural = found["article"].lower().endswith("s")
    event = not EVENTS.isdisjoint(_key(found["thing"]).split())
    verb = ("fueron" if plural else "fue") if event else ("están" if plural else "está")
    how = "Cómo" if found["que"][0].isupper() else "cómo"
    return f"{found['open']}{how} {verb} {found['article']} {found['thing']}{found['close']}"


def turning_age(sentence: str, language: str | None) -> str:
    """An English birthday's "turns 7" ("is turning", "will turn") given to the model as "will
    be 7", which it reads: the bundled en -> fr model wrote "My daughter turns 7 on March 14." as
    "Ma fille a 7 heures le 14 mars." and "My son turns 10 tomorrow." as "Mon fils tourne 10
    heures demain." Only before an age's number (digits or its word) and the sentence's end, a
    time ("on", "in", "next", "tomorrow") or "years": "the light turns red" is the model's."""
    if language != "en" or "turn" not in sentence.lower():
        return sentence
    sentence = _TURNED.sub(_was, sentence)  # "My daughter turned 4 yesterday." -> "was 4"
    return _TURNING.sub(_will_be, sentence)


def _was(turned: re.Match) -> str:
    who = turned["who"] or ""  # "they", "the twins": "were"; not "Chris", "my boss"
    if who.lower() in ("has", "have", "had", "just"):
        return turned.group()  # "She has just turned 5": the model's
    plural = who.lower() in ("they", "we", "you") or (
        who.islower()
        and who.endswith("s")
        and not who.endswith(("ss", "us", "is"))
        and len(who) > 3
    )
    if re.match(r"\s*years?\b", turned.string[turned.end() :]):
        return turned.group()  # "She turned 30 years old yesterday.": "Elle a eu 30 ans hier."
    verb = "were" if plural else "was"
    # with "years old": "was 50" gave "avait 50", "was 50 years old" "avait 50 ans"
    age = f"{turned['age']} years old"
    return f"{who} {verb} {age}" if who else f"{verb} {age}"


def _will_be(turning: re.Match) -> str:
    space = " " if turning["turns"][0] in "'’" else ""  # "She's turning" -> "She will be"
    return space + _WILL_BE[turning["turns"][0].isupper()] + " " + turning["age"]


_AGE_WORD = (
    r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:-[a-z]+)?|one|two|three|four"
    r"|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen"
    r"|eighteen|nineteen|a hundred)"
)
_TURNING = re.compile(
    rf"\b(?P<turns>turns|is turning|will turn|['’]s turning) (?P<age>\d{{1,3}}|{_AGE_WORD})"
    r"(?=\s*(?:[.!?]|$|on |in |next |tomorrow|today|this |that day|years?\b|soon|later))",
    re.IGNORECASE,
)
_WILL_BE = {False: "will be", True: "Will be"}
# the past, before a number's age and a time or the end: the model wrote "My daughter turned 4
# yesterday." as "Ma fille a tourné 4 hier." and "was 4 years old" as "avait 4 ans" (an age in
# words, "turned thirty", it read: "a eu trente ans")
_TURNED = re.compile(
    r"\b(?:(?P<who>[^\W\d_]+) )?turned (?P<age>\d{1,3})"
    r"(?=\s*(?:[.!?]|$|on |in |last |yesterday|this |that day|years?\b|a (?:week|month)))"
)


# what "¿Qué tal ...?" asks about that is over when asked, in lower case without accents
EVENTS = set(
    "viaje fin finde examen fiesta cena comida almuerzo desayuno vacaciones concierto dia "
    "entrevista vuelo boda partido reunion cumpleanos pelicula clase excursion noche semana "
    "paseo cita visita obra curso".split()
)
_QUE_TAL = re.compile(
    r"(?P<open>¿?)(?P<que>qu[eé]) tal (?P<article>el|la|los|las|tus?|sus?|mis?|vuestr[oa]s?"
    r"|nuestr[oa]s?) (?P<thing>[^\W\d_][^?¿!.,;:]*?)(?P<close>\s*\?*)",
    re.IGNORECASE,
)


def wish_end(sentence: str, language: str | None) -> int | None:
    """Where the wish and comma opening ``sentence`` end ("Happy birthday," of "Happy birthday,
    Grandma!"), if words follow them, to be cut from the rest (heedful.pauses); None if it opens
    with none, or the language gives such a wish as its stand-in (``opening_wish``)."""
    if language not in _WISH or language in WISH_STAND_INS or not _may_wish(sentence, language):
        return None
    found = _WISH_OPENING[language].match(sentence)
    return None if found is None else found.end()


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
    viaje, chicos!"), where ``source`` has a stand-in (``WISH_STAND_INS``), or before whom they
    are for ("Feliz Año Nuevo" of "¡Feliz Año Nuevo a ti y a tu familia!": ``WISH_TO_STAND_INS``),
    and they are not it as written ("feliz cumpleanos" is given as "Feliz cumpleaños"): their
    span, the stand-in to give the model in their place (in capitals, if they are), and each
    way the target may write the stand-in with what it becomes there ("Happy birthday" ->
    "Have a nice trip")."""
    if source not in _WISH or target not in _WISH or not _may_wish(sentence, source):
        return None
    stand_in, found = WISH_STAND_INS.get(source), None
    if stand_in is not None:
        found = _WISH_OPENING[source].match(sentence)
    if found is None and source in WISH_TO_STAND_INS:
        stand_in, found = WISH_TO_STAND_INS[source], _WISH_TO[source].match(sentence)
        if found is not None and _key(found["wishes"]) in _CONGRATULATIONS:
            return None  # "Congratulations to the winners!" is no wish for them
    if found is None or stand_in is None:
        return None
    capitals = found["wishes"].isupper()
    given = stand_in.upper() if capitals else stand_in
    if found["wishes"] == given:  # as the model reads it best already
        return None
    written = _written_wishes(found["wishes"], source, target)
    forms = _WISH[source][_key(stand_in)][target]
    return found.span("wishes"), given, {f: written.upper() if capitals else written for f in forms}


def _written_wishes(wishes: str, source: str, target: str) -> str:
    """Wishes joined by "and" (``source``'s, one of ``_wishes``) as ``target`` writes them:
    each row's first form, the later ones in lower case but in English ("Joyeux Noël et bonne
    année", "Merry Christmas and Happy New Year")."""
    parts = re.split(r",? (?:and|y|e|et) (?:a )?", wishes, flags=re.IGNORECASE)
    written = [_WISH[source][_key(part)][target][0] for part in parts]
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
    row = found and _SAYING[source].get(_key(found["words"].strip()))
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
    shouted = found["words"].isupper() and len(found["words"].strip()) > 2  # not "OK"
    return text.upper() if shouted else text


def is_saying(line: str, language: str | None) -> bool:
    """Whether ``line`` is one of ``SAYINGS`` in ``language``, perhaps after a hello ("hey
    whats up")."""
    target = next((other for other in _SAYING if other != language), None)
    return target is not None and saying_formula(line, language, target) is not None


def saying_after_comma(text: str, language: str | None) -> int | None:
    """Where the saying that ends ``text`` after a comma begins ("gotta go, bye!", "Thanks for
    everything, bye!"), to be cut there and translated as a line is (heedful.pauses): the
    bundled en -> fr model wrote "Faut s'en aller, en définitive !" and "Merci pour tout, à
    fait !"; None if it has none."""
    comma = text.rfind(",")
    if comma < 0 or language not in _SAYING:
        return None
    rest = text[comma + 1 :].strip()
    found = _SAYING_LINE.fullmatch(rest) if len(rest) <= _SAYING_LONGEST else None
    row = found and not found["hello"] and _SAYING[language].get(_key(found["words"].strip()))
    return comma + 1 if row and row["en"][0] in _PARTING else None


# the sayings cut from a sentence they end: goodbyes and apologies. Not "please" ("Red wine,"
# alone gave "Redène du vin"), nor "how are you" after "Hello," (a hello's: saying_formula)
# ("Thanks so much, see you tomorrow" gave "Merci bien, vois-tu demain ?")
_PARTING = {"Goodbye", "See you later", "See you soon", "See you", "See you tomorrow",
            "I'm sorry", "I'm so sorry"}  # fmt: skip


def _ended(text: str, end: str, target: str) -> str:
    """``text`` ended with ``end`` ("", ".", "!" or "?") as ``target`` writes it: Spanish opens
    "¡" and "¿" too, French puts a space before "!" and "?" ("Joyeux Noël !")."""
    if end not in ("!", "?"):
        return text + end
    if target == "es":
        text = ("¿" if end == "?" else "¡") + text
    return f"{text} {end}" if target == "fr" else text + end
