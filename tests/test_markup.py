"""Markup that survives translation (issue 33, part 2): HTML and software strings through the
bundled models keep every tag, attribute, placeholder and entity, the tags around the target
words aligned to the words they enclosed; tag placement on hand-built links; placeholders
protected from the model (``heedful.protect``); ``heedful translate --format html``.

``python tests/test_markup.py`` prints the README's table (input -> output) for a few snippets.
"""

from __future__ import annotations

import html
import re
from collections import Counter

import pytest
from bs4 import BeautifulSoup

from heedful.bundled import model_dir
from heedful.cli import main
from heedful.explain.alignment_spans import WordLink
from heedful.markup import Markup, translate_html
from heedful.markup.document import BLOCK, _entities, _kept, _must_stay
from heedful.markup.placement import Inline, anchor, insert_missing, place
from heedful.protect import find_placeholders, find_spans
from heedful.translator import Translator

MASTODON_ES = (
    '<p>Hola <span class="h-card"><a href="https://mastodon.example/@ana" class="u-url mention">'
    '@<span>ana</span></a></span>, mira <a href="https://mastodon.example/tags/gatos" '
    'class="mention hashtag" rel="tag">#<span>gatos</span></a></p><p>El gato negro duerme en el '
    'jardín. <a href="https://example.org/gato" rel="nofollow noopener" target="_blank">'
    '<span class="invisible">https://</span><span class="">example.org/gato</span></a></p>'
)
MASTODON_ES_2 = (
    '<p>Gracias <span class="h-card"><a href="https://social.example/@luis" class="u-url '
    'mention">@<span>luis</span></a></span> por el libro. <a href="https://social.example/tags/'
    'lectura" class="mention hashtag" rel="tag">#<span>lectura</span></a></p>'
)
MASTODON_EN = (
    '<p>Good morning <span class="h-card"><a href="https://mastodon.social/@anna" class="u-url '
    'mention">@<span>anna</span></a></span>! Look at <a href="https://example.com/photos/cat.jpg" '
    'rel="nofollow noopener noreferrer" target="_blank"><span class="invisible">https://</span>'
    '<span class="ellipsis">example.com/photos/</span><span class="invisible">cat.jpg</span></a>'
    ' <a href="https://mastodon.social/tags/cats" class="mention hashtag" rel="tag">#<span>cats'
    "</span></a></p>"
)

