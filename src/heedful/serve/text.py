"""What counts as nothing to translate: a text of white space and invisible characters only.

A model given only a zero-width space (U+200B) or a zero-width joiner (U+200D) sees an unknown
piece and invents a sentence ("It's gone."); such a text is answered "" instead.
"""

from __future__ import annotations

import unicodedata

# Unicode's Default_Ignorable_Code_Point characters outside the categories checked below (Cf,
# Cc, Z*): fillers and variation selectors, which render as nothing.
_IGNORABLE = (
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0}
    | set(range(0x180B, 0x1810))
    | set(range(0xFE00, 0xFE10))
    | set(range(0xE0100, 0xE01F0))
)


def is_invisible(char: str) -> bool:
    """White space, a control or format character (zero-width space, joiners, marks of
    direction, soft hyphen, byte-order mark), or another default-ignorable character."""
    return (
        char.isspace()
        or unicodedata.category(char) in ("Cc", "Cf", "Zs", "Zl", "Zp")
        or ord(char) in _IGNORABLE
    )


def is_blank(text: str) -> bool:
    """Whether ``text`` shows nothing at all: empty, or only invisible characters."""
    return all(map(is_invisible, text))
