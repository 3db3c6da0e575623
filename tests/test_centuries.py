"""Centuries written the target language's way (heedful.centuries through heedful.protect)."""

from __future__ import annotations

import pytest

from heedful.bundled import model_dir
from heedful.centuries import century_forms, find_centuries, write_century
from heedful.protect import protect
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


def test_a_century_s_number_is_found_as_each_language_writes_it():
    def found(text, lang):
        return [(text[a:b], n) for (a, b), n in find_centuries(text, lang)]

    assert found("Es del siglo XVI y del Siglo 5.", "es") == [("XVI", 16), ("5", 5)]
    assert found("In the 16th century, a 21st-century idea.", "en") == [("16th", 16), ("21st", 21)]
    assert found("Au XVIe siècle, au 3e siècle, au Ier siècle.", "fr") == [
        ("XVIe", 16), ("3e", 3), ("Ier", 1),
    ]  # fmt: skip
    # no century: a numeral that is none, a number that is no century, no word for century
    assert found("el siglo xvi", "es") == [("xvi", 16)]  # typed casually
    assert found("el siglo IIII, el siglo 0", "es") == []
    assert found("the 16th floor, the 99th century", "en") == []
    assert found("Carlos XVI", "es") == [] and found("XVIe siècle", "de") == []


def test_a_century_is_written_as_the_target_writes_it_in_each_form_it_may_take():
    assert [write_century(16, lang) for lang in ("en", "es", "fr")] == ["16th", "XVI", "XVIe"]
    assert [write_century(n, "en") for n in (1, 2, 3, 11, 21)] == [
        "1st", "2nd", "3rd", "11th", "21st",
    ]  # fmt: skip
    assert write_century(1, "fr") == "Ier"
    assert century_forms(16, "fr") == {"XIXe": "XVIe", "19e": "16e"}
    assert century_forms(21, "en") == {"19th": "21st"}


def test_a_century_goes_to_the_model_as_the_19th_and_comes_back_as_itself():
    protected = protect("Es una iglesia del siglo XVI.", "es", "en")
    assert protected.text == "Es una iglesia del siglo XIX."
    assert protected.restore("It's a church from the 19th century.") == (
        "It's a church from the 16th century."
    )
    protected = protect("It was built in the 12th century.", "en", "fr")
    assert protected.text == "It was built in the 19th century."
    assert protected.restore("Il a été construit au XIXe siècle.") == (
        "Il a été construit au XIIe siècle."
    )
    assert protected.restore("Il a été construit au 19e siècle.") == (
        "Il a été construit au 12e siècle."
    )
    # the 19th itself, or a second century in the sentence, is the model's
    assert protect("Es del siglo XIX.", "es", "en").placeholders == []
    two = protect("Del siglo XV al siglo XVI.", "es", "en")
    assert two.text == "Del siglo XIX al siglo XVI."


@pytest.mark.parametrize(
    ("name", "text", "century"),
    [  # before: "Carlos was a king of Spain in the century. XVI" ("XVI" taken for a name),
        # "in the 19th century" for the 12th, "au 16e XIXe siècle"
        ("es-en", "Carlos V fue rey de España en el siglo XVI.", "Carlos V was"),
        ("es-en", "Carlos V fue rey de España en el siglo XVI.", "16th century"),
        ("es-en", "CARLOS V FUE REY.", "CARLOS V WAS"),  # "CARLOS WAS A KING."
        ("es-en", "Vivimos en el siglo XXI.", "21st century"),
        ("es-en", "Es una iglesia del siglo XII.", "12th century"),
        ("en-fr", "The church was built in the 16th century.", "au XVIe siècle"),
        ("en-fr", "We live in the 21st century.", "XXIe siècle"),
        ("en-fr", "He lived in the 12th century.", "12e siècle"),
        ("en-fr", "THE CHURCH WAS BUILT IN THE 16TH CENTURY.", "AU XVIE SIÈCLE"),  # "16e dollars"
    ],
)
def test_a_century_translates_on_the_bundled_models(bundled, name, text, century):
    out = bundled[name].translate([text])[0]
    assert century in out and "XIX" not in out and "19" not in out, out
