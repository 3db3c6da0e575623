"""heedful.formulas: a letter's greeting and closing written the target language's way."""

import pytest

from heedful.bundled import model_dir
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def test_a_closing_becomes_its_rows_form_in_the_target_language():
    from heedful.formulas import letter_formula

    assert letter_formula("Kind regards.", ",", "en", "fr") == "Cordialement"
    assert letter_formula("un saludo.", ",", "es", "en") == "Best regards"  # in any case
    assert letter_formula("Atentamente.", ",", "es", "fr") == "Salutations distinguées"
    assert letter_formula("Best regards", None, "en", "es") == "Un saludo"  # alone on its line
    # one word is a closing only before a comma: "Love." may be a sentence
    assert letter_formula("Love.", ",", "en", "fr") == "Bises"
    assert letter_formula("Love.", None, "en", "fr") is None
    assert letter_formula("Best wishes!", None, "en", "fr") is None  # a sentence
    assert letter_formula("Kind regards.", ",", "en", "de") is None  # no table for German
    assert letter_formula("Best regards to Tom.", None, "en", "fr") is None
    # e-mail's short closings: "Best," gave "Bon,", "Cheers," "Les chers,"
    assert letter_formula("Best.", ",", "en", "fr") == "Cordialement"
    assert letter_formula("Cheers.", ",", "en", "es") == "Gracias"
    assert letter_formula("Best.", None, "en", "fr") is None  # a sentence
    # greetings to many are such lines too
    assert letter_formula("Dear customers.", ",", "en", "fr") == "Chers clients"
    assert letter_formula("Estimados clientes.", ":", "es", "en") == "Dear customers"
    assert letter_formula("Hola a todos.", ",", "es", "en") == "Hi everyone"
    # and to one of them ("De nombreux clients,", "Be client,")
    assert letter_formula("Dear customer.", ",", "en", "fr") == "Cher client"
    assert letter_formula("Estimada clienta.", ":", "es", "en") == "Dear customer"
    assert letter_formula("Dear team.", ",", "en", "fr") == "Chère équipe"


def test_a_closing_ended_with_a_full_stop_after_another_sentence_is_one():
    from heedful.formulas import letter_formula

    assert letter_formula("Un abrazo.", None, "es", "en", later=True) == "Love."
    assert letter_formula("Besos.", None, "es", "en", later=True) == "Love."
    assert letter_formula("SALUDOS CORDIALES.", None, "es", "fr", later=True) == "CORDIALEMENT."
    assert letter_formula("Un abrazo.", None, "es", "en") is None  # alone: a sentence
    assert letter_formula("Muchas gracias.", None, "es", "en", later=True) is None  # read well
    assert letter_formula("Un abrazo!", None, "es", "en", later=True) is None


@pytest.mark.parametrize(
    "name, text, expected",
    [  # before: "Thank you for your help. A huge.", "See you tomorrow. Besos."
        ("es-en", "¡Gracias por tu ayuda! Un abrazo.", "Thank you for your help! Love."),
        ("es-en", "Te veo mañana. Besos.", "See you tomorrow. Love."),
        ("en-fr", "See you tomorrow. Love.", "À demain. Bises."),
    ],
)
def test_a_closing_after_a_sentence_translates_on_the_bundled_models(bundled, name, text, expected):
    assert bundled[name].translate([text]) == [expected]


