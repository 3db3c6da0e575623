"""A letter's greeting and closing, written the target language's way from a table.

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

Wishes and sayings ("Merry Christmas!", "¿Qué tal?") are heedful.sayings'.

A greeting and a comma opening a sentence ("Hola, me llamo Ana.") is translated as a sentence
of its own (``greeting_end``, cut by heedful.pauses), and the rest after it: the bundled es -> en
model read the comma as part of the sentence ("Hi, call me Ana.", "Hola, ¿cómo estás?" -> "Hi,
guys what are you?") and each part well alone ("Hi.", "My name is Ana.", "How are you?"): 3 of
6 sentences of my own right as written, 5 of 6 cut after "Hola,".
"""

from __future__ import annotations

import re

from heedful.names import feminine_title, has_title, people, write_title
from heedful.sayings import is_saying, saying_formula, wish_end, wish_formula

# closings that say the same, a row each: each language's forms, the first the one written
CLOSINGS = [
    {  # neutral, as in most letters and e-mails
        "en": ("Best regards", "Kind regards", "Regards", "Warm regards", "Best wishes",
               "All the best", "Best"),
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
        "en": ("Thanks", "Thank you", "Many thanks", "Thanks a lot", "Thanks again", "Cheers"),
        "es": ("Gracias", "Muchas gracias", "Mil gracias"),
        "fr": ("Merci", "Merci beaucoup", "Mille mercis"),
    },
    {  # to family and friends
        "en": ("Love", "Lots of love", "With love", "Hugs", "Hugs and kisses"),
        "es": ("Un abrazo", "Abrazos", "Un beso", "Besos", "Con cariño", "Un abrazo fuerte"),
        "fr": ("Bises", "Bisous", "Grosses bises", "Je t'embrasse", "Affectueusement"),
    },
]  # fmt: skip
# greetings to many, as the line opening a letter or a notice, a row each as ``CLOSINGS``: the
# models wrote "Dear customers," -> "Les clients sont,", "Estimados clientes:" -> "Estimados
# clients:", "Queridos amigos," -> "Hurry friends,"
GROUP_GREETINGS = [
    {"en": ("Dear all",), "es": ("Estimados todos", "Queridos todos"), "fr": ("Bonjour à tous",)},
    {"en": ("Hi everyone", "Hi all", "Hello everyone", "Hello all"), "es": ("Hola a todos",),
     "fr": ("Bonjour à tous", "Salut à tous")},
    {"en": ("Dear customers", "Dear clients"), "es": ("Estimados clientes", "Queridos clientes"),
     "fr": ("Chers clients",)},
    # to one of them ("Dear customer," -> "De nombreux clients,", "Estimado cliente," -> "Be
    # client,")
    {"en": ("Dear customer", "Dear client"),
     "es": ("Estimado cliente", "Estimada cliente", "Estimada clienta", "Querido cliente"),
     "fr": ("Cher client", "Chère cliente")},
    {"en": ("Dear user",), "es": ("Estimado usuario", "Estimada usuaria"),
     "fr": ("Cher utilisateur", "Chère utilisatrice")},
    {"en": ("Dear team",), "es": ("Estimado equipo", "Querido equipo"), "fr": ("Chère équipe",)},
    {"en": ("Dear colleagues",),
     "es": ("Estimados compañeros", "Queridos compañeros", "Estimados colegas"),
     "fr": ("Chers collègues",)},
    {"en": ("Dear friends",), "es": ("Queridos amigos", "Estimados amigos"), "fr": ("Chers amis",)},
    {"en": ("Ladies and gentlemen",), "es": ("Señoras y señores", "Damas y caballeros"),
     "fr": ("Mesdames et messieurs",)},
    # to whom one does not know by name ("Estimado señor:" -> "Be gentle:", "Dear sir," ->
    # "D'accord,")
    {"en": ("Dear Sir or Madam", "Dear Sir/Madam", "Dear Madam or Sir"),
     "es": ("Estimado señor o señora", "Estimados señores", "Muy señores míos"),
     "fr": ("Madame, Monsieur", "Madame, monsieur")},
    {"en": ("Dear Sir",), "es": ("Estimado señor", "Muy señor mío"), "fr": ("Monsieur",)},
    {"en": ("Dear Madam",), "es": ("Estimada señora", "Muy señora mía"), "fr": ("Madame",)},
]  # fmt: skip
_THANKS = 2  # the row of thanks
# each language's closing, in lower case -> its row
_CLOSING = {
    lang: {form.lower(): row for row in CLOSINGS for form in row[lang]} for lang in CLOSINGS[0]
}
_GROUP = {
    lang: {form.lower(): row for row in GROUP_GREETINGS for form in row[lang]}
    for lang in GROUP_GREETINGS[0]
}
# a greeting's word: (to a man, to a woman), familiar then formal (before a title)
GREETINGS = {
    "en": (("Dear", "Dear"), ("Dear", "Dear")),
    "es": (("Querido", "Querida"), ("Estimado", "Estimada")),
    "fr": (("Cher", "Chère"), ("Cher", "Chère")),
}
# greetings that open a sentence before a comma ("Hola, ..."), by language; Spanish only: the
# en -> fr model read "Hi, my name is Anna." and "Hello, I need help." well as written, and
# translated apart "Hi." as "Salut !"
OPENING_GREETINGS = {
    "es": ("hola", "buenos días", "buenas tardes", "buenas noches", "oye", "vale"),
}
_OPENING = {  # perhaps with whom it greets ("Hola Marta,", "Hola chicos,")
    lang: re.compile(
        rf"[¡]?(?:{'|'.join(words)})(?: [^\W\d_][\w'’-]*)?!?,(?=\s+\S)",
        re.IGNORECASE,
    )
    for lang, words in OPENING_GREETINGS.items()
}
# "hey" opening a sentence typed without its comma, before a question or a clause (not before
# whom it greets: "Hey guys, it's late"): "hey what are you doing tonight?" gave "Il y a ce que
# tu fais ce soir ?", "oye q haces" "Do you hear you're doing?"; cut there, as after "Hey,"
_HEY_BEFORE = {
    "en": "what whats what's where how why when who are r is can could do did have i im i'm "
          "you u we let's lets wanna",
    "es": "q k qué donde dónde como cómo cuando cuándo por quien quién cuanto cuánto tienes "
          "estas estás vienes vas sabes puedes quieres me te ya no si sí",
}  # fmt: skip
_HEY_WORD = r"[¡]?(?:hey|oye|ey)"
_BARE_HEY = {
    lang: re.compile(
        rf"{_HEY_WORD}(?= (?:{'|'.join(map(re.escape, words.split()))})(?![\w'’]))",
        re.IGNORECASE,
    )
    for lang, words in _HEY_BEFORE.items()
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
_GROUP_OPENING = {  # "Dear customers, the store..."
    lang: re.compile(rf"(?i:{'|'.join(map(re.escape, table))})[,:](?=\s+\S)")
    for lang, table in _GROUP.items()
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
    found = _OPENING[language].match(sentence) if language in _OPENING else None
    if found is not None:  # "Hola,", "Hola Marta,", "Hola chicos,"
        return found.end()
    found = _BARE_HEY[language].match(sentence) if language in _BARE_HEY else None
    if found is not None and not is_saying(sentence, language):  # "hey whats up": a saying
        return found.end()  # "hey what are you doing", "oye q haces": "hey" of "hey,"
    wish = wish_end(sentence, language)
    if wish is not None:
        return wish
    if language not in _GREETING_OPENING:
        return None
    found = _GROUP_OPENING[language].match(sentence)
    if found is not None:
        return found.end()
    found = _GREETING_OPENING[language].match(sentence)
    if found is not None and _someone(found["name"], language):
        return found.end()  # "Dear Anna," not "Dear all,"
    found = _CLOSING_BEFORE_NAME[language].match(sentence)
    if found is not None and all(w[0].isupper() for w in found["name"].split()):
        return found.end()  # "Love, Paul", not "Love, you"
    return None


def _someone(name: str, language: str | None) -> bool:
    """Whether a greeting's words after its word name someone: each capitalised, but for a
    title written out in lower case before them ("Dear Anna", "Estimada señora García"; not
    "Dear all", "Querido amigo")."""
    words = name.split()
    if len(words) > 1 and has_title(name, language):
        words = words[1:]
    return all(word[0].isupper() for word in words)


def bare_hey(sentence: str, language: str | None) -> bool:
    """Whether ``sentence`` is nothing but the "hey" that ``greeting_end`` cuts from what
    follows it typed without its comma ("oye" of "oye q haces"): its translation ends with the
    comma the text lacks, and the sentence goes on after it ("Hey, what are you doing?")."""
    return language in _BARE_HEY and _HEY.fullmatch(sentence) is not None


_HEY = re.compile(_HEY_WORD, re.IGNORECASE)


def closing_after_comma(text: str, language: str | None) -> int | None:
    """Where a letter's closing that ends ``text`` after a comma begins ("Muchas gracias por su
    ayuda, un saludo."), to be cut there (heedful.pauses) and written as the closing it is: the
    bundled es -> en model wrote "..., a health."; None if it has none. Not thanks, which the
    models read in a sentence, nor an English word that may be the sentence's own ("love")."""
    comma = text.rfind(",")
    rest = text[comma + 1 :].strip().rstrip(".!") if comma >= 0 else ""
    row = _CLOSING.get(language or "", {}).get(rest.lower())
    if row is None or row is CLOSINGS[_THANKS]:
        return None
    if language == "en" and " " not in rest and rest.lower() not in _ENGLISH_ALONE:
        return None
    return comma + 1


_ENGLISH_ALONE = {"regards", "sincerely", "respectfully"}  # closings of one word, no other use


def letter_formula(
    line: str, mark: str | None, source: str | None, target: str | None, *, later: bool = False
) -> str | None:
    """The target language's form of a letter's greeting or closing, ``line`` given without
    ``mark`` (the comma or colon the line ended with, None if it ended with none; "." may end
    ``line`` in its place); None if ``line`` is neither, or a language has no table. A
    closing ended with a full stop is one where it comes ``later`` in its text than another
    sentence ("¡Gracias por tu ayuda! Un abrazo." gave "A huge.", "Besos." "Besos."), but for
    thanks, which the models read ("Muchas gracias.")."""
    if source not in GREETINGS or target not in GREETINGS:
        return None
    # wishes, sayings and signs are whole lines, whatever ends them ("Wet floor!!!")
    said = wish_formula(line, source, target) or saying_formula(line, source, target)
    if said is not None or mark not in (",", ":", None):
        return said
    if mark is None and line.rstrip()[-1:] in ".!?":  # "Best wishes!": a sentence
        bare = line.rstrip()
        row = _CLOSING[source].get(bare[:-1].lower()) if bare.endswith(".") else None
        if not later or row is None or row is CLOSINGS[_THANKS]:
            return None
        written = row[target][0] + "."  # "Un abrazo." after a sentence: "Love."
        return written.upper() if bare.isupper() else written
    bare = line.rstrip(".!").strip()
    capitals = bare.isupper()  # "DEAR JOHN," -> "CHER JOHN,"
    row = _CLOSING[source].get(bare.lower()) or _GROUP[source].get(bare.lower())
    if row is not None and (" " in bare or mark is not None):  # "Love." may be a sentence
        return row[target][0].upper() if capitals else row[target][0]
    greeting = _GREETING[source].fullmatch(line.strip())
    if greeting is None or mark is None:
        return None
    name = greeting["name"].rstrip(".")  # the full stop given in place of the line's mark
    if not _someone(name, source):
        return None  # "Dear all", "Querido amigo"
    woman = feminine_title(name, source) or people(source).is_woman(name)
    formal = has_title(name, source)
    written = f"{GREETINGS[target][formal][woman]} {write_title(name, source, target)}"
    return written.upper() if capitals else written
