"""Names in a sentence that the model would garble, for heedful.protect to keep from it: words
mixing letters the model reads with letters it does not, capitalised words its vocabulary cuts
into many pieces (without a word list; with one, heedful.lexicon finds the names it never read
or read too seldom, with ``name_runs``, ``first_letter`` and ``people`` from here: Faker's lists
of people's names), a title with the name after it ("Sr. Pérez", "el Sr. Pérez"), words in
mixed case ("YouTube", "iOS"), and the titles of works quoted in English's Title Case ("The Lord
of the Rings")."""

from __future__ import annotations

import importlib
import re
import zoneinfo
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass
from functools import cache

import roman

from heedful.dates import MONTHS, WEEKDAYS
from heedful.textmap import Span


def unreadable_letters(text: str, unknown: Callable[[str], bool]) -> list[Span]:
    """Words that mix letters the model reads with letters it does not (``unknown(c)``):
    "Jürgen" for a vocabulary without "ü" would come out "J ⁇ rgen". (A word of nothing but
    unknown letters is carried past the model instead: ``heedful.unknown_words``.)"""
    out = []
    for match in re.finditer(r"[^\W\d_]+(?:['-][^\W\d_]+)*", text):
        flags = [unknown(c) for c in match.group()]
        if any(flags) and not all(flags):
            out.append(match.span())
    return out


def rare_names(text: str, pieces: Callable[[str], int], *, least: int = 3) -> list[Span]:
    """Capitalised words whose spelling and lower-case spelling the vocabulary both cuts into
    ``least`` pieces or more: names it has not learned, which the model garbles ("Johannes
    Heikkinen" -> "Johannesikkinen"); a common word at the start of a sentence
    ("Desafortunadamente") is known in lower case. A name takes in the capitalised words next
    to it that the vocabulary does not know as one piece in lower case ("Erica Voinea"), not
    "Ayer" ("Ayer Kwame vino."). The first word of the sentence counts only within such a run
    of two or more: alone it is as often a rare verb ("Cuéntame", "Manténgase") as a name."""
    words = [
        m for m in re.finditer(r"[^\W\d_]+(?:-[^\W\d_]+)*", text)
        if m.group()[0].isupper() and m.group()[1:].islower()
    ]  # fmt: skip
    rare = [pieces(m.group()) >= least and pieces(m.group().lower()) >= least for m in words]
    known = [pieces(m.group().lower()) < 2 for m in words]
    return name_runs(text, words, rare, [not k for k in known], lone_opening=False)


def titled_names(
    text: str,
    titles: Collection[str],
    language: str | None = None,
    name_word: Callable[[str], bool] | None = None,
    people: People | None = None,
) -> list[Span]:
    """A title and the capitalised words after it, as one name: "Sr. Pérez", "Dr. Smith",
    "Dra. María López" (``titles``: lowercased, without the full stop; heedful.segment.titles).
    The bundled models garble most titles ("con el Sr. Pérez" -> "with the Sr. I'll return",
    "with Dr. Smith" -> "avec le verre"); kept from the model, the name comes back with its
    title written the target language's way (``write_title``). A title of ``language``'s
    ``PERSON_TITLES`` counts anywhere, also without its full stop ("Miss Smith", "Mme Dupont"),
    and alone where another title and its name follow ("Mr. and Mrs. Brown": "Mr." and "Mrs.
    Brown"); any other only after the text's first word, where it may be a sentence of its own
    that the segmenter left with the next ("Para. Hace cosquillas.": "para" is a Spanish
    abbreviation). With ``name_word``, for a text in capitals, where every word looks like a
    name: only a person's title counts, and the words after it that ``name_word`` says may be
    a name ("EL SR. GARCÍA LLEGÓ TARDE.": "EL SR. GARCÍA"; the model read "llegó" in lower
    case), the first word after a title with its full stop ("DR. BROWN"), or a name of
    ``people`` after one of its first names ("DR. JOHN BROWN")."""
    out = []
    opening = first_letter(text)
    person = PERSON_TITLES.get(language or "", {})
    lower = _LOWER_CASE_TITLES.get(language or "", set())
    capitals = name_word is not None
    couples = _AND_TITLE_ANY_CASE if capitals else _AND_TITLE  # "MR. AND MRS. BROWN"
    articles = _ARTICLE_BEFORE.get(language or "")

    def in_name(word: str, before: str, dot: str) -> bool:
        if name_word is None:
            return _POSSESSIVE.sub("", word).istitle()  # "Smith's" of "Mr. Smith's car"
        if name_word(word) or dot and not before:  # "DR. BROWN": the word after "DR."
            return True
        first = people is not None and before.capitalize() in people.first
        return first and word.capitalize() in people.names

    for title in _TITLE.finditer(text):
        word, dot = title.group(1), title.group(2)
        other = word.istitle() and dot and len(word) > 1 and word.lower() in titles
        other = other and not capitals and title.start() > opening
        if not (_is_person_title(word, dot, person, capitals, lower) or other):
            continue
        article = articles.search(text, 0, title.start()) if articles else None
        start = article.start() if article else title.start()  # "el Sr. Pérez"
        couple = couples.match(text, title.end())
        if couple and _is_person_title(couple.group(1), couple.group(2), person, capitals):
            out.append((start, title.end()))  # "Mr." of "Mr. and Mrs. Brown"
            continue
        end, before = title.end(), ""
        while (name := _NAME_WORD.match(text, end)) and in_name(name.group(1), before, dot):
            end, before = name.end(), name.group(1)
        if end > title.end():
            out.append((start, end))
    return out