# Real-world shapes: links, bold inside a sentence, lists, nested inline tags, entities,
# attributes with quotes, tables, images, comments, code, Weblate and Android strings with
# placeholders, Mastodon statuses (mentions, hashtags, links shown as their address).
SNIPPETS = {
    "es-en": [
        '<p>Haz clic <a href="/continuar">aquí</a> para continuar.</p>',
        "<p>El gato <b>negro</b> duerme en el jardín.</p>",
        '<p>Lee <a href="/docs" title="la guía">la guía</a> y pulsa <b>Guardar</b> &amp; sal.</p>',
        "<ul><li>Tengo hambre.</li><li>¿Dónde está la estación?</li>"
        "<li>Mañana voy a <em>Madrid</em>.</li></ul>",
        "<p>El <b>gato <i>negro</i></b> duerme.</p>",
        '<span class="notranslate">{name}</span> tiene <strong>%s</strong> mensajes nuevos.',
        MASTODON_ES,
        '<p>Mi casa es <span style="color: red" data-note=\'dice "hola"\'>muy grande</span>.</p>',
        '<h2 id="intro">Bienvenido a nuestra tienda</h2><p>Tenemos <strong>ofertas</strong> '
        "cada semana.</p>",
        "Hola %(user)s, tienes {count} mensajes nuevos.",
        '<p>Escribe a <a href="mailto:ana@example.com">ana@example.com</a> si tienes '
        "preguntas.</p>",
        "<p>Usa <code>git pull</code> antes de trabajar.</p>",
        "<table><tr><th>Nombre</th><th>Precio</th></tr><tr><td>Café con leche</td>"
        "<td>2&nbsp;&euro;</td></tr></table>",
        "<p>El libro cuesta 20&nbsp;&euro; y el envío es <em>gratis</em>.</p>",
        "<p>Primera línea<br>Segunda línea con <i>letra cursiva</i>.</p>",
        '<p><img src="gato.png" alt="un gato"> Mi gato se llama Tom.</p>',
        '<p>No olvides tu <abbr title="Documento Nacional de Identidad">DNI</abbr> mañana.</p>',
        "<blockquote><p>La vida es <mark>bella</mark>.</p></blockquote>",
        "<p>Tengo {{count}} gatos y <b>{0}</b> perros.</p>",
        '<p translate="no">Heedful Translate</p><p>Traduce tus textos.</p>',
        '<p>¿Quieres <a href="/borrar" class="btn btn-danger" '
        """onclick="return confirm('¿Seguro?')">borrar</a> este archivo?</p>""",
        "<!-- aviso --><p>Nos vemos <u>pronto</u>.</p>",
        MASTODON_ES_2,
        "<p>Mi perro &mdash; se llama <b>Toby</b> &copy; 2024.</p>",
    ],
    "en-fr": [
        'Click <a href="/x">here</a> to continue.',
        "<p>I love my <em>little black</em> cat.</p>",
        "Run <code>make test</code> before you <strong>commit</strong>.",
        "<h1>Welcome, {name}!</h1><p>You have <b>%d</b> new messages.</p>",
        '<p>Read the <a href="https://example.org/guide" target="_blank" rel="noopener">user guide'
        "</a> for <i>more</i> details.</p>",
        "%1$s liked your post.",
        "<p>Press <kbd>Ctrl</kbd>+<kbd>S</kbd> to save the file.</p>",
        "<ol><li>Open the <b>settings</b>.</li><li>Choose a <i>language</i>.</li></ol>",
        "<p>Copyright &copy; The Authors. All rights reserved.</p>",
        MASTODON_EN,
        "Delete {count} files?",
        '<p>The meeting is on <time datetime="2024-05-01">Wednesday</time> at <b>ten</b>.</p>',
        '<p>She said &quot;hello&quot; and <a href="#top">left</a>.</p>',
        '<div class="alert"><strong>Warning:</strong> this action cannot be undone.</div>',
        "<p>The <span title='Tom&apos;s \"best\" friend'>old dog</span> sleeps.</p>",
    ],
}
TABLE = [  # the README's rows: (model, snippet number)
    ("es-en", 0), ("es-en", 1), ("es-en", 4), ("es-en", 3), ("es-en", 5), ("es-en", 9),
    ("es-en", 20), ("en-fr", 0), ("en-fr", 1), ("en-fr", 3), ("en-fr", 6), ("en-fr", 11),
]  # fmt: skip


@pytest.fixture(scope="module")
def bundled():
    return {name: Translator.load(model_dir(name)) for name in SNIPPETS}


@pytest.fixture(scope="module")
def translated(bundled):
    """Every snippet's translation: HTML in one batch a model, software strings as text."""
    return {name: translate_all(bundled[name], SNIPPETS[name]) for name in SNIPPETS}


def is_html(snippet: str) -> bool:
    return "<" in snippet


def translate_all(translator: Translator, snippets: list[str]) -> list[str]:
    marked = [s for s in snippets if is_html(s)]
    plain = [s for s in snippets if not is_html(s)]
    found = dict(zip(marked, translate_html(translator, marked), strict=True))
    found |= dict(zip(plain, translator.translate(plain), strict=True))
    return [found[s] for s in snippets]


CASES = [(name, k) for name, snippets in SNIPPETS.items() for k in range(len(snippets))]


def test_at_least_30_snippets():
    assert len(CASES) >= 30


def elements(fragment: str) -> Counter:
    """Each element with its attributes (in order) and the blocks it lies in."""
    soup = BeautifulSoup(fragment, "html.parser")
    out = Counter()
    for tag in soup.find_all(True):
        attributes = tuple(
            (k, tuple(v) if isinstance(v, list) else v) for k, v in tag.attrs.items()
        )
        blocks = tuple(p.name for p in tag.parents if p.name in BLOCK)
        out[(tag.name, attributes, blocks)] += 1
    return out


