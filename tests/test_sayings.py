"""heedful.sayings: wishes and everyday sayings written the target language's way."""

import pytest

from heedful.bundled import model_dir
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def test_a_line_of_wishes_becomes_the_target_language_s_forms_of_their_rows():
    from heedful.sayings import wish_formula

    assert wish_formula("¡Feliz Navidad!", "es", "en") == "Merry Christmas!"
    assert wish_formula("Feliz Navidad y próspero Año Nuevo.", "es", "en") == (
        "Merry Christmas and Happy New Year."
    )
    assert wish_formula("Merry Christmas and a happy New Year.", "en", "fr") == (
        "Joyeux Noël et bonne année."  # the later wish in lower case but in English
    )
    assert wish_formula("Merry Christmas to all.", "en", "fr") == "Joyeux Noël à tous."
    assert wish_formula("Happy Easter!", "en", "fr") == "Joyeuses Pâques !"  # French's space
    assert wish_formula("Good luck!", "en", "es") == "¡Buena suerte!"
    assert wish_formula("feliz navidad", "es", "en") == "Merry Christmas"  # typed casually
    assert wish_formula("feliz navidad y prospero año nuevo", "es", "en") == (
        "Merry Christmas and Happy New Year"
    )  # accents left out
    assert wish_formula("MERRY CHRISTMAS!", "en", "fr") == "JOYEUX NOËL !"
    # more than wishes, or no table: the model's
    assert wish_formula("Buena suerte con el examen.", "es", "en") is None
    assert wish_formula("I wish you a merry Christmas.", "en", "fr") is None
    assert wish_formula("Merry Christmas!", "en", "de") is None


