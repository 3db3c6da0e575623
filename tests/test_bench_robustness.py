"""bench/robustness.py: its variants are what they say, seeded, and its copy metric counts right.

Hand-made pairs and hypotheses throughout; only the last test loads a bundled model (a few
sentences through the whole script)."""

import importlib.util
import json
import os
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench" / "robustness.py"
_spec = importlib.util.spec_from_file_location("bench_robustness", BENCH)
rb = importlib.util.module_from_spec(_spec)
sys.modules["bench_robustness"] = rb  # dataclasses look their module up while being made
_spec.loader.exec_module(rb)

PAIRS = [  # Spanish -> English
    ("Tom tiene un perro.", "Tom has a dog."),
    ("Vi a Tom ayer.", "I saw Tom yesterday."),
    ("Mary vive en Boston.", "Mary lives in Boston."),
    ("Quiero vivir en Boston.", "I want to live in Boston."),
    ("Tom y Mary fueron a Boston.", "Tom and Mary went to Boston."),
    ("Compré tres manzanas.", "I bought three apples."),
    ("El tren sale a las nueve.", "The train leaves at nine o'clock."),
    ("Harvard se fundó en 1636.", "Harvard was founded in 1636."),
    ("Cuesta 7,50 euros.", "It costs 7.50 euros."),
    ("Hace mucho frío hoy en la ciudad.", "It is very cold today in the city."),
    ("Mi hermano trabaja en un banco grande.", "My brother works in a big bank."),
    ("Los niños juegan en el parque cada tarde.", "The children play in the park every evening."),
    ("Ella lee un libro nuevo cada semana.", "She reads a new book every week."),
    ("Nosotros comemos pescado los viernes.", "We eat fish on Fridays."),
    ("El perro duerme debajo de la mesa.", "The dog sleeps under the table."),
    ("Mi madre cocina muy bien.", "My mother cooks very well."),
    ("El invierno fue largo y oscuro.", "The winter was long and dark."),
    ("Ellos viajan en tren al trabajo.", "They travel by train to work."),
    ("La tienda abre temprano los sábados.", "The shop opens early on Saturdays."),
    ("Yo escribo cartas a mis abuelos.", "I write letters to my grandparents."),
]
PAIRS = [rb.Pair(s, t) for s, t in PAIRS]


@pytest.fixture(scope="module")
def pool():
    return rb.name_pool(rb.SEED, set(), per_locale=4)


def variants(pool, seed=rb.SEED, n=6, read_pool=None):
    names, places = rb.name_candidates(PAIRS, "es", "en")
    read_pool = read_pool or {"first": ["Pedro"], "full": ["Ana López"], "city": []}
    return rb.make_variants(PAIRS, "es", "en", n, seed, pool, names, places, read_pool)


def test_variants_are_the_same_for_a_seed_and_differ_for_another(pool):
    def plain(v):
        return {name: [asdict(it) for it in items] for name, items in v.items()}

    assert plain(variants(pool)) == plain(variants(pool))
    assert plain(variants(pool)) != plain(variants(pool, seed=rb.SEED + 1))
    assert rb.name_pool(rb.SEED, set(), per_locale=4) == pool


def test_name_pool_is_the_same_in_another_process(pool):
    """Python salts string hashes per process: a set's order must not choose the names."""
    code = (
        "import importlib.util, json, sys; "
        f"spec = importlib.util.spec_from_file_location('rb', {str(BENCH)!r}); "
        "rb = importlib.util.module_from_spec(spec); sys.modules['rb'] = rb; "
        "spec.loader.exec_module(rb); print(json.dumps(rb.name_pool(rb.SEED, set(), per_locale=4)))"
    )
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert json.loads(out.stdout) == pool, out.stderr


def test_name_pool_is_latin_unseen_and_from_many_languages(pool):
    assert all(pool[kind] for kind in ("first", "full", "city"))
    names = [name for kind in pool.values() for name in kind]
    assert all(rb.is_latin_name(name) for name in names)
    assert not rb.is_latin_name("渡辺 直樹") and not rb.is_latin_name("Dr. Kiplagat")
    assert any(c in "".join(names) for c in "ąęłńśźżğışçãõ")  # beyond English letters
    seen = {w for name in pool["first"] for w in rb.WORD.findall(name)}
    unseen = rb.name_pool(rb.SEED, seen, per_locale=4)
    assert not {w for name in unseen["first"] for w in rb.WORD.findall(name)} & seen


