"""Countries the model read too seldom (heedful.countries): given as a country of their kind,
written back as the CLDR names them in the target language."""

import pytest

from heedful.bundled import model_dir
from heedful.countries import READ_FEW, english_the, find_countries, french_kind, stand_ins
from heedful.protect import protect
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def test_countries_read_seldom_are_found_longest_first():
    read = {"peru": 2, "japan": 271, "united": 500, "arab": 1, "emirates": 0, "dominican": 3}

    def found(text, language="en"):
        spans = find_countries(text, language, lambda w: read.get(w.lower(), 0))
        return [(text[a:b], code) for (a, b), code in spans]

    assert found("From Peru to Japan.") == [("Peru", "PE")]  # Japan: read often
    assert found("I flew to the United Arab Emirates.") == [("United Arab Emirates", "AE")]
    assert found("Dominican Republic, not Dominica.") == [
        ("Dominican Republic", "DO"), ("Dominica", "DM")]  # fmt: skip
    assert found("Es de Perú y vive en Marruecos.", "es") == [("Perú", "PE"), ("Marruecos", "MA")]
    assert found("Vivo en Peru.", "es") == [("Peru", "PE")]  # typed without its accent
    # part of a person's or a place's name (bench/robustness.py's "¿Israel Zamora es feliz?"
    # gave "Israel Is Canadá Zamora happy?"), or a first name: none; the first word is no name
    assert found("Go to Vieja Bolivia, then Bolivia Sur.") == []
    assert found("En Perú hace calor.", "es") == [("Perú", "PE")]
    spans = find_countries("Israel vive en Israel.", "es", lambda w: 0, {"Israel"})
    assert spans == []
    # typed all in lower case: a name in lower case too, but for a common word or after an
    # article ("una cuba de vino", "el chile")
    common = lambda w: w.lower() in {"cuba", "chile", "paises", "bajos", "cyprus"}  # noqa: E731
    counts = {"cuba": 3, "chile": 4, "paises": 49, "bajos": 9, "cyprus": 1}

    def lower(text, language="es", capitals=False):
        read = lambda w: counts.get(w.lower(), 0)  # noqa: E731
        spans = find_countries(text, language, read, (), common, capitals=capitals)
        return [(text[a:b], code) for (a, b), code in spans]

    assert lower("vivo en peru y voy a marruecos") == [("peru", "PE"), ("marruecos", "MA")]
    assert lower("una cuba de vino, me gusta el chile, voy a cuba") == []
    assert lower("Vivo en peru") == []  # a capital: not typed all in lower case
    # a name of several words is a name, though each is a word ("países"), after an article
    # too; English names some countries with "the"; a word read once in lower case may have
    # been a name typed so
    assert lower("son de los paises bajos") == [("paises bajos", "NL")]
    assert lower("they live in the netherlands", "en") == [("netherlands", "NL")]
    assert lower("we flew to cyprus", "en") == [("cyprus", "CY")]
    # in capitals: as in lower case, a capital says nothing ("FUIMOS A ISLANDIA" gave "WE WENT
    # TO ISLANDIA" as the capitals left countries alone)
    assert lower("FUIMOS A ISLANDIA Y A LOS PAÍSES BAJOS.", capitals=True) == [
        ("ISLANDIA", "IS"), ("PAÍSES BAJOS", "NL")]  # fmt: skip
    assert lower("UNA CUBA DE VINO, VOY A CUBA.", capitals=True) == []
    # names that are mostly something else, and a lower-case word, are none
    assert found("Jordan went to Turkey with Chad; I ate chile.") == []
    assert found("Se casaron en Granada.", "es") == []  # the city, Grenada in Spanish
    assert found("Il vient du Pérou.", "de") == []  # a language without its table here
    assert READ_FEW > 6  # "Portugal", read 3 times, came out "à Portugal"