def test_a_wish_opening_a_sentence_is_cut_or_given_as_the_stand_in():
    from heedful.formulas import greeting_end
    from heedful.protect import protect
    from heedful.sayings import opening_wish

    # English: cut after its comma, as a greeting is; Spanish: given as "Feliz cumpleaños"
    assert greeting_end("Happy birthday, Grandma!", "en") == len("Happy birthday,")
    assert greeting_end("¡Buen viaje, chicos!", "es") is None
    assert greeting_end("Good luck with it, Tom!", "en") is None
    span, stand_in, forms = opening_wish("¡Buen viaje, chicos!", "es", "en")
    assert (span, stand_in, forms) == ((1, 11), "Feliz cumpleaños", {"Happy birthday": (
        "Have a nice trip")})  # fmt: skip
    assert opening_wish("¡Feliz cumpleaños, abuela!", "es", "en") is None  # the stand-in itself
    assert opening_wish("Buen viaje.", "es", "en") is None  # a line of wishes: wish_formula's
    protected = protect("¡Feliz Navidad, mamá!", "es", "en")
    assert protected.text == "¡Feliz cumpleaños, mamá!"
    assert protected.restore("Happy birthday, Mom!") == "Merry Christmas, Mom!"
    # before whom it is for: given as the wish the model reads best there, in both languages;
    # not congratulations ("Félicitations de l'empire !" for "Congratulations to the winners!")
    span, stand_in, forms = opening_wish("Happy New Year to you and your family!", "en", "fr")
    assert (span, stand_in, forms) == ((0, 14), "Good luck", {"Bonne chance": "Bonne année"})
    span, stand_in, forms = opening_wish("¡FELIZ AÑO NUEVO A TI!", "es", "en")
    assert (span, stand_in) == ((1, 16), "FELIZ NAVIDAD")
    assert forms == {"Merry Christmas": "HAPPY NEW YEAR", "Happy Christmas": "HAPPY NEW YEAR"}
    assert opening_wish("Congratulations to the winners!", "en", "fr") is None
    assert opening_wish("¡Felicidades a los novios!", "es", "en") is None
    assert opening_wish("Good luck to you all!", "en", "fr") is None  # the stand-in itself
    assert opening_wish("Happy birthday tomorrow!", "en", "fr") is None  # nobody it is for


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [  # before: "Bonne Noël !", "Joyeuse anniversaire, Grandma !", "Merry Noël à tout.",
        # "Joyeux Noël et Heureux année !", "Hors bien !", "Joyeuse !"; "Happy Christmas and
        # I think of the Nue.", "Luckily, boys!", "Be a trip, friends.", "You are complete."
        ("en-fr", "Merry Christmas!", "Joyeux Noël !"),
        ("en-fr", "Happy birthday, Grandma!", "Joyeux anniversaire, Grand-mère !"),
        ("en-fr", "Merry Christmas to all.", "Joyeux Noël à tous."),
        ("en-fr", "Merry Christmas and Happy New Year!", "Joyeux Noël et bonne année !"),
        ("en-fr", "Get well soon!", "Bon rétablissement !"),
        ("en-fr", "Happy Easter!", "Joyeuses Pâques !"),
        ("es-en", "Feliz Navidad y próspero Año Nuevo.", "Merry Christmas and Happy New Year."),
        ("es-en", "¡Buena suerte, chicos!", "Good luck, boys!"),
        ("es-en", "¡Buen viaje, amigos!", "Have a nice trip, friends!"),
        ("es-en", "¡Felices fiestas!", "Happy holidays!"),
        # in capitals, and typed casually: given as the stand-in so written ("Hurry birthday")
        ("es-en", "FELIZ NAVIDAD, MAMÁ", "MERRY CHRISTMAS, MOM"),
        ("es-en", "¡feliz cumpleanos, abuela!", "Happy birthday, grandmother!"),
        # before: "I was happy with Mother.", "Heureux la journée de sa mère !"
        ("es-en", "Feliz Día de la Madre.", "Happy Mother's Day."),
        ("en-fr", "Happy Mother's Day!", "Bonne fête des mères !"),
        ("en-fr", "happy halloween", "Joyeux Halloween"),
        # chat's "cumple" (before: "I am happy to drive!!", "Happy roads!"); "cumple" the verb
        # stays the model's
        ("es-en", "feliz cumple!!", "Happy birthday!!"),
        ("es-en", "¡Feliz cumple, Ana!", "Happy birthday, Ana!"),
        ("es-en", "Mi hijo cumple 7 años.", "My son will be 7 years old."),
        # before whom they are for (before: "Joyeuse année à toi et ta famille !", "Heureux
        # anniversaire à mon meilleur ami !"; "Happy New Year and your family!", "Happy to my
        # best friend!", "Welcome to all the neighbors!")
        ("en-fr", "Happy New Year to you and your family!", "Bonne année pour toi et ta famille !"),
        ("en-fr", "Happy birthday to my best friend!", "Joyeux anniversaire à mon meilleur ami !"),
        (
            "es-en",
            "¡Feliz Año Nuevo a ti y a tu familia!",
            "Happy New Year to you and your family!",
        ),
        ("es-en", "¡Feliz cumpleaños a mi mejor amiga!", "Happy birthday to my best friend!"),
        ("es-en", "¡Felices fiestas a todos los vecinos!", "Happy holidays to all the neighbors!"),
    ],
)
def test_wishes_translate_on_the_bundled_models(bundled, name, text, expected):
    assert bundled[name].translate([text]) == [expected]


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [  # before: "It happened!", "Go on.", "I feel it!", "I feel much!", "Speak more slowly,
        # please be!" (once cut before "¡"), "See you soon!"; "Sorry!" was "Désolé !" already
        ("es-en", "¡Adiós!", "Goodbye!"),
        ("es-en", "Adiós.", "Goodbye."),
        ("es-en", "¡Lo siento!", "I'm sorry!"),
        ("es-en", "¡Lo siento mucho!", "I'm so sorry!"),
        ("es-en", "Hable más despacio, ¡por favor!", "Speak more slowly, please!"),
        ("es-en", "¡Hasta luego!", "See you later!"),
        ("en-fr", "Sorry!", "Désolé !"),
        # typed without the apostrophe: "Hé ce qui est levé.", "Tu es bienvenue."
        ("en-fr", "hey whats up", "Salut, quoi de neuf"),
        ("en-fr", "youre welcome", "De rien"),
    ],
)
def test_goodbyes_and_apologies_translate_on_the_bundled_models(bundled, name, text, expected):
    assert bundled[name].translate([text]) == [expected]


