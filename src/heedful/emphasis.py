"""Markdown's emphasis in plain text, as chat apps, issue trackers and documents write it:
``**bold**``, ``__bold__``, ``*italic*``, ``_italic_``, ``~~struck~~``.

The model never read a marker ("**Negrita** y _cursiva_." -> "Negrita urry host and oxygen are
full."), so the markers are taken out, the text is translated with its word links, and each pair
of markers is put back around the target words aligned to the words it enclosed, as HTML tags
are (``heedful.markup.placement``): "**Negrita** y _cursiva_." -> "**Bold** and _italic_.".

A marker counts as Markdown does (CommonMark's flanking rules, simplified): its opening half
is followed by a character that is no space and its closing half preceded by one; an
underscore's halves stand apart from letters and digits ("snake_case_name" holds none), and so
do an asterisk's (not "2*3*4", not a list item's "* "). Code between backticks is left as it is
(``heedful.protect``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from heedful.markup.placement import Inline, place
from heedful.textmap import TextMap

_MARKERS = ("**", "__", "~~", "*", "_")  # longest first: "**" before "*"
_EMPHASIS = [  # apart from letters, digits, code and more of the same marker
    re.compile(
        rf"(?<![\w`{re.escape(m[0])}])({re.escape(m)})(?=\S)(.+?)(?<=\S)\1"
        rf"(?![\w`{re.escape(m[0])}])"
    )  # fmt: skip
    for m in _MARKERS
]
_CODE = re.compile(r"`[^`\n]+`")


@dataclass
class Marked:
    """A text with its emphasis taken out: ``plain`` goes to the model; ``nodes``: each
    emphasis's span in ``plain`` (``element``: its marker), nested as the markers are."""

    text: str
    plain: str
    nodes: list[Inline]
    to_text: TextMap  # offsets in plain -> offsets in text


def find_emphasis(text: str) -> Marked | None:
    """``text``'s emphasis taken out, or None if it holds none."""
    code = [m.span() for m in _CODE.finditer(text)]
    found: list[tuple[int, int, str]] = []  # (start, end, marker) in text, markers included
    used: set[int] = set()  # the markers' characters
    for pattern in _EMPHASIS:
        # markers found already stand apart from the others: "***x***", "**_x_**"
        view = "".join("\0" if k in used else c for k, c in enumerate(text))
        for match in pattern.finditer(view):
            (start, end), n = match.span(), len(match.group(1))
            halves = {*range(start, start + n), *range(end - n, end)}
            inside = any(c0 < end and start < c1 for c0, c1 in code)
            crossing = any(s < start < e < end or start < s < end < e for s, e, _ in found)
            if not (inside or crossing or halves & used):
                found.append((start, end, match.group(1)))
                used |= halves
    if not found:
        return None
    cuts = sorted(
        {(s, s + len(m)) for s, _, m in found} | {(e - len(m), e) for _, e, m in found}
    )  # fmt: skip
    plain, to_plain = TextMap.replacing(text, [(cut, "") for cut in cuts])
    nodes: list[Inline] = []
    open_nodes: list[tuple[int, Inline]] = []  # (end in text, node)
    for start, end, marker in sorted(found, key=lambda f: (f[0], -f[1])):
        inner = (start + len(marker), end - len(marker))
        node = Inline(to_plain.map(inner), element=marker)
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
        if node.target is None or node.target[1] <= node.target[0]:
            continue  # nowhere to go: its words are in the translation without it
        start, end = node.target
        inserts.setdefault(start, []).append(((1, depth), node.element))
        inserts.setdefault(end, []).append(((0, -depth), node.element))
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
