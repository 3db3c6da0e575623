"""Seeing attention: words from subword pieces (``words``), one labelled kind of attention
(``views``), tables in the explainer's form (``tables``), PNG heatmaps (``heatmaps``), an offline
interactive page (``page``), word alignments and their error rate (``align``), and what each
head does on data (``heads``).

    from heedful.explain import to_words, views
    from heedful.explain.tables import format_table
    from heedful.translator import Translator

    attended = Translator.load("models/es-en").attend("El gato negro duerme en el jardín.")
    cross = views(to_words(attended))["cross"]
    print(format_table(cross, layer=cross.n_layers - 1))  # black → negro (0.81), gato (0.12)
"""

from heedful.explain.views import AttentionView, views
from heedful.explain.words import to_words

__all__ = ["AttentionView", "to_words", "views"]