def test_names_come_from_the_data_and_are_replaced_on_both_sides(pool):
    names, places = rb.name_candidates(PAIRS, "es", "en")
    assert names == {"Tom", "Mary", "Boston"} and places == {"Boston"}  # Harvard: initial only
    items = variants(pool, n=0)["names"]
    assert len(items) == 5  # every pair with a name, one name each
    for item in items:
        new = item.expect[0]
        assert new in item.src and new in item.ref and item.count == item.ref.count(new)
        assert (item.kind == "city") == (PAIRS[item.parts[0]].src == "Quiero vivir en Boston.")
        assert item.expect[0] in pool["city" if item.kind == "city" else item.kind]
        original = re.findall(r"\b(?:Tom|Mary|Boston)\b", PAIRS[item.parts[0]].src)
        assert len(re.findall(r"\b(?:Tom|Mary|Boston)\b", item.src)) == len(original) - 1


def test_names_read_in_training_are_people_whose_every_word_was_read(pool):
    read = {w for name in pool["first"] + pool["full"] for w in rb.WORD.findall(name)}
    read = set(sorted(read)[::2])  # half of them
    found = rb.name_pool(rb.SEED, read, per_locale=4, read=True)
    assert found["first"] and found["full"] and found["city"] == []
    assert all(set(rb.WORD.findall(n)) <= read for kind in found.values() for n in kind)
    items = variants(pool, n=0, read_pool=found)["names read"]
    assert len(items) == 4  # a name in each pair, but not in a place's ("vivir en Boston")
    for item in items:
        assert item.kind in ("first", "full") and item.expect[0] in item.src
        assert item.expect[0] in found[item.kind] and item.count == item.ref.count(item.expect[0])
    # drawn last: the other variants are as they were without it
    others = variants(pool, read_pool={"first": ["Zzz"], "full": ["Zzz Yyy"], "city": []})
    assert {k: v for k, v in others.items() if k != "names read"} == {
        k: v for k, v in variants(pool).items() if k != "names read"
    }


def test_women_take_mary_s_place_on_both_sides_read_in_training_or_not(pool):
    unseen = rb.women_pool(rb.SEED, set(), per_locale=2)
    assert len(unseen) > 20 and "Mary" not in unseen and all(map(rb.is_latin_name, unseen))
    read = set(unseen[::2])
    found = rb.women_pool(rb.SEED, read, per_locale=2, read=True)  # drawn 10 times as long
    assert set(found) <= read and len(found) > len(read) / 2
    items = rb.women_items(PAIRS, "es", "en", __import__("random").Random(1), 0, unseen)
    assert len(items) == 6  # three for each pair with Mary on both sides
    for item in items:
        new = item.expect[0]
        assert new in unseen and "Mary" not in item.src + item.ref and item.kind == "woman"
        original = PAIRS[item.parts[0]]
        assert item.src == original.src.replace("Mary", new) and item.clean_ref == original.tgt
        assert item.ref == original.tgt.replace("Mary", new) and item.count == 1
    assert rb.women_items(PAIRS, "es", "en", __import__("random").Random(1), 0, []) == []
    assert [it.expect for it in variants(pool, n=0)["women"]]  # in every run of the bench


def test_french_elision_follows_the_new_name():
    assert rb.replace_name("C'est le chien de Tom.", "Tom", "Ana", "fr") == "C'est le chien d'Ana."
    assert rb.replace_name("Le livre d'Alice.", "Alice", "Kwame", "fr") == "Le livre de Kwame."
    assert rb.replace_name("Tom's dog.", "Tom", "Ana", "en") == "Ana's dog."


