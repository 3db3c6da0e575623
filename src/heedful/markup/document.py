"""An HTML fragment as sentences to translate, and back with every tag where it belongs.

    markup = Markup.parse('<p>Haz clic <a href="/x">aquí</a> para seguir.</p>')
    markup.texts                        # ['Haz clic aquí para seguir.']
    markup.render(translations)         # '<p>Click <a href="/x">here</a> to continue.</p>'

beautifulsoup4 parses the fragment (Python's own html.parser: no <html> or <body> added). The
text of each block (``<p>``, ``<li>``, ``<td>``, a heading, the fragment itself...) up to a
``<br>`` or another block is one text for the model, whole sentences, without its inline tags
(``<b>``, ``<a>``, ``<span>``...), which ``render`` puts back around the words aligned to the
ones they enclosed (``heedful.markup.placement``), given each text's ``Translation`` with its
word links (``Translator.translate_n_best(..., alignments=True)``).

Kept as they are, never shown to the model: ``<script>``, ``<style>``, ``<pre>``, ``<textarea>``
and what is inside them; blocks marked ``translate="no"`` or ``class="notranslate"``; inline
elements so marked, ``<code>``, ``<kbd>``, ``<var>`` and the like, and links that show their own
address (a URL, Mastodon's @mentions and #hashtags), each of which stands in the model's text as
a placeholder (``{h0}``) that the translator keeps from the model (``heedful.protect``) and that
is replaced by the element again; comments. Software placeholders (``{name}``, ``%s``) of the
text, and symbols the input wrote as entities (``&amp;``, ``&copy;``, ``&nbsp;``) are put back if
the model lost them; every entity of the input is written as the input wrote it, attributes in
their order.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from bs4 import BeautifulSoup, NavigableString
from bs4.element import PageElement, PreformattedString, Tag
from bs4.formatter import HTMLFormatter

from heedful.markup.placement import SPACES, Inline, insert_missing, place
from heedful.protect import find_placeholders
from heedful.textmap import Span

BLOCK = {
    "address", "article", "aside", "blockquote", "body", "caption", "center", "col", "colgroup",
    "dd", "details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr",
    "html", "legend", "li", "main", "menu", "nav", "ol", "optgroup", "option", "p", "section",
    "select", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "title", "tr", "ul",
    "audio", "video", "iframe", "object", "canvas", "picture", "map", "datalist", "noscript",
}  # fmt: skip
KEEP = {"script", "style", "pre", "textarea", "template"}  # blocks left as they are
KEEP_INLINE = {"code", "kbd", "samp", "var", "math", "svg", "tt"}  # inline, left as they are
BREAKS = {"br"}
_WHITESPACE = re.compile(r"[ \t\n\r\f]+")  # HTML's white space (not a no-break space)
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
_TOKEN = "{{h{}}}"  # what an element kept as it is looks like to the model


@dataclass
class Segment:
    """One text to translate: a run of a container's children, up to a block or a <br>."""

    nodes: list[PageElement]
    text: str  # what the model translates
    lead: str  # the white space before and after it, kept outside
    trail: str
    tree: list[Inline]  # its inline elements
    tokens: dict[str, tuple[Span, list[PageElement]]]  # placeholder -> its span, what it stands for
    required: list[tuple[Span, str]] = field(default_factory=list)  # what must be in the output

    @property
    def plain(self) -> str:
        """The text without the tokens, to detect its language or count its characters."""
        text = self.text
        for token in self.tokens:
            text = text.replace(token, "")
        return " ".join(text.split())


class Markup:
    """A parsed fragment and its texts to translate, in document order."""

    def __init__(self, soup: BeautifulSoup, segments: list[Segment], entities: dict[str, str]):
        self.soup, self.segments, self.entities = soup, segments, entities

    @classmethod
    def parse(cls, fragment: str) -> Markup:
        soup = BeautifulSoup(fragment, "html.parser")
        entities = _entities(fragment)
        taken = set(re.findall(r"\{h\d+\}", fragment))
        segments = []
        for nodes in _runs(soup):
            segment = _segment(nodes, entities, taken)
            if segment is not None:
                segments.append(segment)
        return cls(soup, segments, entities)

    @property
    def texts(self) -> list[str]:
        return [s.text for s in self.segments]

    def text(self) -> str:
        """All the text of the fragment, to detect its language or count its characters."""
        return " ".join(s.plain for s in self.segments)

    def render(self, translations: Sequence[Any]) -> str:
        """The fragment with each text replaced by its translation (a ``Translation``: its
        ``text`` and ``alignment``). The parsed fragment is changed: render once."""
        if len(translations) != len(self.segments):
            raise ValueError(f"{len(self.segments)} texts, {len(translations)} translations")
        for segment, translation in zip(self.segments, translations, strict=True):
            links = [(link.source, link.target) for link in translation.alignment or []]
            _render(segment, translation.text, links)
        return self.soup.decode(formatter=_Formatter(self.entities))