# Titles written before a person's name, in each language, and what each one is: the bundled
# models read almost none (Tatoeba has "Sr." once), so a title is kept from the model with its
# name and written again in the target language ("Sr. Pérez" -> "Mr. Pérez", "M. Pérez").
PERSON_TITLES = {
    "en": {"mr": "mister", "mrs": "missus", "ms": "ms", "miss": "miss", "dr": "doctor",
           "prof": "professor", "mister": "mister", "doctor": "doctor", "professor": "professor",
           "capt": "captain", "captain": "captain", "aunt": "aunt", "uncle": "uncle"},
    "es": {"sr": "mister", "sra": "missus", "srta": "miss", "dr": "doctor", "dra": "doctor",
           "prof": "professor", "profa": "professor", "señor": "mister", "señora": "missus",
           "señorita": "miss", "doctor": "doctor", "doctora": "doctor", "profesor": "professor",
           "profesora": "professor", "capitán": "captain"},
    "fr": {"m": "mister", "mme": "missus", "mlle": "miss", "dr": "doctor", "pr": "professor",
           "monsieur": "mister", "madame": "missus", "mademoiselle": "miss", "docteur": "doctor",
           "professeur": "professor", "capitaine": "captain", "tante": "aunt", "oncle": "uncle"},
}  # fmt: skip
# the titles written out in full: the models read the words but not the title ("The teacher
# García", "Smith nous a donné", "J'ai parlé à Professor Dubois"). Spanish and French write them
# in lower case before a name ("el profesor García", "le docteur Martin"), English capitalises
# its own ("Professor Smith")
SPELT_OUT_TITLES = {
    "en": {"mister", "doctor", "professor", "captain", "aunt", "uncle"},
    "es": {"señor", "señora", "señorita", "doctor", "doctora", "profesor", "profesora", "capitán"},
    "fr": {"monsieur", "madame", "mademoiselle", "docteur", "professeur", "capitaine", "tante",
           "oncle"},
}  # fmt: skip
_LOWER_CASE_TITLES = {lang: SPELT_OUT_TITLES[lang] for lang in ("es", "fr")}
_WRITTEN_TITLES = {
    "en": {"mister": "Mr.", "missus": "Mrs.", "ms": "Ms.", "miss": "Miss", "doctor": "Dr.",
           "professor": "Prof.", "captain": "Captain", "aunt": "Aunt", "uncle": "Uncle"},
    "es": {"mister": "Sr.", "missus": "Sra.", "ms": "Sra.", "miss": "Srta.", "doctor": "Dr.",
           "professor": "Prof.", "captain": "capitán", "aunt": "tía", "uncle": "tío"},
    "fr": {"mister": "M.", "missus": "Mme", "ms": "Mme", "miss": "Mlle", "doctor": "Dr",
           "professor": "Pr", "captain": "capitaine", "aunt": "Tante", "uncle": "Oncle"},
}  # fmt: skip
# a title written out in full is written out in the target language too, where it differs from
# the short one: "el profesor García" -> "Professor García", "Professor Smith" -> "professeur"
_WRITTEN_IN_FULL = {
    "en": {"professor": "Professor"},
    "es": {"professor": "profesor"},
    "fr": {"professor": "professeur"},
}
# a woman's title (its meaning, or its spelling where the meaning is shared): a name placeholder
# for her is a woman's, for the words that agree with it ("Mme Smith est fatiguée")
FEMININE_TITLES = {"missus", "ms", "miss", "aunt", "dra", "profa", "doctora", "profesora"}


