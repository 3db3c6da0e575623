"""Amounts of money with their currency's symbol ("$5", "€10", "5 $", "3,50 €"): found as one
span, written the target language's way ("$5" in English, "5 $" in French), and put back with
what the model wrote around the number that stood for them (heedful.protect).

The bundled models wrote "Ça m'a coûté 5 dollars et 10." for "It cost me $5 and €10." and "It
costs 5." for "Cuesta 5 $.". Given a number, they sometimes write the currency themselves
("$100 dollars"), hours or years after it ("Ça coûte 100 heures au marché", "plus de 100 ans"),
or millions ("100 millions" for "$20 million"): ``CURRENCY_BEFORE`` and ``CURRENCY_AFTER`` find
the first, heedful.protect the second, ``scaled_money`` the third.
"""

from __future__ import annotations

import re

from heedful.textmap import Span
from heedful.written import NUMBER

MONEY = rf"[$€£¥][ \u00a0]?{NUMBER}|{NUMBER}[ \u00a0\u202f]?[$€£¥]"
MONEY_PARTS = re.compile(rf"([$€£¥]?)[ \u00a0\u202f]?({NUMBER})[ \u00a0\u202f]?([$€£¥]?)")
# what the model may write for a currency next to an amount's placeholder
CURRENCY_BEFORE = re.compile(r"[$€£¥][ \u00a0]?$")
CURRENCY_AFTER = re.compile(
    r"[ \u00a0\u202f]?(?:[$€£¥]|(?i:euros?|dollars?|d[oó]lar(?:es)?|pounds?|livres?|libras?"
    r"|yens?|yenes)(?!\w))"
)


def is_money(span: str) -> bool:
    """Whether ``span`` is an amount with its currency's symbol."""
    money = MONEY_PARTS.fullmatch(span)
    return money is not None and bool(money[1] or money[3])


def write_money(span: str, symbol: str, amount: str, target: str | None) -> str:
    """An amount (``span`` as written) with its currency's symbol as ``target`` writes it:
    before it in English ("$5", "€10"), after it and a space in the other languages ("5 $");
    where the target is not known, where the span has it."""
    if target is None:
        return span.replace(MONEY_PARTS.fullmatch(span)[2], amount)
    return f"{symbol}{amount}" if target == "en" else f"{amount} {symbol}"


def scaled_money(
    match: re.Match, span: str, translation: str, target: str | None
) -> tuple[Span, str] | None:
    """An amount's placeholder with a word for millions or billions after it in the translation
    ("100 millions" for "$20 million"), and its currency written after that word as the target
    language writes it: "20 millions de dollars", "20 millones de euros", "$20 million" (the
    bundled en -> fr model's "20 $ millions d'un an" before); None for any other."""
    scale = _SCALE.match(translation, match.end())
    parts = MONEY_PARTS.fullmatch(span) if scale and is_money(span) else None
    if parts is None or target != "en" and target not in _CURRENCY_NAMES:
        return None
    before, amount, after = parts.groups()
    start, end = match.start(), scale.end()
    if currency := CURRENCY_BEFORE.search(translation, 0, start):
        start = currency.start()  # "$100 million"
    if target == "en":
        return (start, end), f"{before or after}{amount}{scale.group()}"
    if named := _CURRENCY_AFTER_SCALE.match(translation, end):
        end = named.end()  # "100 millions de dollars": its currency is the span's
    return (start, end), f"{amount}{scale.group()} {_CURRENCY_NAMES[target][before or after]}"


_SCALE = re.compile(r" (?:millions?|milliards?|billions?|mill[oó]n|millones)(?!\w)", re.I)
# the currency written after the millions (English writes its symbol before: "$20 million")
_CURRENCY_NAMES = {
    "fr": {"$": "de dollars", "€": "d'euros", "£": "de livres", "¥": "de yens"},
    "es": {"$": "de dólares", "€": "de euros", "£": "de libras", "¥": "de yenes"},
}
_CURRENCY_AFTER_SCALE = re.compile(
    r"(?: (?:de |d'|of )?(?:dollars?|d[oó]lares|euros?|livres?|libras?|pounds?|yens?|yenes)"
    r"|[ \u00a0]?[$€£¥])(?!\w)",
    re.I,
)