def placeholders(fragment: str) -> Counter:
    text = BeautifulSoup(fragment, "html.parser").get_text() if is_html(fragment) else fragment
    return Counter(text[s:e] for s, e in find_placeholders(text))


@pytest.mark.parametrize(("name", "k"), CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_every_tag_attribute_placeholder_and_entity_is_kept(translated, name, k):
    source, output = SNIPPETS[name][k], translated[name][k]
    assert output != source  # translated
    assert placeholders(output) == placeholders(source), output
    if not is_html(source):
        return
    assert elements(output) == elements(source), output  # each in its block, attributes as given
    for entity, char in ((e, html.unescape(e)) for e in re.findall(r"&#?\w+;", source)):
        wanted = source.count(entity) if _must_stay(char) else 0
        assert output.count(entity) >= wanted, (entity, output)
        assert char not in BeautifulSoup(output, "html.parser").get_text() or entity in output
    # what is left as it is (code, translate="no", mentions, hashtags, links showing their
    # address) comes back as it was
    found = BeautifulSoup(output, "html.parser")
    for tag in BeautifulSoup(source, "html.parser").find_all(True):
        if _kept(tag):
            assert any(tag == other for other in found.find_all(tag.name)), (str(tag), output)


def test_a_tag_goes_around_the_target_words_aligned_to_its_words(bundled, translated):
    """For each snippet of one text with one inline element around words: the element holds
    exactly the translation's span from the first to the last target word aligned to its words
    (the Translator's own links), and the text around it is the translation."""
    checked = 0
    for name, k in CASES:
        source = SNIPPETS[name][k]
        markup = Markup.parse(source) if is_html(source) else None
        if markup is None or len(markup.segments) != 1:
            continue
        (segment,) = markup.segments
        inline = [n for n in segment.tree if n.source[1] > n.source[0]]
        if len(segment.tree) != 1 or len(inline) != 1 or segment.tokens or segment.required:
            continue
        (element,) = inline
        (found,) = bundled[name].translate([segment.text], alignments=True)
        start, end = element.source
        targets = [k.target for k in found.alignment if k.source[0] < end and k.source[1] > start]
        assert targets, (source, found)
        expected = found.text[min(t[0] for t in targets) : max(t[1] for t in targets)]
        soup = BeautifulSoup(translated[name][k], "html.parser")
        tag = soup.find(element.element.name)
        assert tag.get_text() == expected, (translated[name][k], found.alignment)
        assert " ".join(soup.get_text().split()) == " ".join(found.text.split())
        checked += 1
    assert checked >= 8


def test_heedful_translate_format_html(capsys, bundled):
    fragments = [SNIPPETS["en-fr"][0], SNIPPETS["en-fr"][7]]
    model = str(model_dir("en-fr"))
    assert main(["translate", "--model", model, "--format", "html", *fragments]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == translate_html(bundled["en-fr"], fragments)
    code = main(["translate", "--model", str(model_dir("en-fr")), "--format", "html",
                 "--n-best", "2", fragments[0]])  # fmt: skip
    assert code != 0
    assert "--format html gives one translation" in capsys.readouterr().err


# --- placeholders ------------------------------------------------------------------------------


def test_placeholders_are_found_and_percentages_are_not():
    text = "%(count)d in {{count}}, {0}, {}, %1$s, %{user}, ${x}, %1, %.2f, %-5d, %@ and {name}."
    found = [text[s:e] for s, e in find_placeholders(text)]
    assert found == ["%(count)d", "{{count}}", "{0}", "{}", "%1$s", "%{user}", "${x}", "%1",
                     "%.2f", "%-5d", "%@", "{name}"]  # fmt: skip
    assert [text[s:e] for s, e in find_spans(text)] == found
    assert find_placeholders("El 50% de los gatos; 100%s; %sabor; %%s; {a b}.") == []


def test_the_translator_keeps_placeholders_from_the_model(bundled):
    strings = {
        "es-en": ["Hola {name}, tienes %s mensajes nuevos.", "Borrar %(count)d archivos.",
                  "Tienes {{count}} gatos y {0} perros."],
        "en-fr": ["Hello {name}, you have %d new messages.", "%1$s liked your post.",
                  "Delete {count} files?"],
    }  # fmt: skip
    for name, texts in strings.items():
        for text, (found,) in zip(texts, bundled[name].translate_n_best(texts, alignments=True),
                                  strict=True):  # fmt: skip
            assert placeholders(found.text) == placeholders(text), found.text
            for s, e in find_placeholders(text):  # each linked to itself
                links = [k for k in found.alignment if s <= k.source[0] < e]
                assert links and all(found.text[slice(*k.target)] in text[s:e] for k in links)


# --- placement on hand-built links -------------------------------------------------------------


def span_of(text: str, word: str, nth: int = 0) -> tuple[int, int]:
    at = -1
    for _ in range(nth + 1):
        at = text.index(word, at + 1)
    return at, at + len(word)


def links_of(source: str, target: str, pairs: list[tuple[str, str]]) -> list:
    return [(span_of(source, s), span_of(target, t)) for s, t in pairs]


def placed(source, target, pairs, nodes, whole=()) -> list[str]:
    place(nodes, source, target, links_of(source, target, pairs), whole)
    return [target[slice(*n.target)] for top in nodes for n in top.walk()]


def test_a_tag_goes_around_its_aligned_words_contiguously():
    source, target = "Haz clic aquí para seguir.", "Click here to continue."
    pairs = [("Haz", "Click"), ("clic", "Click"), ("aquí", "here"), ("seguir", "continue")]
    assert placed(source, target, pairs, [Inline(span_of(source, "aquí"))]) == ["here"]
    node = Inline(span_of(source, "clic aquí"))
    assert placed(source, target, pairs, [node]) == ["Click here"]


def test_siblings_swap_places_with_their_words_and_never_overlap():
    source, target = "un gato negro", "a black cat"
    pairs = [("un", "a"), ("gato", "cat"), ("negro", "black")]
    nodes = [Inline(span_of(source, "gato")), Inline(span_of(source, "negro"))]
    assert placed(source, target, pairs, nodes) == ["cat", "black"]
    # two elements aligned to the same word: the first takes it, the second is empty beside it
    source, target = "Haz clic", "Click"
    nodes = [Inline(span_of(source, "Haz")), Inline(span_of(source, "clic"))]
    assert placed(source, target, [("Haz", "Click"), ("clic", "Click")], nodes) == ["Click", ""]
    assert nodes[1].target == (5, 5)


def test_an_element_keeps_clear_of_a_siblings_words():
    """A stray link (Wednesday -> heures) would stretch <time> over "dix", which is <b>'s."""
    source, target = "on Wednesday at ten", "mercredi à dix heures"
    pairs = [("Wednesday", "mercredi"), ("Wednesday", "heures"), ("at", "à"), ("ten", "dix")]
    nodes = [Inline(span_of(source, "Wednesday")), Inline(span_of(source, "ten"))]
    assert placed(source, target, pairs, nodes) == ["mercredi", "dix"]
    # alone, the same element spans its words from the first to the last
    assert placed(source, target, pairs, [Inline(span_of(source, "Wednesday"))]) == [
        "mercredi à dix heures"
    ]


def test_the_same_word_and_words_over_punctuation_are_preferred():
    source, target = "Mañana voy a Madrid.", "I'm going to Madrid tomorrow."
    pairs = [("Madrid", "I'm"), ("Madrid", "going"), ("Madrid", "Madrid"), ("Madrid", "tomorrow")]
    assert placed(source, target, pairs, [Inline(span_of(source, "Madrid"))]) == ["Madrid"]
    source, target = "Abre los ajustes.", "Open the settings !"
    pairs = [("Abre", "Open"), ("ajustes", "settings"), ("ajustes", "!")]
    assert placed(source, target, pairs, [Inline(span_of(source, "ajustes"))]) == ["settings"]


def test_a_child_stays_inside_its_parent():
    source, target = "el gato negro duerme", "the black cat sleeps"
    pairs = [("el", "the"), ("gato", "cat"), ("negro", "black"), ("duerme", "sleeps")]
    child = Inline(span_of(source, "negro"))
    parent = Inline(span_of(source, "gato negro"), [child])
    assert placed(source, target, pairs, [parent]) == ["black cat", "black"]
    child = Inline(span_of(source, "duerme"))  # (impossible in HTML, but clipped all the same)
    parent = Inline(span_of(source, "gato"), [child])
    assert placed(source, target, pairs, [parent]) == ["cat", ""]


def test_words_without_links_go_to_their_text_or_relative_place():
    source, target = "Pulsa Guardar ahora.", "Press Guardar now."
    pairs = [("Pulsa", "Press"), ("ahora", "now")]
    assert placed(source, target, pairs, [Inline(span_of(source, "Guardar"))]) == ["Guardar"]
    source, target = "uno dos tres cuatro", "one two three four"
    assert placed(source, target, [], [Inline(span_of(source, "tres"))]) == ["three"]
    source, target = "Ve al hotel Ritz.", "Go to the Ritz hotel."  # a word, not a part of one
    assert placed(source, target, [], [Inline(span_of(source, "al"))]) == ["to the"]
    source, target = "Hola mundo.", "Hi."  # punctuation stays outside
    assert placed(source, target, [], [Inline(span_of(source, "mundo"))]) == ["Hi"]


def test_an_empty_element_goes_after_the_word_aligned_to_the_one_before_it():
    source, target = "Mi gato se llama Tom.", "My cat is called Tom."
    pairs = [("Mi", "My"), ("gato", "cat"), ("llama", "called"), ("Tom", "Tom")]
    links = links_of(source, target, pairs)
    assert anchor(source.index(" se"), source, target, links) == target.index(" is")
    assert anchor(0, source, target, links) == 0
    assert anchor(len(source), source, target, links) == len(target)
    assert anchor(source.index("."), source, target, links) == target.index(".")


def test_a_boundary_never_cuts_a_span_kept_whole():
    source, target = "Hola {h0}, mira", "Hi {h0}, look"
    node = Inline((0, 9))
    links = [((0, 4), (0, 2)), ((6, 8), (4, 6))]  # the braces are not part of the links
    place([node], source, target, links, whole=[(3, 7)])
    assert target[slice(*node.target)] == "Hi {h0}"


def test_what_the_model_lost_is_put_back_after_the_aligned_word():
    source, target = "Hola {name}, ¿qué tal?", "Hello, how are you?"
    pairs = [("Hola", "Hello"), ("qué", "how"), ("tal", "you")]
    required = [(span_of(source, "{name}"), "{name}")]
    text, links = insert_missing(source, target, links_of(source, target, pairs), required)
    assert text == "Hello {name}, how are you?"
    assert ((span_of(source, "{name}")), span_of(text, "{name}")) in links
    assert (span_of(source, "qué"), span_of(text, "how")) in links  # moved with the text
    # said twice: the last goes, and the links after it move back
    source, target = "Hola {name}.", "Hello {name} and {name} too."
    pairs = [("Hola", "Hello"), ("{name}", "{name}")]
    links = links_of(source, target, pairs) + [((0, 4), span_of(target, "too"))]
    text, links = insert_missing(source, target, links, [(span_of(source, "{name}"), "{name}")])
    assert text == "Hello {name} and too."
    assert links[-1] == ((0, 4), span_of(text, "too"))
    # a no-break space takes the place of the nearest space
    source, target = "20\u00a0€ al día", "20 € a day"
    required = [(span_of(source, "\u00a0"), "\u00a0")]
    pairs = [("20", "20"), ("€", "€"), ("día", "day")]
    text, _ = insert_missing(source, target, links_of(source, target, pairs), required)
    assert text == "20\u00a0€ a day"


def test_entities_are_written_as_the_input_wrote_them():
    fragment = "<p title='a &quot;b&quot;'>Caf&eacute; &amp; t&eacute;&nbsp;&copy;</p>"
    assert _entities(fragment) == {'"': "&quot;", "é": "&eacute;", "&": "&amp;",
                                   "\u00a0": "&nbsp;", "©": "&copy;"}  # fmt: skip
    markup = Markup.parse(fragment)
    (segment,) = markup.segments
    assert segment.text == "Café & té\u00a0©"

    class Same:  # a translation that changes nothing, linking each word to itself
        text = segment.text
        alignment = []

    out = markup.render([Same()])
    assert out == '<p title="a &quot;b&quot;">Caf&eacute; &amp; t&eacute;&nbsp;&copy;</p>'


def test_links_showing_their_address_are_kept_and_links_of_words_translated():
    kept = [
        '<a href="https://example.org/a">https://example.org/a</a>',
        '<a href="https://example.org/a">example.org/a</a>',
        '<a href="mailto:ana@example.com">ana@example.com</a>',
        '<a href="https://social.example/@ana">@ana</a>',
        '<a href="https://social.example/tags/gatos">#gatos</a>',
        '<a href="/x" class="mention">Ana</a>',
    ]
    words = ['<a href="/borrar">borrar</a>', '<a href="/docs">la guía</a>', '<a href="#">aquí</a>']
    for fragment in kept + words:
        tag = BeautifulSoup(fragment, "html.parser").a
        assert _kept(tag) == (fragment in kept), fragment


def test_no_tag_goes_inside_a_placeholder():
    markup = Markup.parse("<p>Tengo <b>{0}</b> perros.</p>")
    assert markup.texts == ["Tengo {0} perros."]

    class Translated:  # the links of "{0}" leave out its braces, as the Translator's do
        text = "I have {0} dogs."
        alignment = [WordLink((7, 8), (8, 9), "0", "0")]

    assert markup.render([Translated()]) == "<p>I have <b>{0}</b> dogs.</p>"


def test_a_tag_around_part_of_a_titled_name_stays_around_that_part(bundled):
    """A title and its name are one placeholder: the tag went around the whole name ("<b>M.
    Smith</b> est ici.")."""
    found = translate_html(
        bundled["en-fr"], ["<p>Mr. <b>Smith</b> is here.</p>", "<p>Call <b>Mrs.</b> Brown.</p>"]
    )
    assert "M. <b>Smith</b>" in found[0] and "<b>Mme</b> Brown" in found[1], found
    (found,) = translate_html(bundled["es-en"], ["<p>El Sr. <b>García</b> llegó tarde.</p>"])
    assert found.startswith("<p>Mr. <b>García</b> "), found


def test_a_placeholder_links_word_by_word_where_its_words_end_alike():
    from heedful.explain.alignment_spans import _word_by_word

    def links(source, target):
        pairs = _word_by_word(source, (0, len(source)), target, (0, len(target)))
        return [(source[a:b], target[c:d]) for (a, b), (c, d) in sorted(pairs)]

    assert links("el Sr. García López", "Mr. García López") == [
        ("el Sr.", "Mr."), ("García", "García"), ("López", "López")]  # fmt: skip
    assert links("Kwame Mensah", "Kwame Mensah") == [("Kwame Mensah", "Kwame Mensah")]  # copied
    assert links("6 de diciembre", "December 6") == [("6 de diciembre", "December 6")]
    assert links("3 de mayo de 1990", "May 3, 1990") == [("3 de mayo de 1990", "May 3, 1990")]
    assert links("mayo de 1990", "May 1990") == [("mayo de", "May"), ("1990", "1990")]
    assert links("1.234,50", "1,234.50") == [("1.234,50", "1,234.50")]


def test_blocks_br_and_kept_elements_make_the_texts():
    markup = Markup.parse(
        "<div><h1>Hola</h1>\n<p>Uno <b>dos</b><br>tres <code>x = 1</code> cuatro</p>"
        "<pre>no</pre><p translate='no'>nada</p><p>   </p><p>{h0} <kbd>K</kbd></p></div>"
    )
    assert markup.texts == ["Hola", "Uno dos", "tres {h1} cuatro", "{h0} {h1}"]
    assert [len(s.tokens) for s in markup.segments] == [0, 0, 1, 1]


# --- the README's table ------------------------------------------------------------------------


def markdown_table(translated: dict[str, list[str]]) -> str:
    def cell(text: str) -> str:
        return "`" + text.replace("|", "\\|").replace("`", "'") + "`"

    lines = ["| model | input | output |", "| --- | --- | --- |"]
    for name, k in TABLE:
        lines.append(f"| {name} | {cell(SNIPPETS[name][k])} | {cell(translated[name][k])} |")
    return "\n".join(lines)


def test_the_readme_table_shows_each_row(translated):
    table = markdown_table(translated).splitlines()
    assert len(table) == len(TABLE) + 2
    print("\n" + "\n".join(table))


if __name__ == "__main__":
    models = {name: Translator.load(model_dir(name)) for name in SNIPPETS}
    print(markdown_table({name: translate_all(models[name], SNIPPETS[name]) for name in SNIPPETS}))


# --- any links: nothing is lost ----------------------------------------------------------------

TRICKY = [
    "",
    "Solo texto, sin etiquetas.",
    "<p>Sin cerrar <b>negrita <i>y cursiva</p> fuera",
    "<b>uno<br>dos</b> tres <a href='/x'><div>bloque</div> en enlace</a>",
    "<p>Antes <script>var a = '<b>';</script> después <style>p{}</style> fin.</p>",
    '<p><img src="a.png"></p><p><a href="/vacío"></a> <span></span> solo <wbr>esto</p>',
    "<p><b><i><u><s>muy</s> anidado</u></i></b> aquí <code>a <b>b</b></code>.</p>",
    '<p data-x="a&amp;b &quot;c&quot;">&lt;b&gt; no es etiqueta &amp; &#169; &#x263A;</p>',
    "<ul>\n  <li>\n    Uno <em>dos</em>\n  </li>\n  <li>tres</li>\n</ul>",
    "<p>{h0} y {h1} ya están, <kbd>Ctrl</kbd> + <kbd>C</kbd>, %s y {{n}}.</p>",
]


class Shuffler:
    """A stand-in translator: each text's words shuffled, some dropped or doubled, with random
    links between the words kept and any source word (or none)."""

    def __init__(self, seed: int):
        import random

        self.rng = random.Random(seed)

    def translate_n_best(self, texts, options=None, alignments=False):
        from heedful.explain.alignment_spans import WordLink
        from heedful.real_input import Translation

        out = []
        for text in texts:
            words = [(m.span(), m.group()) for m in re.finditer(r"\S+", text)]
            kept = [w for w in words if self.rng.random() > 0.2]
            kept += [w for w in words if self.rng.random() < 0.1]
            self.rng.shuffle(kept)
            translation, links, at = [], [], 0
            for _, word in kept:
                for source, _ in self.rng.sample(words, min(len(words), self.rng.randrange(3))):
                    links.append(WordLink(source, (at, at + len(word)), "", ""))
                translation.append(word)
                at += len(word) + 1
            out.append([Translation(" ".join(translation), 0.0, [], links)])
        return out


@pytest.mark.parametrize("seed", range(5))
def test_under_any_links_every_tag_and_kept_element_comes_back(seed):
    fragments = [s for snippets in SNIPPETS.values() for s in snippets if is_html(s)] + TRICKY
    translator = Shuffler(seed)
    for fragment, output in zip(fragments, translate_html(translator, fragments), strict=True):
        assert elements(output) == elements(fragment), (fragment, output)
        assert placeholders(output) == placeholders(fragment), (fragment, output)
        found = BeautifulSoup(output, "html.parser")
        for tag in BeautifulSoup(fragment, "html.parser").find_all(True):
            if _kept(tag):
                assert any(tag == other for other in found.find_all(tag.name)), (tag, output)
