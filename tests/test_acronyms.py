"""Acronyms written as the target language writes them (heedful.acronyms through
heedful.protect)."""

from __future__ import annotations

import pytest

from heedful.acronyms import find_acronyms
from heedful.bundled import model_dir
from heedful.protect import protect
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def found(text: str, source: str, target: str) -> list[tuple[str, str]]:
    return [(text[a:b], acronym.given) for (a, b), acronym in find_acronyms(text, source, target)]


def test_an_acronym_is_given_as_a_noun_with_its_target_article_and_gender():
    # "l'ONU" (feminine, elided) as "l'école", "le FMI" as "le gouvernement", "la TVA" as
    # "la voiture"; in English with its article, "the" where it has none ("NATO": "l'OTAN")
    assert found("The UN and the IMF met about VAT.", "en", "fr") == [
        ("The UN", "The school"), ("the IMF", "the government"), ("VAT", "the car"),
    ]  # fmt: skip
    assert found("NATO met.", "en", "fr") == [("NATO", "The school")]
    assert found("He works for an NGO.", "en", "fr") == [("an NGO", "a school")]
    # Spanish: the acronym alone, its article stays ("la escuela", "del gobierno")
    assert found("La ONU habló del IVA.", "es", "en") == [("ONU", "escuela"), ("IVA", "gobierno")]


def test_what_is_no_acronym_to_write_anew_is_left_to_the_model():
    assert found("WHO ARE YOU?", "en", "fr") == []  # in capitals, "WHO" may be the word
    assert found("Who are you?", "en", "fr") == []
    # a modifier without the article English gives the acronym: the noun would be one word
    # more ("UN troops" -> "les troupes scolaires")
    assert found("UN troops arrived, EU rules too.", "en", "fr") == []
    # the text has the noun already, or another acronym stands as it: the next noun; none left
    assert found("The school and the UN.", "en", "fr") == [("the UN", "the church")]
    assert found("The UN, the WHO and the EU.", "en", "fr") == [
        ("The UN", "The school"), ("the WHO", "the church"),
    ]  # fmt: skip
    assert found("La ONU y la OMS.", "es", "en") == [("ONU", "escuela"), ("OMS", "iglesia")]
    assert found("La ONU.", "es", "fr") == [] and found("La ONU.", "fr", "en") == []
    assert found("UNESCO, the UNHCR, U.N.C.L.E.", "en", "fr") == []


def test_an_acronym_whose_noun_the_model_left_out_is_put_back_as_the_acronym():
    from heedful.unknown_words import Unreadable

    protected = protect("The EU rules.", "en", "fr")
    split = protected.missing("Les règles scolaires.", Unreadable(protected.text.split(), [], []))
    assert split.words == ["école"]  # the noun as the translation holds it, made the acronym:
    assert protected.restore("Les règles scolaires école.") == "Les règles scolaires UE."


def test_the_stand_in_s_noun_becomes_the_acronym_with_the_model_s_article():
    protected = protect("The report of the UN is ready.", "en", "fr")
    assert protected.text == "The report of the school is ready."
    assert protected.restore("Le rapport de l'école est prêt.") == "Le rapport de l'ONU est prêt."
    assert protected.restore("L'école est prête.") == "L'ONU est prête."
    into_english = protect("Trabaja para una ONG y habla de la OMS.", "es", "en")
    assert into_english.text == "Trabaja para una escuela y habla de la iglesia."
    # English's own article: "an NGO"; "the" where the model wrote none
    assert into_english.restore("He works for a school.") == "He works for an NGO."
    assert into_english.restore("He works for the school.") == "He works for the NGO."
    nato = protect("La OTAN se reunió.", "es", "en")
    assert nato.restore("The school met.") == "NATO met."
    assert nato.restore("the school met.") == "NATO met."
    who = protect("Trabaja en la OMS.", "es", "en")
    assert who.restore("She works at school.") == "She works at the WHO."


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("es-en", "La ONU celebró su reunión anual en Nueva York.", "The UN "),
        ("es-en", "Mi hermana trabaja en la OMS desde 2019.", "the WHO"),
        ("es-en", "El precio incluye el IVA.", "includes VAT"),
        ("en-fr", "She works for the WHO.", "Elle travaille pour l'OMS."),
        ("en-fr", "The UN held its annual meeting in New York.", "L'ONU "),
        ("en-fr", "The EU and the US signed an agreement.", "L'UE et les États-Unis"),
    ],
)
def test_acronyms_translate_on_the_bundled_models(bundled, name, text, expected):
    # before: "The U.NA celebrated", "the OMS", "includes IVA", "pour celle qui", "L'avion a
    # tenu", "EU et les États-Unis"
    assert expected in bundled[name].translate([text])[0]