def test_a_greeting_gets_the_target_word_for_its_name():
    from heedful.formulas import letter_formula

    def greeting(line, mark=",", source="en", target="es"):
        return letter_formula(line, mark, source, target)

    assert greeting("Dear Anna.") == "Querida Anna"  # a woman's first name
    assert greeting("Dear Tom.") == "Querido Tom"
    assert greeting("Dear Mrs. Smith.") == "Estimada Sra. Smith"  # a title: formal
    assert greeting("Dear Mr. Brown.", target="fr") == "Cher M. Brown"
    assert greeting("Querida Ana.", ":", "es", "fr") == "Chère Ana"
    assert greeting("Estimado Sr. Gómez.", ":", "es", "en") == "Dear Mr. Gómez"
    # no name, or more than a greeting: not a formula
    assert greeting("Dear all.") == "Estimados todos"  # a greeting to many (GROUP_GREETINGS)
    assert greeting("Dear me.") is None
    assert greeting("Querido amigo.", source="es", target="en") is None
    assert greeting("Dear Tom, how are you?", None) is None
    assert greeting("Dear Tom.", None) is None  # a greeting ends with its comma or colon
    assert greeting("DEAR ANNA.", target="fr") == "CHÈRE ANNA"  # in capitals as written
    # a title written out in full, in lower case as Spanish writes it (was "Mrs. García
    # stretched:", "Take care of Professor Ruiz:")
    assert greeting("Estimada señora García.", ":", "es", "en") == "Dear Mrs. García"
    assert greeting("Querido profesor Ruiz.", ":", "es", "en") == "Dear Professor Ruiz"
    # to whom one does not know by name (was "Be gentle:", "Be men:", "D'accord,")
    assert greeting("Estimado señor.", ":", "es", "en") == "Dear Sir"
    assert greeting("Estimados señores.", ":", "es", "en") == "Dear Sir or Madam"
    assert greeting("Dear sir.", target="fr") == "Monsieur"
    assert greeting("Dear Sir or Madam.", target="fr") == "Madame, Monsieur"
    assert letter_formula("KIND REGARDS.", ",", "en", "fr") == "CORDIALEMENT"


def test_a_letter_translates_with_its_greeting_and_closing_linked(bundled):
    """Before: "Entre M. Brown," / "Les meilleures salutations,"; "Be Mr. Gómez careful:" /
    "He greeted,"."""
    letter = "Dear Mr. Brown,\n\nThank you for your letter.\n\nBest regards,\nAnna Kowalski"
    found = bundled["en-fr"].translate([letter], alignments=True)[0]
    lines = found.text.split("\n")
    assert lines[0] == "Cher M. Brown," and lines[4] == "Cordialement,", lines
    assert lines[5] == "Anna Kowalski", lines
    linked = {(link.source_word, link.target_word) for link in found.alignment}
    assert {("Dear", "Cher"), ("Brown", "Brown"), ("Best", "Cordialement")} <= linked
    for link in found.alignment:  # the offsets index the words
        assert letter[slice(*link.source)] == link.source_word
        assert found.text[slice(*link.target)] == link.target_word
    found = bundled["es-en"].translate(["Estimado Sr. Gómez:", "Un saludo,"])
    assert found == ["Dear Mr. Gómez:", "Best regards,"]


def test_hey_typed_without_its_comma_is_cut_before_a_question_or_a_clause(bundled):
    """Before: "hey what are you doing tonight?" -> "Il y a ce que tu fais ce soir ?", "oye q
    haces" -> "Do you hear you're doing?"."""
    from heedful.formulas import bare_hey, greeting_end

    assert greeting_end("hey what are you doing?", "en") == len("hey")
    assert greeting_end("oye q haces", "es") == len("oye")
    assert greeting_end("Hey guys, it's late.", "en") is None  # whom it greets
    assert greeting_end("¡Oye que te llamo!", "es") is None  # "que": no question
    assert bare_hey("oye", "es") and bare_hey("Hey", "en") and not bare_hey("hey you", "en")
    found = bundled["en-fr"].translate(["hey what are you doing tonight?", "hey"])
    assert found[0] == "Hé, que fais-tu ce soir ?" and "," not in found[1], found
    (found,) = bundled["es-en"].translate(["oye q haces"])
    assert found == "Hey, what are you doing?"


