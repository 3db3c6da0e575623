"""Seeing attention: words from subword pieces, tables, heatmaps, an interactive page,
alignments from cross-attention, and what each head does.

    attended = Translator.load("models/es-en").attend("El gato negro duerme en el jardín.")
    words = to_words(attended)                       # pieces merged into words
    view = views(words)["cross"]                     # one kind, labelled
    print(format_table(view, layer=view.n_layers - 1))   # black → negro (0.81), gato (0.12)
"""

from heedful.explain.views import AttentionView, views
from heedful.explain.words import to_words

__all__ = ["AttentionView", "to_words", "views"]