def write_title(name: str, source: str | None, target: str | None) -> str:
    """``name`` (a span of ``titled_names``, or any name) with its opening title written the
    ``target`` language's way: "Sr. Pérez" -> "Mr. Pérez" (en), "M. Pérez" (fr), "el Sr. Pérez"
    -> "Mr. Pérez" (the article goes: "The Mr. García arrived late."); as it is if it opens
    with no title of ``source``'s, or either language has no titles here."""
    written = _WRITTEN_TITLES.get(target or "")
    name = _without_article(name, source) if written else name
    opening = _opening_title(name, source)
    if not written or opening is None:
        return name
    title, meaning = opening
    in_full = title.group(1).lower() in SPELT_OUT_TITLES.get(source or "", ())  # not "Prof."
    if in_full and not name[title.end() :].strip():
        return name  # "Mister, can you help me?": a word, with no name to be the title of
    written_title = written[meaning]
    if in_full:
        written_title = _WRITTEN_IN_FULL.get(target or "", {}).get(meaning, written_title)
    written_title = written_title.upper() if name.isupper() else written_title
    return written_title + name[title.end() :]  # "SR. GARCÍA" -> "MR. GARCÍA"


def written_titles(language: str | None) -> frozenset[str]:
    """The titles ``write_title`` writes in ``language``, without their full stop ("Mrs",
    "Professor"): a sentence opening with one opens with a name."""
    written = {*_WRITTEN_TITLES.get(language or "", {}).values()}
    written |= {*_WRITTEN_IN_FULL.get(language or "", {}).values()}
    return frozenset(title.rstrip(".") for title in written)


def has_title(name: str, source: str | None) -> bool:
    """Whether ``name`` opens with a person's title ("Sr. Pérez", "Mrs. Smith", "Dr. Gil")."""
    return _opening_title(name, source) is not None


def feminine_title(name: str, source: str | None) -> bool:
    """Whether ``name`` opens with a title of a woman ("Sra. Ruiz", "Mrs. Smith", "Dra. Gil")."""
    opening = _opening_title(name, source)
    return opening is not None and not FEMININE_TITLES.isdisjoint(
        {opening[0].group(1).lower(), opening[1]}
    )


def _opening_title(name: str, language: str | None) -> tuple[re.Match, str] | None:
    """The person's title ``name`` opens with in ``language``, and what it is ("mister")."""
    person = PERSON_TITLES.get(language or "", {})
    title = _TITLE.match(_without_article(name, language))
    capitals = name.isupper()  # "SR. GARCÍA"; not "MS" of "MS Word"
    lower = _LOWER_CASE_TITLES.get(language or "", set())
    if title is None or not _is_person_title(
        title.group(1), title.group(2), person, capitals, lower
    ):
        return None
    return title, person[title.group(1).lower()]


def _without_article(name: str, language: str | None) -> str:
    """``name`` without the article a title takes before it in ``language`` ("el Sr. Pérez")."""
    opening = _ARTICLE_OPENING.get(language or "")
    found = opening.match(name) if opening else None
    return name[found.end() :] if found else name


def _is_person_title(
    word: str, dot: str, person: dict[str, str], capitals: bool = False,
    lower: Collection[str] = (),
) -> bool:  # fmt: skip
    # "M." needs its full stop ("M" alone is a letter); the others may go without ("Dr Smith");
    # in capitals only in a text in capitals ("SR. GARCÍA"; "MS Word" is no "Ms. Word"); in
    # lower case those of ``lower`` written out in full ("el señor Tanaka")
    cased = word.istitle() or capitals and word.isupper() or word in lower and not dot
    return cased and word.lower() in person and bool(dot or len(word) > 1)


# initials before a name ("J.K. ", "J. R. R. "), and a middle one between two names ("W. ")
_INITIALS_BEFORE = re.compile(r"(?<![\w.])(?:[A-Z]\.[ \u00a0]?)+$")
_MIDDLE_INITIALS = re.compile(r"(?<![\w.])([A-Z][a-z]+) (?:[A-Z]\. ?)+[A-Z][a-z]+(?![\w.])")