def test_decimal_separators_follow_each_language():
    assert rb.format_number("decimal", (7, "50"), "es") == ["7,50"]
    assert rb.format_number("decimal", (7, "50"), "en") == ["7.50"]
    assert rb.number_value("5.000", "es") == rb.number_value("5,000", "en") == 5000
    assert rb.number_value("3,4", "fr") == 3.4 and rb.number_value("3.4", "en") == 3.4
    items = variants(rb.name_pool(1, set(), per_locale=1), n=0)["numbers"]
    decimals = [it for it in items if it.kind == "decimal"]
    assert decimals
    for item in decimals:
        source = re.search(r"\d+,\d+", item.src).group()
        assert item.expect == [source.replace(",", ".")] and item.expect[0] in item.ref


def test_numbers_fill_digit_word_and_clock_slots():
    items = variants(rb.name_pool(1, set(), per_locale=1), n=0)["numbers"]
    kinds = {}
    for it in items:
        kinds.setdefault(PAIRS[it.parts[0]].src, set()).add(it.kind)
    assert kinds == {
        "Compré tres manzanas.": {"integer", "decimal"},
        "El tren sale a las nueve.": {"time"},
        "Harvard se fundó en 1636.": {"year"},
        "Cuesta 7,50 euros.": {"integer", "decimal"},
    }
    (time,) = [it for it in items if it.kind == "time"]
    assert re.fullmatch(r"The train leaves at \d{1,2}:\d\d\.", time.ref)  # "o'clock" goes too
    assert time.expect[0] in time.src
    hours = rb.Pair("Llegaremos en dos horas.", "We will get there in two hours.")
    assert [kind for _, _, kind in rb.number_slots(hours, "es", "en")] == ["quantity"]
    clock = rb.Pair("Viens à neuf heures.", "Come at nine.")
    assert rb.number_slots(clock, "fr", "en") == [((8, 19), (8, 12), "time")]
    quarter = rb.Pair("Vendrá a las tres y cuarto.", "She'll come at a quarter past three.")
    assert rb.number_slots(quarter, "es", "en") == []  # no room for minutes
    fr = rb.format_number("time", (8, 45), "fr")
    assert fr[0] == "8:45" and "8h45" in fr


def test_caps_title_and_casual_do_what_they_say(pool):
    v = variants(pool)
    assert len({len(v[name]) for name in ("clean", "caps", "title", "casual")}) == 1
    for clean, caps, title, casual in zip(
        v["clean"], v["caps"], v["title"], v["casual"], strict=True
    ):
        assert caps.src == clean.src.upper() and caps.ref == clean.ref
        assert title.src.lower() == clean.src.lower()
        firsts = [re.search(r"\w", word).group() for word in title.src.split()]
        assert all(c.isupper() for c in firsts if c.isalpha())
        assert casual.src == rb.casual(clean.src)
    assert rb.casual("¿Dónde está el baño?") == "donde esta el baño"
    assert rb.casual("¡Él comió pingüino!") == "el comio pinguino"
    assert rb.casual("Ça va très bien !") == "ça va tres bien"
    assert rb.title_case("don't stop, ¿vale?") == "Don't Stop, ¿Vale?"


def test_copy_rate_counts_a_correct_and_an_incorrect_copy():
    number = rb.Item("Cuesta 7,50 euros.", "It costs 7.50 euros.", [0], "", ["7.50"], 1, "decimal")
    assert rb.copies("It costs 7.50 euros.", number)
    assert rb.copies("It's 7.50.", number)
    assert not rb.copies("It costs 7,50 euros.", number)  # the source's separator
    assert not rb.copies("It costs 17.50 euros.", number)
    assert not rb.copies("It costs 7.505 euros.", number)
    name = rb.Item("Kwame y Kwame.", "Kwame and Kwame.", [0], "", ["Kwame"], 2, "first")
    assert rb.copies("Kwame and Kwame.", name)
    assert not rb.copies("Kwame and Kwys.", name)  # as often as the reference has it
    assert not rb.copies("Kwamey and Kwame.", name)


def test_paragraphs_join_consecutive_sentences():
    import random

    items = rb.paragraph_items(PAIRS, random.Random(0), 30)
    assert sum(len(it.parts) for it in items) >= 30
    for item in items:
        assert 2 <= len(item.parts) <= 6
        assert item.parts == list(range(item.parts[0], item.parts[0] + len(item.parts)))
        assert item.src == " ".join(PAIRS[i].src for i in item.parts)
        assert item.ref == item.clean_ref == " ".join(PAIRS[i].tgt for i in item.parts)


