"""Markdown's inline markup in plain text, as chat apps, issue trackers and documents write it:
emphasis (``**bold**``, ``__bold__``, ``*italic*``, ``_italic_``, ``~~struck~~``) and links
(``[text](https://...)``).

The model never read a marker ("**Negrita** y _cursiva_." -> "Negrita urry host and oxygen are
full."; "Haz clic [aquí](https://example.com)." -> "Clic ostaquix is eager (...)"), so the
markup is taken out, the text is translated with its word links, and each pair of markers is
put back around the target words aligned to the words it enclosed, as HTML tags are
(``heedful.markup.placement``): "**Negrita** y _cursiva_." -> "**Negrita** and _cursive_.".

A marker counts as Markdown does (CommonMark's flanking rules, simplified): its opening half
is followed by a character that is no space and its closing half preceded by one; an
underscore's halves stand apart from letters and digits ("snake_case_name" holds none), and so
do an asterisk's (not "2*3*4", not a list item's "* "). An image (``![alt](src)``) is no link.
Code between backticks is left as it is (``heedful.protect``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from heedful.markup.placement import Inline, place
from heedful.protect import find_code
from heedful.textmap import TextMap

_MARKERS = ("**", "__", "~~", "*", "_")  # longest first: "**" before "*"
_EMPHASIS = [  # apart from letters, digits, code and more of the same marker
    re.compile(
        rf"(?<![\w`{re.escape(m[0])}])({re.escape(m)})(?=\S)(.+?)(?<=\S)\1"
        rf"(?![\w`{re.escape(m[0])}])"
    )  # fmt: skip
    for m in _MARKERS
]
_MARKER_CHARS = re.compile(r"[*_~\[]")
# [text](destination "title"): its text translated, "[" and "](...)" put back around it
_LINK = re.compile(r'(?<![!\\])(\[)(?=\S)[^\[\]\n]+(?<=\S)(\]\([^()\s]+(?:\s+"[^"\n]*")?\))')


@dataclass
class Marked:
    """A text with its markup taken out: ``plain`` goes to the model; ``nodes``: each pair of
    markers' span in ``plain`` (``element``: the pair, opening and closing), nested as the
    markers are."""

    text: str
    plain: str
    nodes: list[Inline]
    to_text: TextMap  # offsets in plain -> offsets in text


def find_emphasis(text: str) -> Marked | None:
    """``text``'s emphasis and links taken out, or None if it holds none."""
    if not _MARKER_CHARS.search(text):  # most texts: nothing to look for
        return None
    code = find_code(text)
    found: list[tuple[int, int, str, str]] = []  # (start, end, opening, closing) in text
    used: set[int] = set()  # the markers' characters
    for pattern in [_LINK, *_EMPHASIS]:
        # markers found already stand apart from the others: "***x***", "**_x_**"
        view = "".join("\0" if k in used else c for k, c in enumerate(text)) if used else text
        for match in pattern.finditer(view):
            (start, end), opening = match.span(), match.group(1)
            closing = text[match.start(2) : match.end(2)] if pattern is _LINK else opening
            halves = {*range(start, start + len(opening)), *range(end - len(closing), end)}
            inside = any(c0 < end and start < c1 for c0, c1 in code)
            crossing = any(s < start < e < end or start < s < end < e for s, e, *_ in found)
            if not (inside or crossing or halves & used):
                found.append((start, end, opening, closing))
                used |= halves
    if not found:
        return None
    cuts = sorted(
        {(s, s + len(o)) for s, _, o, _ in found} | {(e - len(c), e) for _, e, _, c in found}
    )  # fmt: skip
    plain, to_plain = TextMap.replacing(text, [(cut, "") for cut in cuts])
    nodes: list[Inline] = []
    open_nodes: list[tuple[int, Inline]] = []  # (end in text, node)
    for start, end, opening, closing in sorted(found, key=lambda f: (f[0], -f[1])):
        inner = (start + len(opening), end - len(closing))
        node = Inline(to_plain.map(inner), element=(opening, closing))
        while open_nodes and open_nodes[-1][0] <= start:
            open_nodes.pop()
        (open_nodes[-1][1].children if open_nodes else nodes).append(node)
        open_nodes.append((end, node))
    return Marked(text, plain, nodes, to_plain.inverse())


def with_emphasis(marked: Marked, translation, alignments: bool):
    """The ``Translation`` of ``marked.plain`` (with its links) with the markers put back around
    the aligned words; its links (kept if ``alignments``) index ``marked.text`` and the new
    text."""
    links = translation.alignment or []
    pairs = [(k.source, k.target) for k in links]
    place(marked.nodes, marked.plain, translation.text, pairs)
    # position -> (order, marker): closing markers first, the inner first, then opening ones,
    # the outer first ("**_x_**")
    inserts: dict[int, list[tuple[tuple[int, int], str]]] = {}
    for depth, node in _walk(marked.nodes):
        (opening, closing) = node.element
        if node.target is None or node.target[1] <= node.target[0]:
            if node.target is not None and closing.startswith("]("):  # a link keeps its URL
                at, text = node.target[0], marked.plain[node.source[0] : node.source[1]]
                before = " " if at and not translation.text[at - 1].isspace() else ""
                after = " " if translation.text[at : at + 1].isalnum() else ""
                link = before + opening + text + closing + after
                inserts.setdefault(at, []).append(((0, 1), link))
            continue  # emphasis with nowhere to go: its words are in the translation without it
        start, end = node.target
        inserts.setdefault(start, []).append(((1, depth), opening))
        inserts.setdefault(end, []).append(((0, -depth), closing))
    replacements = [
        ((at, at), "".join(marker for _, marker in sorted(found)))
        for at, found in sorted(inserts.items())
    ]
    text, to_new = TextMap.replacing(translation.text, replacements)
    moved = None
    if alignments:
        moved = [
            k._replace(source=marked.to_text.map(k.source), target=to_new.map(k.target))
            for k in links
        ]
    return replace(translation, text=text, alignment=moved)


def _walk(nodes: list[Inline], depth: int = 0):
    for node in nodes:
        yield depth, node
        yield from _walk(node.children, depth + 1)