def test_what_about_something_is_given_as_how_it_was_or_is():
    from heedful.sayings import how_was

    assert how_was("¿Qué tal el viaje?", "es") == "¿Cómo fue el viaje?"
    assert how_was("¿Qué tal las vacaciones?", "es") == "¿Cómo fueron las vacaciones?"
    assert how_was("¿Qué tal tu primer día?", "es") == "¿Cómo fue tu primer día?"
    assert how_was("¿Qué tal tus padres?", "es") == "¿Cómo están tus padres?"
    assert how_was("que tal el trabajo", "es") == "cómo está el trabajo"
    for left in ("¿Qué tal?", "¿Qué tal si vamos al cine?", "Hola, ¿qué tal el viaje?"):
        assert how_was(left, "es") == left
    assert how_was("¿Qué tal el viaje?", "fr") == "¿Qué tal el viaje?"


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [  # before: "How about the trip?", "How about the holidays?", "How's your parents?",
        # "How about your day?"
        ("es-en", "¿Qué tal el viaje?", "How was the trip?"),
        ("es-en", "¿Qué tal las vacaciones?", "How were the holidays?"),
        ("es-en", "¿Qué tal tus padres?", "How are your parents?"),
        ("es-en", "¿Qué tal tu día?", "How was your day?"),
        # before: "Ma fille a 7 heures le 14 mars.", "Mon fils tourne 10 heures demain.",
        # "Elle a trente ans la semaine prochaine." (turning_age, below)
        ("en-fr", "My daughter turns 7 on March 14.", "Ma fille aura 7 ans le 14 mars."),
        ("en-fr", "My son turns 10 tomorrow.", "Mon fils aura 10 ans demain."),
        ("en-fr", "She's turning thirty next week.", "Elle aura trente ans la semaine prochaine."),
        # the past: "Ma grand-mère a tourné 90 la semaine dernière.", "Ma fille a tourné 4 hier."
        (
            "en-fr",
            "My grandmother turned 90 last week.",
            "Ma grand-mère avait 90 ans la semaine dernière.",
        ),
        ("en-fr", "My daughter turned 4 yesterday.", "Ma fille avait 4 ans hier."),
        ("en-fr", "My boss turned 50 yesterday.", "Mon patron avait 50 ans hier."),  # "avait 50"
        # before: "Enhorabuena is out of the new job!", "Happy for your wedding.", "Les
        # félicitations sur le nouveau travail !", "Les félicitations pour obtenir le travail."
        # (congratulations_on, below)
        ("es-en", "¡Enhorabuena por el nuevo trabajo!", "Congratulations on the new job!"),
        ("es-en", "Felicidades por tu boda.", "Congratulations on your wedding."),
        ("en-fr", "Congratulations on the new job!", "Félicitations pour le nouveau travail !"),
        ("en-fr", "Congratulations on getting the job.", "Félicitations pour avoir eu le travail."),
    ],
)
def test_a_phrase_given_as_the_model_reads_it_translates_on_the_bundled_models(
    bundled, name, text, expected
):
    found = bundled[name].translate([text], alignments=True)[0]
    assert found.text == expected
    for link in found.alignment:
        assert text[slice(*link.source)] == link.source_word
        assert found.text[slice(*link.target)] == link.target_word
        assert found.text[slice(*link.target)] == link.target_word


def test_a_birthday_s_turning_an_age_is_given_as_being_it():
    from heedful.sayings import turning_age

    assert turning_age("My son turns 10 tomorrow.", "en") == "My son will be 10 tomorrow."
    assert turning_age("She's turning thirty next week.", "en") == "She will be thirty next week."
    assert turning_age("He will turn 18 in May.", "en") == "He will be 18 in May."
    assert turning_age("Turns 5 today!", "en") == "Will be 5 today!"
    assert turning_age("My son turns 10 that day.", "en") == "My son will be 10 that day."
    for left in ("The light turns red.", "It turns 5 o'clock.", "He turns 3 pages.", "Turn 2."):
        assert turning_age(left, "en") == left
    assert turning_age("My son turns 10 tomorrow.", "es") == "My son turns 10 tomorrow."
    # the past: "was", "were", with "years old" ("Ma fille a tourné 4 hier.", and "was 50"
    # gave "avait 50"); an age in words the model reads
    assert turning_age("My daughter turned 4 yesterday.", "en") == (
        "My daughter was 4 years old yesterday."
    )
    assert turning_age("They turned 5 in May.", "en") == "They were 5 years old in May."
    assert turning_age("The twins turned 5.", "en") == "The twins were 5 years old."
    assert turning_age("Chris turned 30 last week.", "en") == "Chris was 30 years old last week."
    for left in ("She turned thirty last year.", "He turned 3 pages.", "She has turned 5.",
                 "She turned 30 years old."):  # fmt: skip
        assert turning_age(left, "en") == left