# --- parsing -------------------------------------------------------------------------------------


def _runs(container: Tag) -> Iterator[list[PageElement]]:
    """The runs of inline children of ``container`` and of every block inside it."""
    run: list[PageElement] = []
    for child in list(container.children):
        if isinstance(child, Tag) and _is_boundary(child):
            if run:
                yield run
                run = []
            if _enter(child):
                yield from _runs(child)
        else:
            run.append(child)
    if run:
        yield run


def _is_boundary(tag: Tag) -> bool:
    if tag.name in BLOCK or tag.name in KEEP or tag.name in BREAKS:
        return True
    if _kept(tag):
        return any(d.name in BLOCK for d in tag.find_all(True))
    return any(d.name in BLOCK or d.name in BREAKS for d in tag.find_all(True))


def _enter(tag: Tag) -> bool:
    return tag.name not in KEEP and tag.name not in BREAKS and not _kept(tag)


def _kept(tag: Tag) -> bool:
    """An element left as it is: marked so, code and the like, or a link showing its address."""
    if tag.name in KEEP or tag.name in KEEP_INLINE:
        return True
    if str(tag.get("translate", "")).lower() == "no":
        return True
    classes = tag.get_attribute_list("class")
    if "notranslate" in classes:
        return True
    if tag.name == "a":
        if {"mention", "hashtag", "u-url"} & set(classes):
            return True
        shown = " ".join(tag.get_text().split()).lower()
        href = str(tag.get("href", "")).lower()
        if shown[:1] in ("@", "#"):  # a handle or a tag
            return shown[1:] in href
        if " " in shown or not any(c in shown for c in "./@"):
            return False  # words: "aquí", "borrar" (href="/borrar")
        return shown in href or shown.startswith(("http", "www."))  # an address
    return False


class _Flat:
    """A run's text as the model reads it: white space collapsed, kept elements as tokens."""

    def __init__(self, taken: set[str]):
        self.parts: list[str] = []
        self.length = 0
        self.tokens: dict[str, tuple[Span, list[PageElement]]] = {}
        self.taken = taken

    def add(self, text: str) -> None:
        text = _WHITESPACE.sub(" ", text)
        if text.startswith(" ") and (self.length == 0 or self.parts[-1].endswith(" ")):
            text = text[1:]
        if text:
            self.parts.append(text)
            self.length += len(text)

    def token(self, nodes: list[PageElement]) -> None:
        number = len(self.tokens)
        while _TOKEN.format(number) in self.taken:
            number += 1
        name = _TOKEN.format(number)
        self.taken.add(name)
        start = self.length
        self.add(name)
        self.tokens[name] = ((start, self.length), nodes)

    def flatten(self, nodes: list[PageElement]) -> list[Inline]:
        out: list[Inline] = []
        i = 0
        while i < len(nodes):
            node = nodes[i]
            if isinstance(node, PreformattedString):  # a comment, a declaration
                out.append(Inline((self.length, self.length), element=node))
            elif isinstance(node, NavigableString):
                self.add(str(node))
            elif _kept(node):
                group = [node]  # kept elements with only a space or a sign between: one token
                while i + 2 < len(nodes) and _joins(nodes[i + 1]) and _is_kept(nodes[i + 2]):
                    group += nodes[i + 1 : i + 3]
                    i += 2
                self.token(group)
            else:
                start = self.length
                children = self.flatten(list(node.children))
                out.append(Inline((start, self.length), children, node))
            i += 1
        return out


def _joins(node: PageElement) -> bool:
    """Text that joins two kept elements into one: a space, the + of Ctrl+S, a comma."""
    text = str(node)
    return (
        type(node) is NavigableString and len(text.strip()) <= 2 and not any(map(str.isalnum, text))
    )


def _is_kept(node: PageElement) -> bool:
    return isinstance(node, Tag) and _kept(node)


