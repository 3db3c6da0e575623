"""HTML in, HTML out: the text between the tags is translated, the tags stay as they were.

    markup = Markup.parse('<p>Hola <b>mundo</b>.</p>')
    markup.texts                                    # ['Hola', 'mundo']
    markup.render(['Hello', 'world'])               # '<p>Hello <b>world</b>.</p>'

The simple, safe way: beautifulsoup4 parses the fragment (Python's own html.parser: no <html> or
<body> added), each text node is translated on its own with the white space around it kept, and
nothing else is touched, so every tag and attribute comes back. The price: a sentence with a tag
inside is translated in pieces ("Hola" and "mundo" apart). Moving tags to the words they were
around, by word alignment, is the next step (issue 33, part 2).

Left as they are: text inside <script>, <style>, <code>, <pre> and the like, inside an element
marked ``translate="no"`` or ``class="notranslate"``, text of a link that is part of its address
(a URL shown as a link, Mastodon's @mentions and #hashtags), text with no letter in it, and
comments and other declarations.
"""

from __future__ import annotations

from dataclasses import dataclass

from bs4 import BeautifulSoup, NavigableString
from bs4.element import PreformattedString, Tag

KEEP_INSIDE = {"script", "style", "code", "pre", "kbd", "samp", "var", "textarea", "math", "svg"}


@dataclass
class Markup:
    """A parsed fragment and the text nodes to translate, in document order."""

    soup: BeautifulSoup
    nodes: list[NavigableString]

    @classmethod
    def parse(cls, html: str) -> Markup:
        soup = BeautifulSoup(html, "html.parser")
        nodes = [node for node in soup.find_all(string=True) if _translatable(node)]
        return cls(soup, nodes)

    @property
    def texts(self) -> list[str]:
        """Each node's text without the white space around it."""
        return [node.strip() for node in self.nodes]

    def text(self) -> str:
        """All the text of the fragment, to detect its language or count its characters."""
        return " ".join(self.texts)

    def render(self, translations: list[str]) -> str:
        """The fragment with each node's text replaced by its translation. The parsed fragment
        is changed: render once."""
        if len(translations) != len(self.nodes):
            raise ValueError(f"{len(self.nodes)} texts, {len(translations)} translations")
        for node, translation in zip(self.nodes, translations, strict=True):
            lead = node[: len(node) - len(node.lstrip())]
            trail = node[len(node.rstrip()) :]
            node.replace_with(NavigableString(lead + translation + trail))
        return str(self.soup)


def _translatable(node: NavigableString) -> bool:
    if isinstance(node, PreformattedString):  # comments, CDATA, doctypes, declarations
        return False
    text = node.strip()
    if not any(char.isalpha() for char in text):
        return False
    for parent in node.parents:
        if not isinstance(parent, Tag) or isinstance(parent, BeautifulSoup):
            continue
        if parent.name in KEEP_INSIDE or parent.get("translate", "").lower() == "no":
            return False
        if "notranslate" in parent.get_attribute_list("class"):
            return False
        if parent.name == "a" and text.lower() in str(parent.get("href", "")).lower():
            return False
    return True
