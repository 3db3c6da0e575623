"""heedful.abbreviations: abbreviations the training text never wrote go to the model spelt
out, where its full stops no longer end a sentence in the middle of one."""

import re

import pytest

from heedful.bundled import model_dir
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def test_an_abbreviation_is_spelt_out_in_the_case_it_was_written():
    from heedful.abbreviations import spell_out

    assert spell_out("Compra fruta, p. ej. manzanas, y ven a EE.UU. con Uds.", "es") == (
        "Compra fruta, por ejemplo manzanas, y ven a Estados Unidos con ustedes."
    )  # its own full stop ends the text: one is kept
    assert spell_out("Ud. puede entrar. UDS. PUEDEN ENTRAR.", "es") == (
        "Usted puede entrar. USTEDES PUEDEN ENTRAR."
    )
    assert spell_out("VIVE EN EE. UU.", "es") == "VIVE EN Estados Unidos."  # as usually written
    assert spell_out("Fruit, e.g. apples, i.e. food; E.G. PEARS", "en") == (
        "Fruit, for example apples, that is food; FOR EXAMPLE PEARS"
    )
    # not an abbreviation: inside a word or another one, or another language's
    assert spell_out("the.e.g. seed, hue.g. ", "en") == "the.e.g. seed, hue.g. "
    assert spell_out("Buy fruit, e.g. apples.", "es") == "Buy fruit, e.g. apples."
    assert spell_out("Des fruits, p. ex. des pommes", "fr") == "Des fruits, par exemple des pommes"
    # a word of one part, capitalised where it is written in lower case, is a name or an end
    assert spell_out("It weighs max. 5 kg, approx. 4.", "en") == (
        "It weighs maximum 5 kg, approximately 4."
    )
    assert spell_out("I met Max. Approx. 5 came.", "en") == "I met Max. Approx. 5 came."
    assert spell_out("Su pedido n.º 100, pág. 3, mín. 5.", "es") == (
        "Su pedido número 100, página 3, mínimo 5."
    )


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        # before: "You use. You can come in.", "He lives in America. I use from 2010.",
        # "Buy fruit, please. One apples.", "Achète des fruits, je m'en prie. Les pommes..."
        ("es-en", "Uds. pueden entrar.", "can come in"),
        ("es-en", "Vive en EE. UU. desde 2010.", "since 2010"),
        ("es-en", "Compra fruta, p. ej. manzanas.", "for example"),
        ("es-en", "Hemos recibido su pedido n.º 48213.", "order number 48213"),  # "...to swim."
        ("en-fr", "Buy fruit, i.e. apples and pears.", "pommes et des poires"),
        # "max." was read as a name ("(max a 25 MB)"); pysbd cut "approx. | 50 dollars"
        ("en-fr", "The file is too large (max. 25 MB).", "(maximum 25 MB)"),
        ("en-fr", "It costs approx. 50 dollars.", "50 dollars"),
    ],
)
def test_an_abbreviation_ends_no_sentence_on_the_bundled_models(bundled, name, text, words):
    out = bundled[name].translate([text])[0]
    assert words in out, out
    assert not re.search(r"[.!?] ", out), out  # one sentence, as given