def test_long_sentences_join_statements_into_40_to_80_words():
    import random

    pairs = PAIRS * 3  # enough statements to reach 40 words
    items = rb.long_items(pairs, "es", "en", random.Random(0), 20, {"Tom"})
    for item in items:
        assert 40 <= len(item.src.split()) <= 80 and item.src.count(".") == 1
        assert " y " in item.src or " e " in item.src
        assert " and " in item.ref and item.ref.endswith(".")
    assert rb.join_long(["Tom come.", "Tom bebe."], "es", {"Tom"}) == "Tom come y Tom bebe."
    assert rb.join_long(["Él come.", "Ignacio bebe."], "es", set()) == "Él come e ignacio bebe."


def test_sentences_of_several_numbers_join_statements_and_need_every_number():
    import random

    pairs = [*PAIRS, rb.Pair("¿Tienes tres gatos?", "Do you have three cats?")] * 3
    names, _ = rb.name_candidates(pairs, "es", "en")
    items = rb.several_number_items(pairs, "es", "en", random.Random(0), 6, names)
    assert items
    for item in items:
        assert 2 <= len(item.each) == len(item.parts) <= 3
        assert len(set(item.parts)) == len(item.parts) and item.src.count(".") == 1
        assert all(rb.is_statement(pairs[i]) for i in item.parts)  # "¿...?" is no part
        assert rb.copies(item.ref, item)  # the reference holds every number
        first = item.each[0][0]
        assert not rb.copies(
            re.sub(rf"(?<![\d.,]){re.escape(first)}(?![\d.,])", "", item.ref, count=1), item
        )


def test_british_spelling_respells_the_english_source_alone():
    pairs = [
        rb.Pair("My favorite color is gray.", "Ma couleur préférée est le gris."),
        rb.Pair("I like cats.", "J'aime les chats."),
        rb.Pair("Apologize to him.", "Excuse-toi auprès de lui."),
    ]
    items = rb.british_items(pairs, "en", 0)
    assert [it.src for it in items] == ["My favourite colour is grey.", "Apologise to him."]
    assert [it.parts for it in items] == [[0], [2]]
    assert [it.ref for it in items] == [pairs[0].tgt, pairs[2].tgt]
    assert rb.british_items(pairs, "en", 1) == items[:1]
    assert rb.british_items(pairs, "es", 0) == []


def test_the_script_runs_on_a_bundled_model(tmp_path):
    out = tmp_path / "robustness.json"
    model = REPO / "models" / "es-en"
    assert rb.main(["--model", str(model), "--sentences", "3", "--json", str(out)]) == 0
    (result,) = json.loads(out.read_text())
    assert (result["src"], result["tgt"]) == ("es", "en")
    assert result["variants"]["british"] == {"items": 0}  # a Spanish source has no British
    for name, v in result["variants"].items():
        if name == "british":
            continue
        assert v["items"] >= 1, name
        assert 0 <= v["bleu"] <= 100.001 and 0 <= v["clean_bleu"] <= 100.001
        assert all(ex["hyp"].strip() for ex in v["examples"])
    for name in ("names", "numbers"):
        v = result["variants"][name]
        assert len(v["failures"]) == round((1 - v["copied"]) * v["items"])


def test_the_symbols_bench_counts_an_unknown_piece_or_a_changed_line_wrong():
    spec = importlib.util.spec_from_file_location("bench_symbols", REPO / "bench" / "symbols.py")
    symbols = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(symbols)
    assert symbols.right("I'm going on #vacaciones with @juan.", ["#vacaciones", "@juan"])
    assert not symbols.right("I'm going on \u2047vacaciones with @juan.", ["@juan"])
    assert not symbols.right("I'm going on vacation.", ["#vacaciones"])
    assert symbols.right("3.5", ["=3.5"]) and not symbols.right("I 3.5.", ["=3.5"])
    assert len(symbols.INPUTS["es"]) == len(symbols.INPUTS["en"]) == 24