def with_initials(text: str, names: list[Span], people: People) -> list[Span]:
    """``names`` with the initials before each ("J.K. Rowling", "J. Smith"), and a first name of
    ``people``, its middle initials and the name after them ("George W. Bush", "John F.
    Kennedy"): the bundled en -> fr model, given the initials without their name, garbled them
    ("J.K. Rowling" -> "J. Rowling", "George W. Bush" -> "George Wad. Bush")."""
    found = []
    for start, end in names:
        initials = _INITIALS_BEFORE.search(text, 0, start)
        found.append((start if initials is None else initials.start(), end))
    found += [m.span() for m in _MIDDLE_INITIALS.finditer(text) if m[1] in people.first]
    return found


def mixed_case(text: str) -> list[Span]:
    """Words with a capital after a small letter, brand names the models garble ("YouTube" ->
    "yourTube", "PowerPoint file" -> "fichier postal", "iOS" -> "iOroid"): kept from the model
    and copied as written. "McDonald's" is one too."""
    return [m.span() for m in _MIXED.finditer(text)]


def quoted_titles(text: str, language: str | None) -> list[Span]:
    """The title of a work in quotes, as English writes it, each main word capitalised ('I
    watched "The Lord of the Rings" yesterday.', 'She sang "Let It Be".'): copied as written,
    quotes aside. The bundled en -> fr model wrote "The Lord du Rings", "Le-t-elle" and "One
    Hundred" for "One Hundred Years of Solitude". Two words at least; Spanish and French write a
    title in sentence case, which tells nothing, and are left to the model."""
    if language != "en":
        return []
    spans = []
    for quoted in _QUOTED.finditer(text):
        words = _LETTERS.findall(quoted.group("inner"))
        capitalised = [w for w in words if w[0].isupper()]
        title = len(words) >= 2 and words[0][0].isupper() and len(capitalised) >= 2
        if title and all(w[0].isupper() or w in MINOR_TITLE_WORDS for w in words):
            spans.append(quoted.span("inner"))
    return spans


def street_names(text: str, language: str | None) -> list[Span]:
    """The names of streets, squares and parks in ``text``, as Spanish writes them, their kind
    first and capitalised ("Plaza Mayor", "Parque del Retiro", "Avenida de la Constitución", and
    "Gran Vía"): kept from the model as a place's name is, as English writes them. The bundled
    es -> en model wrote "Mayor's Plaza", "the Retiro Parkiro", "the Great V.". English's ("Times
    Square") are left to the model: the en -> fr one copied 6 of 8 of mine right, and given as a
    place's placeholder they lost their "sur" and "Turn right on Main Street." its "right"."""
    pattern = _STREETS.get(language or "")
    return [] if pattern is None else [m.span() for m in pattern.finditer(text)]


_CAPITALISED = r"[A-ZÁÉÍÓÚÑÀ-Þ][\w'’-]*"
_STREETS = {
    "es": re.compile(
        r"(?<![\w'’-])(?:Gran Vía|(?:Plaza|Calle|Avenida|Paseo|Parque|Puerta|Ronda|Glorieta"
        rf"|Camino|Carretera|Rambla|Travesía)(?: de(?:l| la| los| las)?)? {_CAPITALISED}"
        rf"(?: {_CAPITALISED})*)(?![\w'’-])"
    ),
}


# the small words English leaves in lower case inside a title ("War and Peace", "Lord of the")
MINOR_TITLE_WORDS = set(
    "a an the and but or nor for so yet of in on at to by up as from with into onto over per via "
    "vs".split()
)
_QUOTED = re.compile(r'(?:"|“|‘|« ?)(?P<inner>[^"“”‘’«»\n]+?)(?:"|”|’| ?»)')
_LETTERS = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_POSSESSIVE = re.compile(r"['’]s$")
_MIXED = re.compile(r"(?<![\w'’-])[^\W\d_]*[a-zà-ÿ][A-ZÀ-Þ][^\W\d_]*(?:['’][^\W\d_]+)?(?![\w'’-])")
_TITLE = re.compile(r"(?<![\w.])([^\W\d_]{1,12})(\.?)(?=[ -]|$)")
# the article a person's title takes in a language, which the title's translation drops ("el
# Sr. García llegó" -> "Mr. García arrived", "la Sra. López" -> "Mme López")
_ARTICLES = {"es": "el|la"}
_ARTICLE_BEFORE = {
    lang: re.compile(rf"(?<![\w'’])(?:{words}) $", re.IGNORECASE)
    for lang, words in _ARTICLES.items()
}
_ARTICLE_OPENING = {
    lang: re.compile(rf"(?:{words}) (?=\S)", re.IGNORECASE) for lang, words in _ARTICLES.items()
}
# "and" and the next title, its article too ("la Sra. y el Sr. Pérez")
_ANY_ARTICLE = "|".join(_ARTICLES.values())
_AND_TITLE = re.compile(
    rf" (?:and|y|et|&) (?:(?:{_ANY_ARTICLE}) )?([^\W\d_]{{1,5}})(\.?)(?= [^\W\d_])"
)
_AND_TITLE_ANY_CASE = re.compile(_AND_TITLE.pattern, re.IGNORECASE)
_NAME_WORD = re.compile(r"[ -]([^\W\d_]+(?:'[^\W\d_]+)?)")


