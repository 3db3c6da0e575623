"""Asides in parentheses: translated apart and put back where the main sentence's links say."""

from __future__ import annotations

import pytest

from heedful.asides import as_aside, find_asides, put_asides
from heedful.bundled import model_dir
from heedful.explain.alignment_spans import WordLink
from heedful.translator import Translator


@pytest.fixture(scope="module")
def en_fr():
    return Translator.load(model_dir("en-fr"))


def test_asides_are_cut_out_with_the_space_before_them_and_offsets_map_back():
    text = "Tom (my brother) met Ana (2019) here."
    found = find_asides(text)
    assert found.main == "Tom met Ana here."
    assert found.texts == ["my brother", "2019"] and found.to_translate == [0]
    assert [text[a:b] for a, b in found.cuts] == [" (my brother)", " (2019)"]
    here = found.main.index("here")
    assert text[found.main_to_sentence(here) :].startswith("here")
    assert found.main_to_sentence(3, end=True) == 3  # "Tom" ends before its aside
    assert found.main_to_sentence(3) == len("Tom (my brother)")  # " met" starts after it
    opening = find_asides("(Note) This is it.")
    assert opening.main == "This is it." and opening.cuts == [(0, 7)]
    assert find_asides("No aside here.") is None
    assert find_asides("(only an aside)") is None  # no word outside it
    phone = "Call +1 (555) 123-4567 (my cell)."
    kept = find_asides(phone, [(5, 22)])
    assert kept.texts == ["my cell"] and kept.main == "Call +1 (555) 123-4567."


def test_an_aside_goes_after_the_target_word_linked_to_the_word_before_it():
    found = find_asides("Tom (my brother) is here.")
    translation = "Hier, Tom est ici."  # "Tom" is not the first word of the translation
    links = [WordLink((0, 3), (6, 9), "Tom", "Tom"), WordLink((4, 6), (10, 13), "is", "est")]
    put = put_asides(found, translation, links, ["mon frère"])
    assert put.text == "Hier, Tom (mon frère) est ici."
    assert put.text[put.starts[0] :].startswith("mon frère")
    assert put.moved(10) == put.text.index("est") and put.moved(9, end=True) == 9
    # no link for the words before it: at the same relative place, after a word
    put = put_asides(found, translation, [], ["mon frère"])
    assert put.text == "Hier (mon frère), Tom est ici."  # a quarter in: after "Hier"
    opening = find_asides("(Note) This is it.")
    assert put_asides(opening, "C'est ça.", [], ["Note"]).text == "(Note) C'est ça."
    # a quotation the word before closes stays closed before the aside ('"La Petite Maison
    # (près de la gare)"' before)
    quoted = find_asides('Lunch is at "La Petite Maison" (near the station).')
    for translation in ['Le déjeuner est à "La Petite Maison".', "Déjeuner à « La Maison »."]:
        end = translation.index("Maison") + len("Maison")
        links = [WordLink((24, 30), (end - 6, end), "Maison", "Maison")]
        put = put_asides(quoted, translation, links, ["près de la gare"])
        assert put.text == translation[:-1] + " (près de la gare).", put.text
        assert put.text[put.starts[0] :].startswith("près de la gare")


def test_an_aside_s_translation_keeps_its_small_opening_and_lack_of_a_full_stop():
    assert as_aside("mi hermano", "My brother.") == "my brother"
    assert as_aside("Tom", "Tom.") == "Tom"
    assert as_aside("about 50%", "environ 50%.") == "environ 50%"  # was "(environ 50%.)."
    assert as_aside("25 €", "25 €.") == "25 €"
    assert as_aside("ver nota.", "See note.") == "see note."  # its own full stop stays
    assert as_aside("casi", "") == "casi"  # nothing translated: as written
    # a word the target language always capitalises keeps it ("lunes" gave "(monday)")
    assert as_aside("lunes", "Monday.", "en") == "Monday"
    assert as_aside("yo también", "I'm too.", "en") == "I'm too"
    assert as_aside("lundi", "Monday.", "fr") == "monday"  # French has no such rule for it
    # English capitalises "I" and the weekdays wherever they are: no sign of a sentence's start
    assert as_aside("I think", "Je pense.", "fr") == "je pense"
    assert as_aside("I'm writing", "J'écris.", "fr") == "j'écris"
    assert as_aside("Monday works", "Lundi marche.", "fr") == "lundi marche"
    assert as_aside("It works", "Ça marche.", "fr") == "Ça marche"  # capitalised as written


def test_a_letter_s_sentence_after_its_greeting_goes_on_in_lower_case(en_fr):
    # before: "Cher M. Smith, J'écris pour confirmer ..."
    found = en_fr.translate(["Dear Mr. Smith, I am writing to confirm your order."])
    assert found[0].startswith("Cher M. Smith, j'écris pour confirmer "), found[0]