def test_links_of_an_acronym_index_its_words(bundled):
    source = "The report of the UN is ready."
    result = bundled["en-fr"].translate([source], alignments=True)[0]
    assert result.text == "Le rapport de l'ONU est prêt."
    for link in result.alignment:
        assert source[slice(*link.source)] == link.source_word
        assert result.text[slice(*link.target)] == link.target_word
    assert ("the UN", "l'ONU") in {(k.source_word, k.target_word) for k in result.alignment}


def test_an_acronym_outside_the_table_that_the_model_seldom_read_is_copied():
    from heedful.lexicon import RARE, Lexicon

    lexicon = Lexicon(["la", "no", "ovni", "nasa", "xvi"], [900, 800, RARE + 1, RARE, 1])
    text = "La NASA, la UNHCR y un OVNI: NO, el siglo XVI, la NASAAMERICA y la Nasa."
    assert [text[a:b] for a, b in lexicon.unread_acronyms(text)] == ["NASA", "UNHCR"]
    assert Lexicon(["nasa"]).unread_acronyms("La NASA y la FIFA.") == [
        (13, 17)
    ]  # no counts: unread


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("es-en", "Trabajo para la NASA desde 2019.", "NASA since 2019"),
        ("es-en", "La NASA es grande.", "NASA is big."),
        ("es-en", "Vi un OVNI anoche.", "I saw a UFO"),  # read often: the model's, translated
        ("en-fr", "I saw a UFO last night.", "OVNI"),
    ],
)
def test_acronyms_outside_the_table_on_the_bundled_models(bundled, name, text, expected):
    # before: "I work for NásA since 2019.", "Number is big."
    assert expected in bundled[name].translate([text])[0]


def test_an_acronym_in_a_text_in_capitals_is_given_in_capitals():
    # read in lower case as the words around it ("the school met."), written in capitals
    assert found("WHO ARE YOU? THE UN MET.", "en", "fr") == [("THE UN", "THE SCHOOL")]
    assert found("SHE WORKS FOR THE WHO.", "en", "fr") == [("THE WHO", "THE SCHOOL")]
    assert found("LA ONU Y LA OMS.", "es", "en") == [("ONU", "ESCUELA"), ("OMS", "IGLESIA")]


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("es-en", "LA ONU Y LA OMS CELEBRARON UNA REUNIÓN.", "THE UN AND THE WHO CELEBRATED"),
        ("es-en", "EL PRECIO INCLUYE EL IVA.", "THE PRICE INCLUDES VAT."),
        ("en-fr", "SHE WORKS FOR THE WHO.", "ELLE TRAVAILLE POUR L'OMS."),
        ("en-fr", "THE EU AND NATO SIGNED AN AGREEMENT.", "L'UE ET L'OTAN ONT SIGNÉ UN ACCORD."),
        ("en-fr", "WHO ARE YOU?", "QUI ÊTES-VOUS ?"),
    ],
)
def test_acronyms_in_capitals_on_the_bundled_models(bundled, name, text, expected):
    # before: "THE U.A AND OMS CELEBRATED A MEETING.", "THE PRICE INCLUDES IVA.", "ELLE
    # TRAVAILLE POUR CELLE QUI.", "LE EU ET NATO ONT SIGNÉ UN ACCORD."
    assert expected in bundled[name].translate([text])[0]