def test_a_line_that_is_a_saying_becomes_the_target_language_s_with_the_line_s_end():
    from heedful.sayings import saying_formula

    assert saying_formula("¿Qué tal?", "es", "en") == "How are you?"
    assert saying_formula("que tal", "es", "en") == "How are you"  # typed casually: no end
    assert saying_formula("oye q tal", "es", "en") == "Hi, how are you"  # chat's "q"
    assert saying_formula("Hola, ¿qué tal?", "es", "fr") == "Salut, comment allez-vous ?"
    assert saying_formula("Hi, how are you?", "en", "es") == "Hola, ¿qué tal?"
    assert saying_formula("Nice to meet you.", "en", "fr") == "Enchanté."
    assert saying_formula("¡Mucho gusto!", "es", "en") == "Nice to meet you!"
    assert saying_formula("HOW ARE YOU?", "en", "fr") == "COMMENT ALLEZ-VOUS ?"
    assert saying_formula("OK.", "en", "fr") == "D'accord."  # no shouting: before "D'ACCORD."
    # a first word with an apostrophe: its letters are looked up ("What" of "What's")
    assert saying_formula("What's up?", "en", "fr") == "Quoi de neuf ?"
    assert saying_formula("You're welcome.", "en", "es") == "De nada."
    # more than a saying, another language's hello, no table: the model's
    assert saying_formula("¿Qué tal el viaje?", "es", "en") is None
    assert saying_formula("Bonjour, how are you?", "en", "fr") is None
    assert saying_formula("How are you?", "en", "de") is None


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [  # before: "How about?", "Hi, how about?", "What's that about?"; "Conduisez-vous à vous
        # rencontrer.", "Salut, comment es-tu ?"
        ("es-en", "¿Qué tal?", "How are you?"),
        ("es-en", "Hola, ¿qué tal?", "Hi, how are you?"),
        ("es-en", "¿Qué pasa?", "What's up?"),
        ("en-fr", "Nice to meet you.", "Enchanté."),
        # a notice's: "Disculpen disturbs.", "Nous présentons nos excuses pour n'importe quel
        # désagrément."
        ("es-en", "Disculpen las molestias.", "Sorry for the inconvenience."),
        # "Faire attention à vos nouvelles."
        ("en-fr", "Looking forward to hearing from you.", "Dans l'attente de votre réponse."),
        (
            "en-fr",
            "We apologize for any inconvenience.",
            "Veuillez nous excuser pour la gêne occasionnée.",
        ),
        ("en-fr", "Hi, how are you?", "Salut, comment allez-vous ?"),
        # "vale" of chat: "Watch, guys.", "Watch, we'll meet.", "It's OK."; "vale" of price stays
        ("es-en", "vale, perfecto", "OK, perfect"),
        ("es-en", "vale, nos vemos", "OK, see you"),
        ("es-en", "Vale.", "OK."),
        ("es-en", "¿Cuánto vale?", "How much is it?"),
    ],
)
def test_sayings_translate_on_the_bundled_models(bundled, name, text, expected):
    assert bundled[name].translate([text]) == [expected]


def test_a_wish_after_a_verb_of_wishing_is_given_as_the_stand_in():
    from heedful.sayings import wish_within

    sentence = "We wish you a merry Christmas and a happy new year."
    (start, end), given, forms = wish_within(sentence, "en", "fr")
    assert sentence[start:end] == "a merry Christmas and a happy new year"
    assert given == "good luck"
    assert forms == {"bonne chance": "un joyeux Noël et une bonne année"}
    (start, end), given, forms = wish_within("Les deseamos unas felices fiestas.", "es", "en")
    assert given == "un feliz cumpleaños"
    assert forms == {"a happy birthday": "happy holidays", "happy birthday": "happy holidays"}
    capitals = wish_within("I WISH YOU A HAPPY EASTER.", "en", "fr")
    assert capitals[1:] == ("GOOD LUCK", {"bonne chance": "DE JOYEUSES PÂQUES"})
    # no wish after the verb; the stand-in itself; no verb of wishing
    assert wish_within("I wish you were here.", "en", "fr") is None
    assert wish_within("I wish you good luck.", "en", "fr") is None
    assert wish_within("Te deseo un feliz cumpleaños.", "es", "en") is None
    assert wish_within("Merry Christmas is a song.", "en", "fr") is None


