"""Language codes: what ``--src``, ``--tgt`` and a config's ``data.src`` / ``data.tgt`` may say,
and their names.

ISO 639-1's two-letter codes, optionally with a region or script after ``-`` or ``_``
(``pt-BR``, ``zh_Hant``); a misspelt or invented code is refused rather than read as a column.
Names, and identification, are lingua's (lingua-language-detector).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

ISO_639_1 = frozenset(
    """
aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy da
de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz
ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln
lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi
pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti
tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu
""".split()
)


def is_language_code(code: str) -> bool:
    """Whether ``code`` is an ISO 639-1 code (``es``), maybe with a subtag (``pt-BR``)."""
    base = code.replace("_", "-").split("-")[0]
    return base.lower() in ISO_639_1 and base == base.lower()


def check_language_code(code: str, flag: str) -> str:
    """``code``, or a ValueError naming ``flag`` (e.g. ``--src``) when it is no language code."""
    if not is_language_code(code):
        raise ValueError(
            f"{flag} {code}: not a language code; use ISO 639-1's two letters, e.g. en, es, de"
        )
    return code


def lingua_language(code: str):
    """The lingua ``Language`` of an ISO 639-1 code, or None if lingua has none."""
    from lingua import IsoCode639_1, Language

    try:
        return Language.from_iso_code_639_1(IsoCode639_1.from_str(code.lower()))
    except (ValueError, AttributeError):
        return None


def language_name(code: str) -> str:
    """ "es" -> "Spanish"; a code lingua does not know names itself."""
    language = lingua_language(code)
    return code if language is None else language.name.title()


class Detector:
    """Which of ``codes`` a text is in (lingua: character n-gram models, accurate on short
    texts). Built on first use (loading lingua's models takes a moment and some memory), then
    shared: lingua's detector is safe to call from threads."""

    def __init__(self, codes: Iterable[str]):
        self.codes = sorted(set(codes))
        self._known = {c: lang for c in self.codes if (lang := lingua_language(c)) is not None}
        self._detector = None
        self._lock = threading.Lock()

    def detect(self, text: str) -> list[dict[str, float | str]]:
        """[{"language": code, "confidence": 0 to 100}, ...], the likeliest first, as
        LibreTranslate's /detect answers; an empty list when no language is recognised (no
        letters, or a single code lingua does not know)."""
        if not self._known:
            return []
        if len(self._known) == 1:  # the only choice, if the text is in some language
            (code, language), *_ = self._known.items()
            found = self._built().detect_language_of(text)
            return [] if found is None else [{"language": code, "confidence": 100.0}]
        values = self._built().compute_language_confidence_values(text)
        codes = {language: code for code, language in self._known.items()}
        return [
            {"language": codes[v.language], "confidence": round(100 * v.value, 1)}
            for v in values
            if v.value > 0
        ]

    def likeliest(self, texts: list[str]) -> list[tuple[str, float] | None]:
        """Each text's likeliest language and lingua's confidence in it (0 to 1), all texts in
        one call over lingua's threads; None where none is recognised, or with fewer than two
        codes to choose from."""
        if len(self._known) < 2:
            return [None] * len(texts)
        codes = {language: code for code, language in self._known.items()}
        found = self._built().compute_language_confidence_values_in_parallel(texts)
        return [(codes[v[0].language], v[0].value) if v else None for v in found]

    def _built(self):
        from lingua import LanguageDetectorBuilder

        with self._lock:
            if self._detector is None:
                languages = list(self._known.values())
                self._detector = LanguageDetectorBuilder.from_languages(*languages).build()
            return self._detector
