"""Numbers as each language writes them: decimal marks and thousands ("1.234,50" in Spanish is
"1,234.50" in English), ordinals ("2nd", "2e", "2.º"), times on the 12-hour clock written on the
24-hour one ("3pm" -> "15"), and English decades ("1990s" -> "années 1990"). heedful.protect
writes the spans it keeps from the model with these.

Two numbers' forms the training text hardly wrote are given to the model as it wrote them
(heedful.real_input.prepare): an English compound of a number and words with spaces ("a
12-year-old boy" -> "a 12 year old boy", ``spaced_compounds``) and a Spanish range of hours
with its "desde" ("de 7 a 10" -> "desde las 7 hasta las 10", ``spanish_hours``)."""

from __future__ import annotations

import difflib
import re

from heedful.textmap import Span

# a number as written, with its sign and the marks between its groups: "-5", "1.234,50", "+34
# 612", "8:45", "9:00–17:00"
NUMBER = r"[-\u2212+]?\d+(?:[ \u00a0\u202f.,:/\u2013-]\d+)*"

# (decimal mark, thousands separators read, thousands separator written); Spanish phone numbers
# are grouped with spaces ("612 345 678"), so a space is read as grouping in French only
NUMBER_MARKS = {
    "en": (".", ",", ","),
    "es": (",", ".", "."),
    "fr": (",", " \u00a0\u202f", "\u202f"),
    "de": (",", ".", "."),
    "it": (",", ".", "."),
    "pt": (",", ".", "."),
}


# the word before an English decade's number in French and Spanish ("années 1990")
DECADE_WORD = {"fr": "années", "es": "años"}
# what follows an English ordinal before a noun ("the 2nd floor"): a word that is no preposition,
# conjunction or common verb ("the 3rd of", "finished 2nd in", "the 3rd is"); heedful.protect
# reads an ordinal elsewhere after "the" as a day of the month, heedful.ordinals gives one before
# a noun to the model as a word
BEFORE_A_NOUN = re.compile(r" (?!(?:of|and|or|at|in|on|to|is|was|are|were|will|has|had)\b)[^\W\d_]")


# an English compound of a number and words ("25-year-old", "3-bedroom", "10-minute"): the
# bundled en -> fr model copied it whole ("Une femme de 12-year-old fut arrêtée.", "un
# 3-bedroom maison") and translates it with spaces ("Une femme de 12 ans a été arrêtée.", "une
# maison de 12 chambres"); an ordinal's too ("a 19th-century house")
_COMPOUND = re.compile(r"(?<![\w-])\d+(?:st|nd|rd|th)?(?:-[^\W\d_]+)+(?![\w-])")


def spaced_compounds(text: str, language: str | None) -> str:
    """``text`` with the hyphens of its English number-and-word compounds as spaces ("a
    12-year-old boy" -> "a 12 year old boy"; lengths, so offsets, kept); only words in lower
    case ("B-52s" and "COVID-19" stay as written)."""
    if language != "en" or "-" not in text:
        return text

    def spaced(match: re.Match) -> str:
        compound = match.group()
        return compound.replace("-", " ") if compound.islower() else compound

    return _COMPOUND.sub(spaced, text)


def spanish_clock_times(
    text: str, language: str | None, target: str | None = None
) -> list[tuple[Span, str]]:
    """A Spanish time said with its half or quarter after "la" / "las" ("a las 9 y media", "las
    3 y cuarto", "las 9 menos cuarto"), each as its digits ("9:30", "3:15", "8:45"): the
    bundled es -> en model wrote "Son las 3 y media." as "It's 3-thirty.", "a las 9 y media"
    in a sentence as "at 9-thirty", and "a las 9 menos cuarto" as "at a quarter past 9". An
    hour in words ("las ocho y cuarto") is written in English words ("a quarter past eight",
    "half past nine", "a quarter to ten"; in digits into another language): the model wrote
    "a las ocho y cuarto" as "at eight and room" and "a las diez menos cuarto" as "at a
    quarter past ten"."""
    lowered = text.lower()
    if language != "es" or "cuarto" not in lowered and "media" not in lowered:
        return []
    out = []
    for m in _SPANISH_CLOCK.finditer(text):
        written, part = m["hour"].lower(), m["part"].lower()
        hour = _SPANISH_HOURS[written] if written in _SPANISH_HOURS else int(written)
        if part == "menos cuarto":
            hour, minutes = hour - 1 or 12, 45
        else:
            minutes = 30 if part.endswith("media") else 15
        if written in _SPANISH_HOURS and target == "en":
            said = {15: "a quarter past {}", 30: "half past {}", 45: "a quarter to {}"}[minutes]
            said = said.format(_ENGLISH_HOURS[(hour + (minutes == 45)) % 12])
            out.append((m.span(), said.upper() if m.group().isupper() else said))
        else:
            out.append((m.span(), f"{hour}:{minutes:02d}"))
    return out


