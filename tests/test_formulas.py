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
    assert greeting("Dear all.") is None
    assert greeting("Querido amigo.", source="es", target="en") is None
    assert greeting("Dear Tom, how are you?", None) is None
    assert greeting("Dear Tom.", None) is None  # a greeting ends with its comma or colon
    assert greeting("DEAR ANNA.", target="fr") == "CHÈRE ANNA"  # in capitals as written
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


def test_an_opening_greeting_before_a_comma_ends_where_its_comma_does():
    from heedful.formulas import greeting_end

    assert greeting_end("Hola, me llamo Ana.", "es") == len("Hola,")
    assert greeting_end("Buenos días, ¿cómo está?", "es") == len("Buenos días,")
    assert greeting_end("Hola Tom, ¿vienes?", "es") is None  # a name before the comma
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