def name_runs(
    text: str, words: list[re.Match], seeds: list[bool], joins: list[bool], *, lone_opening: bool
) -> list[Span]:
    """Where names stand in ``text``: each of ``words`` (capitalised words, in order) that
    ``seeds`` says is a name, with the words around it that ``joins`` lets in, one space apart
    ("Port Muhima"); runs that meet are one. Without ``lone_opening``, a name of one word at the
    start of the text is left out (it may be a rare verb: ``rare_names``)."""
    out: list[Span] = []
    for k in range(len(words)):
        if not seeds[k]:
            continue
        first = last = k
        while first > 0 and joins[first - 1] and next_to(text, words[first - 1], words[first]):
            first -= 1
        while (
            last + 1 < len(words)
            and joins[last + 1]
            and next_to(text, words[last], words[last + 1])
        ):
            last += 1
        if not lone_opening and first == last and words[first].start() == first_letter(text):
            continue
        start, end = words[first].start(), words[last].end()
        if out and out[-1][1] >= start:  # the same name as the word before
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def roman_numeral(word: str) -> bool:
    """Whether ``word`` is a Roman numeral of I, V and X, in capitals, as kings and centuries
    have them ("V", "XVI", "XXI"; not "IIII", nor "CD", "MD", "XL", which name things too)."""
    if not word or word[0] not in "IVX" or not set(word) <= set("IVX"):
        return False
    try:
        roman.fromRoman(word)
    except roman.InvalidRomanNumeralError:
        return False
    return True


def first_letter(text: str) -> int:
    """Where ``text``'s first letter is (-1 if it has none)."""
    match = re.search(r"[^\W\d_]", text)
    return -1 if match is None else match.start()


def next_to(text: str, left: re.Match, right: re.Match) -> bool:
    """Whether ``left`` and ``right`` are one space apart in ``text``."""
    return text[left.end() : right.start()] == " "


# Faker's person providers for each language's names: several countries' first and last names
PERSON_LOCALES = {
    "en": ("en_US", "en_GB", "en_IE", "en_IN", "en_NZ"),
    "es": ("es_ES", "es_MX", "es_AR", "es_CO", "es_CL"),
    "fr": ("fr_FR", "fr_CA", "fr_CH"),
    "de": ("de_DE", "de_AT", "de_CH"),
    "it": ("it_IT",),
    "pt": ("pt_PT", "pt_BR"),
}
# "*": people of many languages, for a full name or a name in capitals ("LAJOS KISS", "MAX")
PERSON_LOCALES["*"] = tuple(sorted({loc for locs in PERSON_LOCALES.values() for loc in locs})) + (
    "en_NG", "en_KE", "pl_PL", "nl_NL", "tr_TR", "sv_SE", "cs_CZ", "hu_HU", "fi_FI", "ro_RO",
    "hr_HR", "id_ID", "vi_VN", "tw_GH", "yo_NG", "zu_ZA", "sw", "fil_PH", "ga_IE",
)  # fmt: skip


@dataclass(frozen=True)
class People:
    """Names of people in a language's countries, from Faker's locale data, each word of them:
    ``names`` first and last ("María", "Castillo"), ``first`` the first names but the months'
    and weekdays' ("May"), ``women`` the first names given to women more than to men."""

    names: frozenset[str] = frozenset()
    first: frozenset[str] = frozenset()
    women: frozenset[str] = frozenset()

    def is_woman(self, name: str) -> bool:
        """Whether ``name`` ("Jennifer Lopez", "LUCÍA") opens with a woman's first name."""
        words = name.split()
        return bool(words) and words[0].capitalize() in self.women