def is_said_time(written: str) -> bool:
    """Whether ``written`` is a time as ``spanish_clock_times`` says it in English ("a quarter
    past eight")."""
    return _SAID_TIME.fullmatch(written) is not None


_SAID_TIME = re.compile(r"(?:a quarter (?:past|to)|half past) [a-z]+", re.IGNORECASE)
_SPANISH_HOURS = {
    word: hour
    for hour, word in enumerate(
        "una dos tres cuatro cinco seis siete ocho nueve diez once doce".split(), start=1
    )
}
_ENGLISH_HOURS = "twelve one two three four five six seven eight nine ten eleven".split()
_SPANISH_CLOCK = re.compile(
    r"(?:(?<=\bla )|(?<=\blas ))"
    rf"(?P<hour>1[0-9]|2[0-4]|0?[1-9]|{'|'.join(_SPANISH_HOURS)}) "
    r"(?P<part>y media|y cuarto|menos cuarto)(?!\w)",
    re.IGNORECASE,
)


# a Spanish range of hours, "de 7 a 10", "de las 9 a las 14 h": the bundled es -> en model
# wrote "served in 7 to 10", "I work for 8 to 3", "at 9:00 to 14:00", and "from 7 to 10" for
# "desde las 7 hasta las 10"; not a range of other things ("de 7 a 10 años"). Three digits:
# a placeholder's (heedful.protect), given for "9:00" or "14 h"
_HOUR = r"(?:las )?\d{1,3}(?::\d\d)?"
_HOURS_END = r"[ \u00a0]*(?:[.,;:!?)]|$|h\b|hs?\b|horas?\b|de la (?:mañana|tarde|noche)\b)"
_HOURS_RANGE = re.compile(  # also one before another ("de 9 a 14 y de 17 a 20 h")
    rf"(?<![\w])de (?:las )?(?P<first>\d{{1,3}}(?::\d\d)?) a (?:las )?(?P<last>\d{{1,3}}(?::\d\d)?)"
    rf"(?={_HOURS_END}| y de {_HOUR} a {_HOUR}{_HOURS_END})"
)


# "entre las 9 y las 10" (hours by their "las"): the model wrote "between 9: 10 o'clock", "The
# store opens between 9: 13 h.", "by 12:15"; "desde las 9 hasta las 10" it reads "from 9 to 10".
# Not before "horas" or "de la tarde", which it read with "between" ("from 14 to 16 hours")
_BETWEEN_HOURS = re.compile(
    r"(?<!\w)(?P<between>[Ee]ntre) (?P<the>las?) (?P<first>\d{1,3}(?::\d\d)?) y (?P<the2>las?) "
    r"(?P<last>\d{1,3}(?::\d\d)?)(?![\d:]| horas\b| de la (?:mañana|tarde|noche)\b)"
)


def spanish_hours(text: str, language: str | None) -> str:
    """``text`` with a Spanish range of hours given as "desde las 7 hasta las 10" (the model's
    reading of "de 7 a 10" lost the "from"; of "entre las 9 y las 10", the "and")."""
    if language != "es" or " a " not in text and "ntre la" not in text:
        return text
    if "ntre la" in text:
        text = _BETWEEN_HOURS.sub(_from_until, text)
    return _HOURS_RANGE.sub(r"desde las \g<first> hasta las \g<last>", text)


def _from_until(between: re.Match) -> str:
    since = "Desde" if between["between"][0].isupper() else "desde"
    first, last = between["first"], between["last"]
    return f"{since} {between['the']} {first} hasta {between['the2']} {last}"  # "la 1"


def localise_number(span: str, source: str | None, target: str | None) -> str:
    """A number written the ``source`` language's way, with a decimal mark or grouped by
    thousands, written the ``target`` one's ("1.234,50" -> "1,234.50" from es to en); anything
    else (a phone number, a code) as it is."""
    if source not in NUMBER_MARKS or target not in NUMBER_MARKS or source == target:
        return span
    if span[:1] in "-\u2212" and span[1:2].isdigit():  # a negative number: its sign kept
        return span[0] + localise_number(span[1:], source, target)
    mark, grouping, _ = NUMBER_MARKS[source]
    groups = f"[{re.escape(grouping)}]"
    number = rf"(\d{{1,3}}(?:{groups}\d{{3}})+|\d+)(?:{re.escape(mark)}(\d+))?"
    match = re.fullmatch(number, span)
    if match is None or match.group(1).isdigit() and match.group(2) is None:
        return span
    to_mark, _, to_group = NUMBER_MARKS[target]
    whole = re.sub(groups, "", match.group(1))
    if whole != match.group(1):  # it was grouped: group it again
        whole = f"{int(whole):,}".replace(",", to_group)
    return whole if match.group(2) is None else f"{whole}{to_mark}{match.group(2)}"


