"""Markup that survives translation: HTML in, HTML out, the tags around the right words.

    >>> translate_html(translator, ['<p>Haz clic <a href="/x">aquí</a> para seguir.</p>'])
    ['<p>Click <a href="/x">here</a> to continue.</p>']

Each block's text is translated as whole sentences, its inline tags taken out, and the tags are
put back around the target words aligned to the words they enclosed (``heedful.markup.document``
parses and writes the HTML, ``heedful.markup.placement`` places the tags). Placeholders such as
``{name}`` and ``%s`` are kept from the model by the translator (``heedful.protect``).
``heedful translate --format html`` and the server's ``format=html`` (both APIs) call this.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from heedful.markup.document import Markup

__all__ = ["Markup", "render_all", "translate_html"]


def translate_html(translator: Any, fragments: list[str], options: Any = None) -> list[str]:
    """Each HTML fragment translated by ``translator`` (a ``Translator``), all its blocks in one
    batch with those of the other fragments; ``options``: its ``DecodingOptions`` (the best
    translation is used)."""
    from heedful.decoding import DecodingOptions

    markups = [Markup.parse(fragment) for fragment in fragments]
    texts = [text for markup in markups for text in markup.texts]
    options = replace(options or DecodingOptions(), n_best=1)
    found = translator.translate_n_best(texts, options=options, alignments=True) if texts else []
    return render_all(markups, found)


def render_all(markups: list[Markup], found: list[list[Any]]) -> list[str]:
    """Each fragment written with its texts' translations: ``found`` holds every fragment's
    texts' n-best lists (with word links), one fragment after another; the best is used."""
    out, at = [], 0
    for markup in markups:
        n = len(markup.segments)
        out.append(markup.render([options[0] for options in found[at : at + n]]))
        at += n
    return out