def test_an_opening_greeting_before_a_comma_ends_where_its_comma_does():
    from heedful.formulas import greeting_end

    assert greeting_end("Hola, me llamo Ana.", "es") == len("Hola,")
    assert greeting_end("Buenos días, ¿cómo está?", "es") == len("Buenos días,")
    # with whom it greets; a letter's greeting and its mark; a closing before its signature
    assert greeting_end("Hola Tom, ¿vienes?", "es") == len("Hola Tom,")
    assert greeting_end("Hola chicos, ¿qué tal?", "es") == len("Hola chicos,")
    assert greeting_end("Querida Ana: ¡gracias!", "es") == len("Querida Ana:")
    assert greeting_end("Dear Anna, thank you!", "en") == len("Dear Anna,")
    assert greeting_end("Dear all, thank you!", "en") == len("Dear all,")  # to many
    assert greeting_end("Dear me, what a day!", "en") is None  # no name
    assert greeting_end("Un abrazo, Pablo", "es") == len("Un abrazo,")
    assert greeting_end("Best regards, John Smith", "en") == len("Best regards,")
    assert greeting_end("Love, you know me", "en") is None  # no signature
    assert greeting_end("Thanks, Louis", "en") == len("Thanks,")  # thanks sign a message too
    assert greeting_end("Hola,", "es") is None  # nothing after it
    assert greeting_end("Holanda, país bonito.", "es") is None
    assert greeting_end("Hi, my name is Anna.", "en") is None  # English is read well as written


def test_a_sentence_after_an_opening_greeting_goes_on_in_lower_case(bundled):
    """Before: "Hi, call me Ana and I am 20 years old.", "Hi, guys what are you?"."""
    text = "Hola, me llamo Ana y tengo 20 años. Vivo en Lima."
    found = bundled["es-en"].translate([text, "Hola, ¿cómo estás?"], alignments=True)
    assert found[0].text.startswith("Hi, my name is Ana and I am 20 years old. I "), found[0]
    assert found[1].text == "Hi, how are you?", found[1]
    # typed without its end, the line keeps the model's, as a line cut nowhere does
    assert bundled["es-en"].translate(["oye, manana te llamo"])[0].endswith("tomorrow."), found
    for source, result in zip([text, "Hola, ¿cómo estás?"], found, strict=True):
        for link in result.alignment:  # lowered, its links' words are the text's
            assert source[slice(*link.source)] == link.source_word
            assert result.text[slice(*link.target)] == link.target_word


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        # a letter on one line: "Hurry Ana, thank you for the gift. ... A huge, Pablo", "D'Anna,
        # merci-en tant pour le cadeau ! ... Écoute, Paul", "Hello Marta, what are you?"
        (
            "es-en",
            "Querida Ana: ¡muchas gracias por el regalo! Un abrazo, Pablo",
            "Dear Ana: Thank you for the gift! Love, Pablo",
        ),
        (
            "en-fr",
            "Dear Anna, thank you for the gift! Love, Paul",
            "Chère Anna, merci pour le cadeau ! Bises, Paul",
        ),
        ("es-en", "Hola Marta, ¿cómo estás?", "Hi Marta, how are you?"),
        # a title written out in lower case ("Beimate Mrs. García, the package ...")
        (
            "es-en",
            "Estimada señora García: El paquete llegará el martes.",
            "Dear Mrs. García: The package will arrive on Tuesday.",
        ),
        ("en-fr", "Thanks, Louis", "Merci, Louis"),  # "Grâce, plus fort"
        # "De nos clients, le magasin...", "Estimados clients, the shop..."
        (
            "en-fr",
            "Dear customers, the store will be closed on Monday.",
            "Chers clients, le magasin sera fermé le lundi.",
        ),
        (
            "es-en",
            "Estimados clientes: la tienda estará cerrada el lunes.",
            "Dear customers: The store will be closed on Monday.",
        ),
    ],
)
def test_a_letter_on_one_line_translates_part_by_part_on_the_bundled_models(
    bundled, name, text, expected
):
    assert bundled[name].translate([text]) == [expected]


@pytest.mark.parametrize(
    ("name", "text", "greeting"),
    [  # before: "De nombreux clients, votre commande ...", "Be client, his order ..."
        ("en-fr", "Dear customer, your order has shipped.", "Cher client, "),
        ("es-en", "Estimado cliente, su pedido ha sido enviado.", "Dear customer, "),
        ("en-fr", "Dear user, your password was changed.", "Cher utilisateur, "),
    ],
)
def test_a_greeting_to_one_customer_opens_the_translation(bundled, name, text, greeting):
    (found,) = bundled[name].translate([text])
    assert found.startswith(greeting) and found.count(",") == 1, found