def full_names(text: str, known: People) -> list[Span]:
    """The people's names of a line in Title Case, where every word is capitalised and a
    capital says nothing: a first name and the names after it ("Anna Brown", "John Paul Smith";
    heedful.real_input leaves the other words to the model, which gave "Anna marron" for the
    end of "Best regards, Anna Brown.")."""
    words = list(_WORD.finditer(text))
    out, k = [], 0
    while k < len(words):
        last = k
        if words[k].group() in known.first:
            while (
                last + 1 < len(words)
                and words[last + 1].start() == words[last].end() + 1  # one space between
                and words[last + 1].group() in known.names
            ):
                last += 1
        if last > k:
            out.append((words[k].start(), words[last].end()))
        k = last + 1
    return out


_WORD = re.compile(r"(?<![\w'’-])[^\W\d_][^\W\d_'’-]*(?![\w'’-])")


@cache
def people(language: str) -> People:
    """``language``'s ``People`` ("*": many languages'); none for a language ``PERSON_LOCALES``
    does not list."""
    first = set(_faker_names(language, ("first_names",)))
    languages = MONTHS if language == "*" else [language]
    dates = {
        w.capitalize()
        for lang in languages
        for w in [*MONTHS.get(lang, ()), *WEEKDAYS.get(lang, ())]
    }
    # by a name's first word ("José María" is a man, "María José" a woman), in more of the
    # locales' lists of women than of men (es_ES lists "María" among men's names too)
    women = Counter(_faker_names(language, ("first_names_female",), opening=True))
    women.subtract(_faker_names(language, ("first_names_male",), opening=True))
    return People(
        frozenset(first | set(_faker_names(language, ("last_names",)))),
        frozenset(first - dates),
        frozenset(name for name, n in women.items() if n > 0),
    )


# Faker's address lists with places named like women ("Virginia", "India", "Georgia")
PLACE_LISTS = ("countries", "states", "regions", "departments", "counties", "cities", "estados")


@cache
def places(language: str) -> frozenset[str]:
    """The words of the countries, states and cities that Faker's address providers list for
    ``language``'s locales (and English's country names), and of the IANA time zones' names
    (continents and cities: "Africa", "Paris", "Sydney"): names that may not be people's. A
    word of a time zone stands for itself with accents too ("África")."""
    words: set[str] = set()
    for zone in zoneinfo.available_timezones():  # "America/Los_Angeles"
        words.update(w for part in zone.split("/") for w in part.split("_") if w[:1].isupper())
    locales = ("en", *PERSON_LOCALES.get(language, ()))
    for place in _faker_lists("address", locales, PLACE_LISTS):
        words.update(w for w in re.split(r"[ -]", place) if w[:1].isupper())
    return frozenset(words)


_ZONE_REGIONS = {"Africa", "America", "Asia", "Atlantic", "Europe", "Indian", "Pacific"}


@cache
def cities() -> frozenset[str]:
    """The cities of the IANA time zones ("Chicago", "Los Angeles", "Paris"), without the ones
    that Faker's address providers list as countries, states or regions too ("Mexico"): places
    that French puts after "à", never "en"."""
    named = set()
    for zone in zoneinfo.available_timezones():
        region, _, city = zone.partition("/")
        city = city.rpartition("/")[2].replace("_", " ")
        if region in _ZONE_REGIONS and not city.isupper():  # not "US/Aleutian", "Australia/ACT"
            named.add(city)
    locales = ("en", *PERSON_LOCALES.get("en", ()), *PERSON_LOCALES.get("fr", ()))
    larger = set(_faker_lists("address", locales, [a for a in PLACE_LISTS if a != "cities"]))
    return frozenset(named - larger)


def _faker_names(language: str, attributes: tuple[str, ...], opening: bool = False) -> list[str]:
    """The words of the names the locales' person providers list as ``attributes``; with
    ``opening``, each name's first word only."""
    out = []
    for name in _faker_lists("person", PERSON_LOCALES.get(language, ()), attributes):
        words = re.split(r"[ -]", name)[: 1 if opening else None]
        out += [w for w in words if w[:1].isupper()]
    return out


def _faker_lists(provider: str, locales: Iterable[str], attributes: Iterable[str]) -> Iterator[str]:
    """What the ``locales``' Faker ``provider`` ("person", "address") lists as ``attributes``
    (a dict's keys and the values that are text: a weighted list's names, a code's place), not
    what a locale computes instead of listing it."""
    for locale in locales:
        try:
            module = importlib.import_module(f"faker.providers.{provider}.{locale}").Provider
        except ImportError:
            continue
        for attribute in attributes:
            listed = getattr(module, attribute, ())
            if isinstance(listed, dict):
                listed = [*listed, *(v for v in listed.values() if isinstance(v, str))]
            if isinstance(listed, tuple | list):  # not a property some locales compute
                yield from map(str, listed)
