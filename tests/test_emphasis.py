"""Markdown's emphasis in plain text (heedful.emphasis): which markers count, where they go back
by hand-built word links, and through the bundled models with links that index the marked
texts."""

from __future__ import annotations

import re

import pytest

from heedful.bundled import model_dir
from heedful.emphasis import find_emphasis, with_emphasis
from heedful.explain.alignment_spans import WordLink
from heedful.real_input import Translation
from heedful.translator import Translator


def shape(text: str):
    marked = find_emphasis(text)
    if marked is None:
        return None

    def node(n):
        opening, closing = n.element
        element = opening if opening == closing else n.element
        return (marked.plain[n.source[0] : n.source[1]], element, [node(c) for c in n.children])

    return marked.plain, [node(n) for n in marked.nodes]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("**Negrita** y _cursiva_.", ("Negrita y cursiva.", [("Negrita", "**", []),
                                                              ("cursiva", "_", [])])),
        ("Es **muy _importante_** hoy.", ("Es muy importante hoy.", [
            ("muy importante", "**", [("importante", "_", [])])])),
        ("***x*** y ~~no~~", ("x y no", [("x", "**", [("x", "*", [])]), ("no", "~~", [])])),
        ("Usa `a_b_c` y _esto_.", ("Usa `a_b_c` y esto.", [("esto", "_", [])])),
        ("Haz clic [aquí](https://example.com/a_b) ya.", ("Haz clic aquí ya.", [
            ("aquí", ("[", "](https://example.com/a_b)"), [])])),
        ('Lee [la **guía**](/docs "Guía") hoy.', ("Lee la guía hoy.", [
            ("la guía", ("[", '](/docs "Guía")'), [("guía", "**", [])])])),
        ("![logo](logo.png) y [1] o [a] (b)", None),  # an image; brackets that are no link
        ("snake_case_name y 2*3*4", None),  # inside words
        ("* item y * otro", None),  # a list item's marker, spaces inside
        ("a * b * c", None),
        ("__", None),
    ],
)  # fmt: skip
def test_which_markers_count(text, expected):
    assert shape(text) == expected


def test_markers_go_back_around_the_aligned_words_and_links_follow():
    marked = find_emphasis("Es **muy _importante_** hoy.")
    plain, translation = marked.plain, "It is very important today."
    words = [("Es", "It is"), ("muy", "very"), ("importante", "important"), ("hoy", "today")]
    links = [
        WordLink(
            (plain.index(s), plain.index(s) + len(s)),
            (translation.index(t), translation.index(t) + len(t)),
            s,
            t,
        )  # fmt: skip
        for s, t in words
    ]
    given = Translation(translation, -1.0, [5], links)
    found = with_emphasis(marked, given, True)
    assert found.text == "It is **very _important_** today."
    assert found.score == -1.0 and found.tokens == [5]
    for link in found.alignment:
        source, target = marked.text, found.text
        assert source[link.source[0] : link.source[1]] == link.source_word
        assert target[link.target[0] : link.target[1]] == link.target_word
    assert with_emphasis(marked, given, False).alignment is None


@pytest.fixture(scope="module")
def translators():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


@pytest.mark.parametrize(
    "name, text",
    [
        ("es-en", "**Negrita** y _cursiva_."),
        ("es-en", "Es **muy** importante que vengas **mañana**."),
        ("en-fr", "Please *do not* touch the button. It is **very** hot."),
        ("es-en", "Lee la [guía de instalación](https://example.com/docs) **antes** de empezar."),
    ],
)
def test_the_bundled_models_keep_every_marker_around_words(translators, name, text):
    translator = translators[name]
    (found,) = translator.translate([text], alignments=True)
    plain = find_emphasis(text).plain
    assert re.sub(r"\]\([^)]*\)|[*_~[]", "", found.text) == translator.translate([plain])[0]
    for marker in ("**", "_", "[", "](https://example.com/docs)"):
        assert found.text.count(marker) == text.count(marker)
    assert re.search(r"\*\*\w[^*]*\w\*\*", found.text)  # around words, not around nothing
    for link in found.alignment:
        assert text[link.source[0] : link.source[1]] == link.source_word
        assert found.text[link.target[0] : link.target[1]] == link.target_word
    assert translator.translate([text])[0] == found.text


def test_a_link_the_placement_leaves_empty_keeps_its_url(translators):
    """The model wrote "[Catch](b) [me](f)." for "[a](b) [c](d) [e](f)": the middle link's words
    went nowhere, and its URL was lost with its markers; it is now written as it was."""
    text = "[a](b) [c](d) [e](f)"
    (found,) = translators["es-en"].translate([text], alignments=True)
    for url in ("](b)", "](d)", "](f)"):
        assert found.text.count(url) == 1, found.text
    for link in found.alignment:
        assert found.text[link.target[0] : link.target[1]] == link.target_word
