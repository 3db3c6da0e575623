"""heedful.ordinals: a small English ordinal before a noun goes to the model as its word, kept
where the translation holds the target language's ordinal, else translated with the digits."""

import pytest

from heedful.bundled import model_dir
from heedful.ordinals import holds, worded
from heedful.translator import Translator


@pytest.fixture(scope="module")
def bundled():
    return {"en-fr": Translator.load(model_dir("en-fr"))}


def test_a_small_ordinal_before_a_noun_is_given_as_its_word_and_offsets_map_back():
    text = "Take the 1st street, then the 3rd door on the 2nd of May."
    found = worded(text, "en", "fr")
    assert found.text == "Take the first street, then the third door on the 2nd of May."
    assert found.numbers == [1, 3]
    third = found.text.index("third")
    assert text[slice(*found.to_text.map((third, third + 5)))] == "3rd"
    assert worded("THE 3RD FLOOR.", "en", "fr").text == "THE THIRD FLOOR."  # in capitals
    # in Title Case a capitalised word after it is no name ("Les 3e Floor sont fermés." before)
    assert worded("The 3rd Floor Is Closed.", "en", "fr").text == "The Third Floor Is Closed."
    street = found.text.index("street")
    assert text[slice(*found.to_text.map((street, street + 6)))] == "street"


@pytest.mark.parametrize(
    "text",
    [
        "She finished 2nd in the race.",  # no noun after it
        "It happened on May 3rd, 2024.",  # a date
        "The 21st century.",  # more than ten
        "The 3th floor.",  # not an English ordinal's suffix
        "I live on 5th Avenue.",  # a name
        "El 3.º piso.",
    ],
)
def test_other_numbers_stay_as_they_are(text):
    language = "es" if text.startswith("El") else "en"
    assert worded(text, language, "fr" if language == "en" else "en") is None


def test_the_translation_must_hold_each_ordinal_in_any_gender():
    assert holds("Le troisième étage et la première rue.", [3, 1], "fr")
    assert holds("La seconde porte.", [2], "fr") and holds("La deuxième porte.", [2], "fr")
    assert not holds("Le premier étage est fermé.", [2], "fr")  # "2nd floor", read as the first
    assert not holds("Le troisième étage.", [3, 4], "fr")
    assert holds("La tercera puerta, el tercer piso, el primer día.", [3, 1], "es")
    assert not holds("Le 3e étage.", [3], "fr")  # digits: the other way's output


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("The 3rd floor is closed.", "troisième"),  # "Les 3e étage sont fermées" with a longer one
        ("It's my 5th visit to Paris.", "cinquième"),  # was "C'est ma visite à Paris 5e."
        ("Open the 2nd door on the left.", "deuxième"),  # was "Ouvrez la porte de 2e ..."
    ],
)
def test_an_ordinal_before_a_noun_translates_as_a_word(bundled, text, word):
    en_fr = bundled["en-fr"]
    (found,) = en_fr.translate([text], alignments=True)
    assert word in found.text, found.text
    for link in found.alignment:  # the links index the text as given ("5th", not "fifth")
        assert text[slice(*link.source)] == link.source_word


def test_an_ordinal_the_model_misreads_as_a_word_is_translated_with_its_digits(bundled):
    """As a word, "The 2nd floor is closed." gave "Le premier étage est fermé."."""
    en_fr = bundled["en-fr"]
    assert en_fr.translate(["The second floor is closed."])[0].startswith("Le premier")
    assert en_fr.translate(["The 2nd floor is closed."]) == ["Le 2e étage est fermé."]