@pytest.mark.parametrize(
    ("code", "kind", "the"),
    [
        ("PE", "masculine", False),  # au Pérou
        ("MX", "masculine", False),  # au Mexique, though it ends in "e"
        ("BE", "feminine", False),  # en Belgique
        ("AT", "vowel", False),  # en Autriche, l'Autriche
        ("PH", "plural", True),  # aux Philippines; the Philippines
        ("LA", "masculine", False),  # au Laos, though it ends in "s"
        ("CY", "bare", False),  # à Chypre
        ("NL", "plural", True),  # aux Pays-Bas; the Netherlands
        ("KY", "plural", True),  # aux Îles Caïmans; the Cayman Islands
        ("KR", "feminine", False),  # en Corée du Sud ("au Corée du Sud" by its last word)
        ("GB", "masculine", True),  # au Royaume-Uni; the United Kingdom
        ("CR", "masculine", False),  # au Costa Rica
    ],
)
def test_each_country_is_said_as_its_kind(code, kind, the):
    assert french_kind(code) == kind
    assert english_the(code) is the


def test_countries_are_named_only_in_languages_the_cldr_has():
    from heedful.countries import names_countries

    assert names_countries("fr") and names_countries("de")
    assert not names_countries(None) and not names_countries("xx")


def test_a_country_is_given_as_a_stand_in_and_written_back():
    protected = protect("He is from Peru and lives in Austria.", "en", "fr",
                        countries={(11, 15): "PE", (29, 36): "AT"})  # fmt: skip
    assert protected.text == "He is from Canada and lives in France."
    assert protected.restore("Il vient du Canada et vit en France.") == (
        "Il vient du Pérou et vit en Autriche."
    )
    # French elides before a vowel: "la France" -> "l'Autriche", "de France" -> "d'Autriche"
    assert protected.restore("Il aime la France, le vin de France.") == (
        "Il aime l'Autriche, le vin d'Autriche."
    )
    given = protect("Es de Perú y de Marruecos.", "es", "en",
                    countries={(6, 10): "PE", (16, 25): "MA"})  # fmt: skip
    assert given.text == "Es de Canadá y de Japón."  # two stand-ins, each once
    assert given.restore("He's from Canada and Japan.") == "He's from Peru and Morocco."
    the = protect("Vivo en Países Bajos.", "es", "en", countries={(8, 20): "NL"})
    assert the.restore("I live in the United States.") == "I live in the Netherlands."
    bare = protect("I live in Cyprus.", "en", "fr", countries={(10, 16): "CY"})
    assert stand_ins("CY", "fr") == ()
    assert bare.restore(f"Je vis à {bare.placeholders[0]}.") == "Je vis à Chypre."
    # the stand-in is not one the sentence already names
    assert protect("Canada or Peru?", "en", "fr", countries={(10, 14): "PE"}).text == (
        "Canada or Japan?"
    )


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [  # before: "Il vient de Peru.", "Je veux visiter Morocco.", "à Iceland", "à Portugal",
        # "He's a person's.", "I want to visit Marrones.", "in Islandia"
        ("en-fr", "He is from Peru.", "Il vient du Pérou."),
        ("en-fr", "I want to visit Morocco.", "Je veux visiter le Maroc."),
        ("en-fr", "We spent a week in Iceland.", "Nous avons passé une semaine en Islande."),
        ("en-fr", "We went to Portugal last year.", "au Portugal"),
        ("es-en", "Es de Perú.", "He's from Peru."),
        ("es-en", "Quiero visitar Marruecos.", "I want to visit Morocco."),
        ("es-en", "Pasamos una semana en Islandia.", "We spent a week in Iceland."),
        # typed in lower case: "I live in pear.", "Je vis en peru."
        ("es-en", "vivo en peru", "I live in Peru."),
        ("en-fr", "i live in peru", "Je vis au Pérou."),
        # in capitals ("... À ICELAND ...", "I WANT TO VISIT MARRONES.") and with "the" ("Ils
        # vivent dans les années nordes.")
        ("en-fr", "WE WENT TO ICELAND LAST SUMMER.", "NOUS SOMMES ALLÉS EN ISLANDE"),
        ("en-fr", "THEY LIVE IN THE NETHERLANDS.", "ILS VIVENT AUX PAYS-BAS."),
        ("en-fr", "they live in the netherlands", "Ils vivent aux Pays-Bas."),
        ("es-en", "QUIERO VISITAR MARRUECOS.", "I WANT TO VISIT MOROCCO."),
        ("es-en", "SON DE LOS PAÍSES BAJOS.", "FROM THE NETHERLANDS."),
    ],
)
def test_a_country_read_seldom_is_named_right_on_the_bundled_models(bundled, name, text, expected):
    (found,) = bundled[name].translate([text])
    assert expected in found, found
