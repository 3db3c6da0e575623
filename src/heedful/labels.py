"""A label of one word before a colon opening a sentence ("Warning: do not open this door."),
translated apart from its sentence and put back before the colon (as an aside that opens its
sentence: ``heedful.asides``).

The models garbled such sentences ("Apprendre la porte ne s'ouvrit pas.", "Advertencia: no
abras esta puerta." -> "Be quiet. Don't open this door.") and translate the sentence after the
colon well alone. A word alone they garble too ("Reminder" -> "Rappelle-toi", "Advertencia" ->
"Admay"), so the label is given in a sentence they know, ``FRAMES`` ("This is a reminder." ->
"C'est un rappel."), and its translation is the words its word links reach ("rappel"), with
the label's capitals: "Rappel : la bibliothèque ferme à 6 heures." A word the model never read,
or one the training text writes capitalised (a name: "Tom: I'm here."), is no label. A label of
one or two capitals ("Q:", "A:", "PS:"), which the models dropped ("Q: How old are you? A: I'm
25." -> "Quel âge as-tu ? J'ai 25 ans."), is copied as written.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from dataclasses import replace

from heedful.explain.alignment_spans import WordLink

# a sentence each model translates well that holds a label of one word (lower case), by source
# language: "This is a warning." -> "C'est un avertissement.", "Es un aviso." -> "It's a warning."
FRAMES = {"en": "This is a {}.", "es": "Es un {}.", "fr": "C'est un {}."}
# "Warning:" opening a sentence: one word, a colon, then a word, or a value ("Precio: 12,50 €")
_LABEL = re.compile(r"(?P<label>[^\W\d_]+)[ \t]?:[ \t]+(?=[^\W_]|[¿¡\"'«“(+$€£])")
_WORD = re.compile(r"\w+(?:['’-]\w+)*")
# the word English adds after an adjective the frame made a noun ("It's an important one.")
_PRO_FORM = {"en": ("one", "ones")}

LabelKind = Callable[[str], "str | None"]  # a word -> "framed", "copied" or None (no label)


def label_kinds(translator) -> LabelKind | None:
    """What a word before a colon is for ``translator``'s model: "copied" (one or two capitals:
    "Q", "PS"), "framed" (a word its training text writes in lower case: "warning") or None;
    None without the model's training words (heedful.lexicon) or a frame for its language."""
    lexicon = translator.lexicon
    if lexicon is None or translator.source_language not in FRAMES:
        return None

    def kind(word: str) -> str | None:
        if len(word) <= 2:  # "Q", "PS": as written; "Re", "re": none
            return "copied" if word.isupper() else None
        if lexicon.knows(word) and not lexicon.may_be_name(word):
            return "framed"
        return None

    return kind


def find_label(sentence: str, kind: LabelKind) -> tuple[re.Match | None, str | None]:
    """The label opening ``sentence`` (its match: ``label`` its word, the end after the colon
    and the spaces) and its kind; (None, None) if it has none, or if fewer than two words and
    no number follow it (a field's value: "Precio: 12,50 €", "Phone: 555-1234")."""
    found = _LABEL.match(sentence)
    what = kind(found["label"]) if found else None
    if what is None:
        return None, None
    value = any(c.isdigit() for c in sentence[found.end() :])
    if len(_WORD.findall(sentence, found.end())) < 2 and not value:
        return None, None
    return found, what


def translate_labels(translator, labels: list[str], options, translate_sentences: Callable):
    """Each label's ``Translation`` (None where its frame has none): the frames translated in
    one batch, their warnings kept from the user's (they would name "This is a warning.")."""
    frame = FRAMES[translator.source_language]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = translate_sentences(
            translator, [frame.format(label.lower()) for label in labels],
            [False] * len(labels), options, True,
        )  # fmt: skip
    at, target = frame.index("{}"), translator.target_language
    return [
        translated_label(label, at, best[0] if best else None, target)
        for label, best in zip(labels, found, strict=True)
    ]


def translated_label(label: str, at: int, framed, target: str | None):
    """A label's translation from its frame's (``framed``, the label at ``at`` in the frame):
    the words linked to it, in the label's capitals; the label as written if none are (None
    if the frame has no translation)."""
    if framed is None:  # the frame untranslated: the label is copied as written
        return None
    links = framed.alignment or []
    words = sorted({k.target: k.target_word for k in links if k.source[0] == at}.items())
    kept = [word.strip(".,;:!?") for _, word in words]
    while len(kept) > 1 and kept[-1].lower() in _PRO_FORM.get(target or "", ()):
        kept.pop()  # "It's an important one.": "important"
    text = " ".join(w for w in kept if w) or label
    if label.isupper() and len(label) > 1:
        text = text.upper()
    elif label[:1].isupper():
        text = text[:1].upper() + text[1:]
    link = WordLink((0, len(label)), (0, len(text)), label, text)  # the label: one link
    return replace(framed, text=text, alignment=[link], tokens=[], score=0.0, warnings=[])


def colon(target: str | None) -> str:
    """The colon after a label, as the target language writes it (French: after a space)."""
    return " :" if target == "fr" else ":"