def _segment(nodes: list[PageElement], entities: dict[str, str], taken: set[str]) -> Segment | None:
    """A run as a text to translate; None if it has no letter outside its kept elements."""
    flat = _Flat(set(taken))
    tree = flat.flatten(nodes)
    text = "".join(flat.parts)
    if text.endswith(" "):  # nothing lies beyond the end
        text = text[:-1]
        for node in (n for top in tree for n in top.walk()):
            node.source = (min(node.source[0], len(text)), min(node.source[1], len(text)))
    segment = Segment(nodes, text, "", "", tree, flat.tokens)
    if not any(c.isalpha() for c in segment.plain):
        return None
    first, last = nodes[0], nodes[-1]
    if type(first) is NavigableString:
        segment.lead = first[: len(first) - len(first.lstrip(" \t\n\r\f"))]
    if type(last) is NavigableString and last.strip(" \t\n\r\f"):
        segment.trail = last[len(last.rstrip(" \t\n\r\f")) :]
    required = {span: name for name, (span, _) in flat.tokens.items()}
    for start, end in find_placeholders(text):
        required.setdefault((start, end), text[start:end])
    for k, char in enumerate(text):
        if char in entities and _must_stay(char):
            required[(k, k + 1)] = char
    segment.required = sorted(required.items())
    return segment


def _must_stay(char: str) -> bool:
    """A character written as an entity that must be in the translation too: a no-break space,
    a symbol (©, €, →), &, <, >, #, %, @; not a letter or a quotation mark, which a translation
    changes."""
    return char in SPACES or char in "&<>#%@" or unicodedata.category(char) in ("Sm", "Sc", "So")


def _entities(fragment: str) -> dict[str, str]:
    """Each character the fragment wrote as an entity, and the entity."""
    out: dict[str, str] = {}
    for match in _ENTITY.finditer(fragment):
        char = html.unescape(match.group())
        if len(char) == 1 and char != match.group():
            out.setdefault(char, match.group())
    return out


# --- rendering -----------------------------------------------------------------------------------


def _render(segment: Segment, translation: str, links: list) -> None:
    """Replace the segment's nodes by the translation with its elements put back."""
    translation, links = insert_missing(segment.text, translation, links, segment.required)
    whole = find_placeholders(translation)  # no tag goes inside "{0}"
    for name, (span, _) in segment.tokens.items():
        at = translation.find(name)
        whole.append((at, at + len(name)))
        links.append((span, whole[-1]))
    place(segment.tree, segment.text, translation, links, whole)
    container = segment.nodes[0].parent
    index = next(k for k, child in enumerate(container.contents) if child is segment.nodes[0])
    for node in segment.nodes:
        node.extract()
    for node in (n for top in segment.tree for n in top.walk()):
        if isinstance(node.element, Tag) and node.source[1] > node.source[0]:
            node.element.clear()
    used: set[str] = set()
    built = _build(translation, (0, len(translation)), segment.tree, segment.tokens, used)
    for k, node in enumerate(_strings(segment.lead) + built + _strings(segment.trail)):
        container.insert(index + k, node)


def _build(text: str, region: Span, nodes: list[Inline], tokens, used: set[str]) -> list:
    out: list[PageElement] = []
    at = region[0]
    for node in sorted(nodes, key=lambda n: (n.target[0], n.target[1] > n.target[0])):
        out += _text(text[at : node.target[0]], tokens, used)
        if isinstance(node.element, Tag) and node.source[1] > node.source[0]:
            node.element.extend(_build(text, node.target, node.children, tokens, used))
        out.append(node.element)
        at = max(at, node.target[1])
    return out + _text(text[at : region[1]], tokens, used)


def _text(text: str, tokens, used: set[str]) -> list[PageElement]:
    """Text, with each token replaced by what it stands for (once; a repeated one is dropped)."""
    if not tokens:
        return _strings(text)
    out: list[PageElement] = []
    pattern = "|".join(re.escape(name) for name in tokens)
    at = 0
    for match in re.finditer(pattern, text):
        out += _strings(text[at : match.start()])
        if match.group() not in used:
            used.add(match.group())
            out += tokens[match.group()][1]
        at = match.end()
    return out + _strings(text[at:])


def _strings(text: str) -> list[PageElement]:
    return [NavigableString(text)] if text else []


class _Formatter(HTMLFormatter):
    """bs4's minimal formatter (&, <, > escaped), but the characters the input wrote as entities
    written so again, and attributes in the input's order."""

    def __init__(self, entities: dict[str, str]):
        super().__init__(entity_substitution=self._substitute)
        self.entities = entities

    def _substitute(self, text: str) -> str:
        named = self.entities
        return "".join(named.get(c) or _MINIMAL.get(c, c) for c in text)

    def attributes(self, tag: Tag):
        return list(tag.attrs.items())


_MINIMAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
