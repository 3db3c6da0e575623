"""Language codes: what ``--src``, ``--tgt`` and a config's ``data.src`` / ``data.tgt`` may say,
and their names.

ISO 639-1's two-letter codes, optionally with a region or script after ``-`` or ``_``
(``pt-BR``, ``zh_Hant``); a misspelt or invented code is refused rather than read as a column.
Names, and identification, are lingua's (lingua-language-detector).
"""

from __future__ import annotations

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