def test_congratulations_on_something_are_given_as_thanks_for_it():
    from heedful.sayings import congratulations_on

    sentence = "¡Enhorabuena por el nuevo trabajo!"
    (start, end), given, forms = congratulations_on(sentence, "es", "en")
    assert (sentence[start:end], given) == ("Enhorabuena por", "Gracias por")
    assert set(forms.values()) == {"Congratulations on"} and "Thanks for" in forms
    _, given, forms = congratulations_on("CONGRATS ON THE PRIZE!", "en", "fr")
    assert given == "THANK YOU FOR" and forms["Merci pour"] == "FÉLICITATIONS POUR"
    assert forms["Merci d'"] == "FÉLICITATIONS POUR "  # "Merci d'avoir ..."
    assert congratulations_on("Congratulations!", "en", "fr") is None  # a wish of its own
    assert congratulations_on("She got congratulations on the job.", "en", "fr") is None
    assert congratulations_on("¡Enhorabuena por el trabajo!", "es", "de") is None


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("en-fr", "I wish you a merry Christmas.", "Je vous souhaite un joyeux Noël."),
        ("en-fr", "We wish you a merry Christmas and a happy new year.",
         "Nous vous souhaitons un joyeux Noël et une bonne année."),
        ("en-fr", "I wish you a happy Easter.", "Je vous souhaite de joyeuses Pâques."),
        ("es-en", "Te deseo una feliz Navidad.", "I wish you a merry Christmas."),
        ("es-en", "Les deseamos unas felices fiestas.", "We wish you happy holidays."),
        ("es-en", "Quiero desearte un feliz año nuevo.", "I want to wish you a happy New Year."),
    ],
)  # fmt: skip
def test_wishes_inside_a_sentence_translate_on_the_bundled_models(bundled, name, text, expected):
    # before: "Je vous souhaite une pile Noël.", "... un grille-pain.", "We wish you some happy
    # parties.", "I want to want you a new year."
    assert bundled[name].translate([text])[0] == expected


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("en-fr", "Out of order.", "Hors service."),
        ("en-fr", "Wet floor.", "Sol glissant."),
        ("en-fr", "Keep out of reach of children.", "Tenir hors de portée des enfants."),
        ("en-fr", "NO SMOKING", "DÉFENSE DE FUMER"),
        ("es-en", "Prohibido fumar.", "No smoking."),
        ("es-en", "Suelo mojado.", "Wet floor."),
        ("es-en", "Fuera de servicio.", "Out of order."),
        ("es-en", "Prohibido aparcar.", "No parking."),
    ],
)
def test_signs_translate_on_the_bundled_models(bundled, name, text, expected):
    # before: "Surtout.", "Libère-toi.", "Restez en dehors de atteindre les enfants.", "Pas de
    # fumer.", "Keep up smoking.", "I smell wet.", "Get off duty.", "Keep yourselves."
    assert bundled[name].translate([text])[0] == expected


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("en-fr", "Wet floor!!!", "Sol glissant !!!"),
        ("en-fr", "Merry Christmas!!!", "Joyeux Noël !!!"),
        ("es-en", "¡¡¡Feliz Navidad!!!", "Merry Christmas!!!"),
    ],
)
def test_a_table_s_line_ended_with_a_run_of_marks_keeps_them(bundled, name, text, expected):
    # before: "Apparez-vous !!!", "Bonne Noël !!!", "Happy Christmas!!!" (the run's line went
    # to the model)
    assert bundled[name].translate([text])[0] == expected


def test_a_sign_is_a_whole_line_and_not_one_said_to_people():
    from heedful.sayings import saying_formula

    assert saying_formula("Wet floor.", "en", "fr") == "Sol glissant."
    assert saying_formula("The floor is wet.", "en", "fr") is None
    assert saying_formula("There is no smoking here.", "en", "fr") is None
    # "Exhausted." and "It doesn't work." as often as "Sold out" and "Out of order"
    assert saying_formula("Agotado.", "es", "en") is None
    assert saying_formula("No funciona.", "es", "en") is None