def test_a_sentence_with_an_aside_translates_whole_and_its_links_index_the_texts(en_fr):
    """Before: "Tom (my brother) is here." -> "Tom Łmy est dans l'esprit.", "The book (2019)
    is good." -> "Le livre de la casse 2019lt est bon."."""
    translator = en_fr
    texts = ["Tom (my brother) is here.", "The book (2019) is good.", "(Note) This is important."]
    found = translator.translate(texts, alignments=True)
    assert [t.text for t in found[:2]] == ["Tom (mon frère) est ici.", "Le livre (2019) est bon."]
    opening = found[2].text  # the model's word for "Note" alone varies ("(Note)", "(Nouez-vous)")
    assert opening.startswith("(") and opening.endswith(") C'est important."), opening
    for text, translation in zip(texts, found, strict=True):
        for link in translation.alignment:
            assert text[slice(*link.source)] == link.source_word
            assert translation.text[slice(*link.target)] == link.target_word
    pairs = {(k.source_word, k.target_word) for k in found[0].alignment}
    assert {("Tom", "Tom"), ("brother", "frère"), ("here", "ici")} <= pairs
    assert ("2019", "2019") in {(k.source_word, k.target_word) for k in found[1].alignment}
    # without alignments, the same text; in a paragraph, the same sentence
    assert translator.translate(texts[:1]) == [found[0].text]
    paragraph = translator.translate(["Tom (my brother) is here. He is happy."])[0]
    assert paragraph.startswith("Tom (mon frère) est ici. ")


def test_a_sentence_in_parentheses_is_translated_inside_them(en_fr):
    """Before: "My password is Summer2024! (don't tell anyone)" -> "... ! Údon ne le dit à
    personne l'échec.", "I'm happy! (really)" -> "... ! Łrellement engage."."""
    from heedful.asides import bracketed

    assert bracketed("(don't tell anyone)")["inside"] == "don't tell anyone"
    assert bracketed("(Note: it's late.)!")["end"] == "!"
    assert bracketed("(2019)") is None and bracketed("Tom (my brother)") is None  # copied; aside
    assert bracketed("(b)") is None  # a list's marker
    text = "My password is Summer2024! (don't tell anyone)"
    (found,) = en_fr.translate([text], alignments=True)
    assert found.text.endswith(" ! (ne le dis à personne)"), found.text
    for link in found.alignment:
        assert text[slice(*link.source)] == link.source_word
        assert found.text[slice(*link.target)] == link.target_word
    assert ("anyone", "personne") in {(k.source_word, k.target_word) for k in found.alignment}
    assert en_fr.translate(["(laughs)"]) == ["(rire)"]


def test_words_between_dashes_are_an_aside_put_back_between_the_same_marks(en_fr):
    """Before: "The meeting — if there is one — starts at 10." -> "Le rendez-vous à l'étranger
    s'il y a un départ à 10 heures."."""
    text = "The meeting — if there is one — starts at 10."
    found = find_asides(text)
    assert found.main == "The meeting starts at 10." and found.texts == ["if there is one"]
    assert found.marks == [("— ", " —")]
    spanish = find_asides("La reunión —si la hay— empieza a las diez.")
    assert spanish.main == "La reunión empieza a las diez." and spanish.marks == [("—", "—")]
    for none in ["It was 2010—2015.", "A — 3 — B.", "I know — 2015.", "Pages 10 — 20 are gone.",
                 "The Paris – Lyon train leaves at 8."]:  # fmt: skip
        assert find_asides(none) is None  # no space before, no letter inside, a dash before
    # one dash, words to the sentence's end: an aside that ends the translation ("He finally
    # arrived — three hours late." gave "Il est finalement arrivé à Ú trois heures en retard.")
    tail = find_asides("He finally arrived — three hours late.")
    assert tail.main == "He finally arrived." and tail.texts == ["three hours late"]
    assert tail.marks == [("— ", "")]
    links = [WordLink((3, 10), (3, 7), "finally", "est")]  # linked to no last word
    put = put_asides(tail, "Il est enfin arrivé.", links, ["trois heures en retard"])
    assert put.text == "Il est enfin arrivé — trois heures en retard."
    assert find_asides("Compré de todo —pan y leche.").marks == [("—", "")]
    put = put_asides(spanish, "The meeting begins at ten.",
                     [WordLink((3, 10), (4, 11), "reunión", "meeting")], ["if any"])  # fmt: skip
    assert put.text == "The meeting —if any— begins at ten."
    assert put.text[put.starts[0] :].startswith("if any")
    assert as_aside("si la hay", "S'il y en a un.") == "s'il y en a un"  # not an acronym
    assert as_aside("at the station", "À la gare.") == "à la gare"  # nor a lone capital
    (translated,) = en_fr.translate([text], alignments=True)
    alone = as_aside("if there is one", en_fr.translate(["if there is one"])[0])
    assert f" — {alone} — " in translated.text, translated.text
    for link in translated.alignment:
        assert text[slice(*link.source)] == link.source_word
        assert translated.text[slice(*link.target)] == link.target_word


