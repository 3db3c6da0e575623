"""Languages by ISO 639-1 code: their English names, and which one a text is written in.

Identification is lingua's (lingua-language-detector: character n-gram models of 75 languages,
accurate on short texts), limited to the languages the server's models read or write, as
LibreTranslate limits its own to the languages it has.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from lingua import LanguageDetector, LanguageDetectorBuilder

from heedful.languages import lingua_language


class Detector:
    """Which of ``codes`` a text is in. Built on first use (loading lingua's models takes a
    moment and some memory), then shared: lingua's detector is safe to call from threads."""

    def __init__(self, codes: Iterable[str]):
        self.codes = sorted(set(codes))
        self._known = {c: lang for c in self.codes if (lang := lingua_language(c)) is not None}
        self._detector: LanguageDetector | None = None
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

    def _built(self) -> LanguageDetector:
        with self._lock:
            if self._detector is None:
                languages = list(self._known.values())
                self._detector = LanguageDetectorBuilder.from_languages(*languages).build()
            return self._detector