def write_ordinal(ordinal: str, target: str | None, *, day: bool = False) -> str:
    """An ordinal number written the ``target`` language's way ("2nd" -> "2e" in French, "2º" ->
    "2nd" in English, "1re" -> "1.ª" in Spanish; feminine where the source's is); as it is for
    another language. A ``day`` of the month ("on the 17th") is a plain number in French and
    Spanish ("le 17"), but the first in French ("le 1er")."""
    number = int(re.match(r"\d+", ordinal).group())
    if day and target in ("fr", "es") and not (target == "fr" and number == 1):
        return str(number)
    feminine = ordinal.endswith(("ª", "a", "re", "ère", "ere", "nde", "era"))
    if target == "en":
        return f"{number}{english_suffix(number)}"
    if target == "fr":
        return f"{number}{('re' if feminine else 'er') if number == 1 else 'e'}"
    if target == "es":
        return f"{number}.{'ª' if feminine else 'º'}"
    return ordinal


def english_suffix(number: int) -> str:
    """An English ordinal's suffix: 1 -> "st", 2 -> "nd", 3 -> "rd"; 11-13 and the rest "th"."""
    if number % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")


def on_24_hour_clock(clock: str) -> str:
    """A 12-hour time as the 24-hour clock writes it: "3pm" -> "15", "10:30 a.m." -> "10:30",
    "12am" -> "0"."""
    hour, minutes = re.match(r"(\d+)(:\d\d)?", clock).groups()
    afternoon = re.sub(r"[\s.]", "", clock.lower()).endswith("pm")  # "3pm", "3 p. m."
    hour = int(hour) % 12 + (12 if afternoon else 0)
    return f"{hour}{minutes or ''}"


def write_decade(decade: str, target: str) -> str:
    """An English decade's number (its "s" after it) written the ``target`` language's way:
    "1990" -> "années 1990" (fr), "años 1990" (es), "'80" -> "années 80"."""
    return DECADE_WORD[target] + " " + decade.lstrip("'’")


def worded_numbers(text: str, language: str | None) -> list[tuple[Span, str]]:
    """Numbers written in words of more than one word ("mil quinientas", "thirty-five", "two
    thousand"), each span with its digits (text2num's ``alpha2digit``): kept from the model as
    numbers written in digits are. The bundled models wrote "Hay mil quinientas personas." as
    "There are one thousand and five people." and "I am thirty-five years old." as "J'ai trente
    ans."; a number of one word ("dos", "veinte", "mil") stays the model's, as do millions
    (text2num wrote "Medio millón" as "Medio 1000000"; half a million is heedful.halves')."""
    pattern = _NUMBER_WORDS.get(language or "")
    if pattern is None or len(pattern.findall(text)) < 2:
        return []  # most sentences: fewer than two number words ("thirty-five" has two)
    from text_to_num import alpha2digit

    converted = alpha2digit(text, language)
    if converted == text:
        return []
    words, digits_said = list(re.finditer(r"\S+", text)), converted.split()
    matcher = difflib.SequenceMatcher(a=[w.group() for w in words], b=digits_said, autojunk=False)
    out = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        said = [w.group() for w in words[i1:i2]]
        if op != "replace" or j2 - j1 != 1 or (len(said) < 2 and "-" not in said[0]):
            continue
        number = re.fullmatch(r"(\d+)([^\w]*)", digits_said[j1])
        if number is None or _MILLION.search(" ".join(said)):
            continue
        start, end = words[i1].start(), words[i2 - 1].end() - len(number.group(2))
        out.append(((start, end), number.group(1)))
    return out


def grouped(digits: str, target: str | None) -> str:
    """A whole number of five digits or more grouped by thousands the ``target`` language's way
    ("200000" -> "200,000", "200.000", "200 000"); a shorter one, or for another language, as it
    is."""
    if len(digits) < 5 or target not in NUMBER_MARKS:
        return digits
    return f"{int(digits):,}".replace(",", NUMBER_MARKS[target][2])


# the words of numbers, a look before text2num's (one word or none: nothing to do)
_NUMBER_WORDS = {
    lang: re.compile(rf"\b(?:{words})\b", re.IGNORECASE)
    for lang, words in {
        "es": "uno|una|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|trece|catorce"
        "|quince|dieci\\w+|veinte|veinti\\w+|treinta|cuarenta|cincuenta|sesenta|setenta|ochenta"
        "|noventa|cien|ciento|\\w+cient[oa]s|quinient[oa]s|mil|millón|millones",
        "en": "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\\w+teen|twenty"
        "|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million",
        "fr": "un|une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|treize|quatorze"
        "|quinze|seize|vingt|trente|quarante|cinquante|soixante|cent|cents|mille|million",
    }.items()
}
_MILLION = re.compile(r"mill(?:ón|ones|ion)", re.IGNORECASE)