def test_a_label_before_a_colon_is_cut_out_when_the_model_read_it_in_lower_case():
    labels = {"warning", "note", "pregunta"}

    def label_kind(word):
        return "framed" if word.lower() in labels else "copied" if word == "Q" else None

    text = "Warning: do not open this door (or else)."
    found = find_asides(text, label_kind=label_kind)
    assert found.label == "framed" and found.texts == ["Warning", "or else"]
    assert found.main == "do not open this door." and found.cuts[0] == (0, len("Warning: "))
    assert found.main_to_sentence(0) == len("Warning: ")
    assert find_asides("Pregunta: ¿dónde está?", label_kind=label_kind).texts == ["Pregunta"]
    assert find_asides("Note : it is late.", label_kind=label_kind).main == "it is late."
    # a field's value: one word with a number, or a number first ("Precio: 12,50 €")
    assert find_asides("Note: 555-1234", label_kind=label_kind).main == "555-1234"
    assert find_asides("Note: $5 each", label_kind=label_kind).main == "$5 each"
    for text in [
        "Tom: I'm here.",  # not a label (a name, for the lexicon)
        "Warning: stop.",  # one word after it
        "The time is 10:30 now.",
        "See http://example.com for more.",
        "Warning:do this now.",  # no space
    ]:
        assert find_asides(text, label_kind=label_kind) is None, text
    assert find_asides("Warning: do not open this door.") is None  # no label_kind: no labels
    copied = find_asides("Q: How old are you?", label_kind=label_kind)
    assert copied.label == "copied" and copied.texts == ["Q"] and copied.to_translate == []


@pytest.mark.parametrize(
    ("name", "text", "label", "rest"),
    [
        # before: "Apprendre la porte ne s'ouvrit pas.", "Remouvez à la bibliothèque ferme à 6
        # heures.", "Be quiet. Don't open this door."
        (
            "en-fr",
            "Warning: do not open this door.",
            "Avertissement : ",
            "n'ouvrez pas cette porte",
        ),
        ("en-fr", "Reminder: the library closes at 6.", "Rappel : ", "la bibliothèque ferme"),
        ("es-en", "Advertencia: no abras esta puerta.", "Warning: ", "open this door"),
        (
            "en-fr",
            "WARNING: DO NOT OPEN THIS DOOR.",
            "AVERTISSEMENT : ",
            "N'OUVREZ PAS CETTE PORTE",
        ),
        # "I" opens no sentence after a colon: "je", not "Je"; nor does a month: "le 3 mars"
        ("en-fr", "Example: I eat an apple every day.", "Exemple : ", "je mange une pomme"),
        ("en-fr", "Date: March 3, 2024", "Date : ", "le 3 mars 2024"),
        # a field's value: "Phone à 555-1234", "I used to listen, €12.50." before
        ("en-fr", "Phone: 555-1234", "Téléphone : ", "555-1234"),
        ("es-en", "Precio: 12,50 €", "Price: ", "€12.50"),
    ],
)
def test_a_label_is_translated_in_a_sentence_the_model_knows(name, text, label, rest):
    translator = Translator.load(model_dir(name))
    (out,) = translator.translate_n_best([text], alignments=True)
    best = out[0]
    assert best.text.startswith(label) and rest in best.text, best.text
    label_link = [k for k in best.alignment if k.source[0] == 0]
    assert len(label_link) == 1
    assert best.text[slice(*label_link[0].target)] == label.rstrip(": ")
    for k in best.alignment:  # every link indexes the texts' own words
        assert text[slice(*k.source)] == k.source_word and best.text[slice(*k.target)] == (
            k.target_word
        )


def test_a_name_before_a_colon_is_no_label(en_fr):
    from heedful.asides import sentence_asides

    assert sentence_asides(en_fr, "Tom: I'm here.") is None  # the training writes "Tom"
    assert sentence_asides(en_fr, "Re: the meeting is over.") is None  # two letters
    assert sentence_asides(en_fr, "Warning: I'm here.").label == "framed"
    assert sentence_asides(en_fr, "PS: I'm here.").label == "copied"


def test_a_label_of_capitals_is_copied_not_dropped(en_fr):
    """Before: "Quel âge as-tu ? J'ai 25 ans." (both labels dropped)."""
    (out,) = en_fr.translate_n_best(["Q: How old are you? A: I'm 25."], alignments=True)
    assert out[0].text.startswith("Q : ") and " A : " in out[0].text, out[0].text
    assert "âge" in out[0].text and "25" in out[0].text
    links = {(k.source_word, k.target_word) for k in out[0].alignment}
    assert {("Q", "Q"), ("A", "A")} <= links
