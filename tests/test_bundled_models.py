"""The bundled models: the explainer's examples come out right (fast), and the model cards' dev
figures are what the models score (slow: `pytest -m slow`)."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from heedful.bundled import model_dir
from heedful.real_input import _split_unreadable
from heedful.translator import Translator

ROOT = Path(__file__).resolve().parents[1]
DEV = {
    "es-en": ROOT / "../shared/data/tatoeba/spa-eng/dev.tsv",
    "en-fr": ROOT / "../shared/data/tatoeba/fra-eng/dev.tsv",
}


@pytest.fixture(scope="module")
def translators():
    return {name: Translator.load(model_dir(name)) for name in ("es-en", "en-fr")}


@pytest.mark.parametrize(
    "name,source,expected",
    [
        ("es-en", "El gato negro duerme en el jardín.", ["black cat", "garden"]),
        ("en-fr", "The red car", ["voiture rouge"]),
        # the explainer has the formal "Comment allez-vous"; the informal form is right too
        ("en-fr", "How are you?", [("comment allez-vous", "comment vas-tu")]),
    ],
)
def test_the_explainers_examples(translators, name, source, expected):
    translation = translators[name].translate([source], beam_size=4)[0]
    for words in expected:
        options = words if isinstance(words, tuple) else (words,)
        assert any(w in translation.lower() for w in options), f"{source!r} -> {translation!r}"


def test_the_cross_attention_of_black_cat_looks_at_gato_negro(translators):
    from heedful.explain import to_words, views

    attended = to_words(translators["es-en"].attend("El gato negro duerme en el jardín."))
    cross = views(attended)["cross"]
    weights = cross.weights.float().mean(1)  # [L, T, S], mean of heads
    rows = {w.lower().strip(".,"): i for i, w in enumerate(cross.queries)}
    cols = {w.lower().strip(".,"): j for j, w in enumerate(cross.keys)}
    # in some layer, "black" and "cat" put most of their attention on "gato" and "negro"
    share = weights[:, [rows["black"], rows["cat"]]][..., [cols["gato"], cols["negro"]]].sum(-1)
    assert share.mean(-1).max() > 0.5


@pytest.mark.parametrize(
    "source,carried,after",
    [
        ("El gato 🐈 duerme en el jardín.", "🐈", "cat"),
        ("Mi amigo 王 vive en Madrid.", "王", "friend"),
        ("Te quiero ❤️.", "❤️", "you."),  # the full stop stays in the source
    ],
)
def test_a_word_the_model_cannot_read_lands_after_the_translation_of_its_neighbour(
    translators, source, carried, after
):
    """heedful.unknown_words on a trained model: the emoji or foreign name is put back after
    the target word aligned to the source word before it, and the rest is translated as if it
    were not there."""
    es_en = translators["es-en"]
    words = es_en.translate([source])[0].split()
    assert words.count(carried) == 1 and words[words.index(carried) - 1] == after, words
    without = es_en.translate([source.replace(f" {carried}", "")])[0].split()  # "Te quiero."
    assert [w for w in words if w != carried] == without


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("en-fr", "Thanks a lot for your help :)"),  # was "..., les noyages."
        ("es-en", "Muchas gracias por tu ayuda :)"),  # was "... for your help.", the face lost
        ("en-fr", "See you tomorrow ;-) Bye!"),
        ("es-en", "¡Qué bien! :D"),  # ":D", a sentence of its own to the segmenter, gave ":00."
    ],
)
def test_an_emoticon_is_carried_and_the_rest_translated_as_without_it(translators, name, source):
    translator = translators[name]
    found = translator.translate([source])[0]
    face = next(w for w in source.split() if w in (":)", ";-)", ":D"))
    without = translator.translate([source.replace(f" {face}", "")])[0]
    assert found.count(face) == 1 and found.replace(f" {face}", "") == without, (found, without)


def test_laughter_is_found_and_written_the_target_language_s_way():
    from heedful.unknown_words import is_laughter, laughter_in, laughter_line

    words = "jajaja jeje Jaja, JAJAJA! jaula ja Jojo".split()  # "Jojo": a name
    assert [w for w in words if is_laughter(w, "es")] == ["jajaja", "jeje", "Jaja,", "JAJAJA!"]
    assert [w for w in "hahaha lol LOL hehe hat".split() if is_laughter(w, "en")] == [
        "hahaha", "lol", "LOL", "hehe"]  # fmt: skip
    assert [laughter_in(w, "es", "en") for w in ("jajaja", "Jeje,", "JAJA!")] == [
        "hahaha", "Hehe,", "HAHA!"]  # fmt: skip
    assert [laughter_in(w, "en", "fr") for w in ("haha", "lol", "LOL!")] == ["haha", "mdr", "MDR!"]
    assert laughter_in("haha", "en", "es") == "jaja" and laughter_in("lol", "en", "es") == "lol"
    assert laughter_in("jaula", "es", "en") == "jaula"  # no laughter: as it is
    assert laughter_line("Jajaja.", "es", "en") == "Hahaha."
    assert laughter_line("jaja qué bueno", "es", "en") is None


@pytest.mark.parametrize(
    ("name", "source", "expected"),
    [  # before: "Check out what good!!", "Le hahaha est si drôle.", "Jajaja, what's good.",
        # "Jaja can't anymore.", "Go away", "C'est super !!"
        ("es-en", "jajaja qué bueno!!", "Hahaha what good!!"),
        ("en-fr", "hahaha that is so funny", "Hahaha c'est tellement amusant !"),
        ("es-en", "Jajaja, qué bueno.", "Hahaha, that's good."),
        ("es-en", "jaja no puedo más", "Haha I can't do anymore."),
        ("es-en", "JAJAJA", "HAHAHA"),
        ("en-fr", "lol that's great!!", "Mdr c'est super !!"),
    ],
)
def test_laughter_is_carried_and_written_the_target_way(translators, name, source, expected):
    found = translators[name].translate([source], alignments=True)[0]
    assert found.text == expected
    for link in found.alignment:  # the links index their words
        assert source[slice(*link.source)] == link.source_word
        assert found.text[slice(*link.target)] == link.target_word


def test_a_name_with_a_letter_the_model_cannot_read_stays_in_the_source(translators):
    """A word that mixes known and unknown characters is not carried: the model reads part of
    it (and heedful.names keeps it from the model as a name)."""
    es_en = translators["es-en"]
    text = "Su nombre es Jūratė."  # "ū", "ė": not in the vocabulary ("ê" of "Tiên" is now)
    ids = es_en.tokenizer.encode(text)
    assert es_en.tokenizer.unk_id in ids
    assert _split_unreadable(es_en, text, ids) is None  # nothing carried
    assert _split_unreadable(es_en, "Su nombre es 王.", es_en.tokenizer.encode("Su nombre es 王."))
    as_given = Translator(es_en.model, es_en.tokenizer, {"generation": {"carry_unreadable": False}})
    translation = es_en.translate([text])[0]
    assert translation == as_given.translate([text])[0] and "Jūratė" in translation


@pytest.mark.slow
@pytest.mark.parametrize("name", ["es-en", "en-fr"])
def test_model_card_figures_are_what_the_model_scores(name):
    card = (model_dir(name) / "MODEL_CARD.md").read_text(encoding="utf-8")
    bleu = float(re.search(r"\| BLEU \| ([\d.]+) \|", card).group(1))
    chrf = float(re.search(r"\| chrF \| ([\d.]+) \|", card).group(1))
    out = subprocess.run(
        [sys.executable, "-m", "heedful", "evaluate", "--model", str(model_dir(name)),
         "--data", str(DEV[name]), "--beam", "4", "--json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    scores = json.loads(out.stdout)
    assert round(scores["bleu"], 1) == bleu and round(scores["chrf"], 1) == chrf


@pytest.mark.slow
def test_the_recorded_alignment_error_rate_is_what_the_model_scores():
    """models/en-fr's config.json records its alignment method and its AER on the Hansards dev
    gold (`heedful align --choose`); the README and the model card quote it."""
    from heedful.explain.align import aer, read_gold, word_counts
    from heedful.explain.alignment_choice import links_of, prepare
    from heedful.explain.alignment_methods import read_method

    gold_dir = ROOT / "../shared/data/align/hansards-en-fr"
    en = (gold_dir / "dev.en").read_text(encoding="utf-8").splitlines()
    fr = (gold_dir / "dev.fr").read_text(encoding="utf-8").splitlines()
    gold = read_gold(gold_dir / "dev.gold", base=1, sizes=word_counts(en, fr))
    translator = Translator.load(model_dir("en-fr"))
    method = read_method(model_dir("en-fr")).resolve(3, 4)
    pairs = prepare(translator, en, fr, erase=False)
    measured = aer([links_of(p, method) for p in pairs], gold)
    assert round(measured, 4) == method.aer
    card = (model_dir("en-fr") / "MODEL_CARD.md").read_text(encoding="utf-8")
    assert f"**{method.aer:.3f}**" in card


# --- real input (issue 29): the fine-tuned models copy names and numbers -------------------------

NAMES = ["Lucía", "Jürgen", "Kwame", "Oluwaseun", "Siobhan", "Bartholomew", "Xiomara", "Thandiwe"]


def test_unseen_names_are_copied_most_of_the_time(translators):
    """Issue 29 asks for 98%; with the names the vocabulary does not know protected
    (heedful.names.rare_names), the fine-tuned models copy 92% and 91% of bench/robustness.py's
    names (before fine-tuning 2% and 5%). A name alone at the start of a sentence is left to the
    model ("Bartholomew tiene un perro." -> "Bartholw has a dog.")."""
    templates = {
        "es-en": ["{} tiene un perro.", "Ayer vi a {} en la estación."],
        "en-fr": ["{} lives in Madrid.", "I talked to {} yesterday."],
    }
    copied = total = 0
    for name, forms in templates.items():
        sources = [form.format(n) for form in forms for n in NAMES]
        translations = translators[name].translate(sources, beam_size=4)
        expected = [n for _ in forms for n in NAMES]
        copied += sum(n in t for n, t in zip(expected, translations, strict=True))
        total += len(sources)
    assert copied / total >= 0.8, f"{copied} of {total}"  # 27 of 32 now


def test_a_name_with_a_letter_the_vocabulary_lacks_is_kept(translators):
    en_fr = translators["en-fr"]
    assert en_fr.tokenizer.unk_id in en_fr.tokenizer.encode("Jūratė")  # "ü" is read since 6 Dec.
    assert "Jūratė" in en_fr.translate(["I talked to Jūratė yesterday."])[0]


@pytest.mark.parametrize(
    "name,source,numbers",
    [
        ("es-en", "Compré 3 manzanas y 12 naranjas por 7,50 euros.", ["3", "12", "7.50"]),
        ("es-en", "El tren sale a las 8:45 de la mañana.", ["8:45"]),
        ("es-en", "Nació en 1987 y tiene 2 hermanos.", ["1987", "2"]),
        ("en-fr", "Mary and John have lived in New York since 2015.", ["2015"]),
        ("en-fr", "I paid 4,350 dollars for 17 chairs.", ["17"]),
        ("en-fr", "The box weighs 2.75 kilos.", ["2,75"]),
    ],
)
def test_numbers_survive_translation(translators, name, source, numbers):
    translation = translators[name].translate([source], beam_size=4)[0]
    found = re.findall(r"\d+(?:[.,:]\d+)*", translation)
    assert all(n in found for n in numbers), f"{source!r} -> {translation!r}"
