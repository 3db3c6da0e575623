"""Reading parallel text (errors name the file and line), normalisation, filtering with counts,
and token-count batching with length bucketing."""

import gzip
import random
import re

import pytest
import torch

from heedful.data import (
    Corpus,
    DataError,
    FilterCounts,
    ParallelText,
    encode_pairs,
    normalize_pairs,
    read_aligned,
    read_split,
    read_tsv,
    train_tokenizer,
)
from heedful.tokenizer import BATCH_ENCODE_MIN, Tokenizer
from heedful.training.batching import BatchStream, collate, make_batches, padding_fraction

# --- readers ----------------------------------------------------------------------------------


def write(path, text, *, raw=None):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.name.endswith(".gz"):
        with gzip.open(path, "wb") as f:
            f.write(raw if raw is not None else text.encode())
    else:
        path.write_bytes(raw if raw is not None else text.encode())
    return path


@pytest.mark.parametrize("name", ["pairs.tsv", "pairs.tsv.gz"])
def test_tsv_columns_follow_the_chosen_direction(tmp_path, name):
    path = write(tmp_path / name, "Hello.\tHola.\r\nI am bald.\tSoy calvo.\n")
    es_en = read_tsv(path, ("en", "es"), "es", "en")
    assert es_en.sources == ["Hola.", "Soy calvo."]
    assert es_en.targets == ["Hello.", "I am bald."]
    en_es = read_tsv(path, ("en", "es"), "en", "es")
    assert en_es.sources == es_en.targets and en_es.targets == es_en.sources


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_aligned_files_pair_line_by_line(tmp_path, suffix):
    write(tmp_path / f"train.de{suffix}", "Ein Hund.\nZwei Katzen.\n")
    write(tmp_path / f"train.en{suffix}", "A dog.\nTwo cats.\n")
    text = read_split(tmp_path, f"train.{{lang}}{suffix}", "de", "en", None)
    assert text.sources == ["Ein Hund.", "Zwei Katzen."]
    assert text.targets == ["A dog.", "Two cats."]


def test_a_split_of_several_files_joins_them_in_order(tmp_path):
    write(tmp_path / "a.tsv", "Hello.\tHola.\n")
    write(tmp_path / "m" / "train.es", "Un perro.\nDos gatos.\n")
    write(tmp_path / "m" / "train.en", "A dog.\nTwo cats.\n")
    text = read_split(tmp_path, ("m/train.{lang}", "a.tsv"), "es", "en", ("en", "es"))
    assert text.sources == ["Un perro.", "Dos gatos.", "Hola."]
    assert text.targets == ["A dog.", "Two cats.", "Hello."]
    assert "a.tsv" in text.origin and "train.es" in text.origin
    with pytest.raises(FileNotFoundError, match="missing.tsv"):
        read_split(tmp_path, ("a.tsv", "missing.tsv"), "es", "en", ("en", "es"))


def test_config_takes_one_training_file_or_a_list(tmp_path):
    from heedful.training.config import ConfigError, load_config

    config = tmp_path / "run.yaml"
    config.write_text(
        "data:\n  train: [a.tsv, 'm/train.{lang}']\n  dev: d.tsv\n  src: es\n  tgt: en\n"
    )
    assert load_config(config).data.train == ("a.tsv", "m/train.{lang}")
    config.write_text("data: {train: a.tsv, dev: d.tsv, src: es, tgt: en}\n")
    assert load_config(config).data.train == "a.tsv"
    # unquoted braces in a flow list are YAML's own syntax: one line saying where, and the fix
    config.write_text("data:\n  train: [a.tsv, m/train.{lang}]\n")
    where = r"run\.yaml: not valid YAML: line 2, column 26: .*quotes"
    with pytest.raises(ConfigError, match=where):
        load_config(config)


def test_line_without_tab_names_file_and_line(tmp_path):
    path = write(tmp_path / "bad.tsv", "Hello.\tHola.\nGood morning. Buenos dias.\nBye.\tAdios.\n")
    with pytest.raises(DataError, match=r"bad\.tsv, line 2: .*no tab"):
        read_tsv(path, ("en", "es"), "es", "en")


def test_extra_column_is_an_error_not_a_silent_loss(tmp_path):
    path = write(tmp_path / "bad.tsv", "Hello.\tHola.\tCC-BY\n")
    with pytest.raises(DataError, match=r"bad\.tsv, line 1: .*2 tabs"):
        read_tsv(path, ("en", "es"), "es", "en")


@pytest.mark.parametrize("longer", ["de", "en"])
def test_different_line_counts_name_both_files(tmp_path, longer):
    write(tmp_path / "train.de", "a\nb\nc\n" if longer == "de" else "a\nb\n")
    write(tmp_path / "train.en", "a\nb\nc\n" if longer == "en" else "a\nb\n")
    shorter = "de" if longer == "en" else "en"
    with pytest.raises(
        DataError, match=rf"train\.{shorter} has 2 lines but .*train\.{longer}.*line 3"
    ):
        read_aligned(tmp_path / "train.de", tmp_path / "train.en")


@pytest.mark.parametrize("name", ["latin1.tsv", "latin1.tsv.gz"])
def test_invalid_utf8_names_file_and_line(tmp_path, name):
    raw = b"Hello.\tHola.\n" + "Good night.\tBuenas noches, señor.\n".encode("latin-1")
    path = write(tmp_path / name, "", raw=raw)
    with pytest.raises(DataError, match=re.escape(name) + ", line 2: invalid UTF-8"):
        read_tsv(path, ("en", "es"), "es", "en")


def test_missing_file_and_unknown_column_are_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.tsv"):
        read_tsv(tmp_path / "nope.tsv", ("en", "es"), "es", "en")
    path = write(tmp_path / "ok.tsv", "a\tb\n")
    with pytest.raises(DataError, match="no 'fr' column"):
        read_tsv(path, ("en", "es"), "fr", "en")
    with pytest.raises(DataError, match="columns"):
        read_split(tmp_path, "ok.tsv", "es", "en", None)


# --- normalisation and filtering --------------------------------------------------------------


def test_normalisation_unifies_french_spaces_and_matches_the_tokenizer():
    raw = ParallelText(
        ["Comment allez-vous\u202f?", "Ｈｅｌｌｏ\u00a0!"], ["How are you?", "Hi!"], "x"
    )
    text, counts = normalize_pairs(raw)
    assert text.sources == ["Comment allez-vous ?", "Hello !"]  # NFKC folds full-width letters
    assert counts.empty == 0
    tokenizer = train_tokenizer(text, 40)
    # The translator's path (Tokenizer.encode) and the training path see the same text.
    for raw_text, clean in zip(raw.sources, text.sources, strict=True):
        assert tokenizer.encode(raw_text, add_eos=False) == tokenizer.encode(clean, add_eos=False)


@pytest.mark.parametrize("count", [1, 5, BATCH_ENCODE_MIN, 3 * BATCH_ENCODE_MIN])
def test_encode_batch_equals_encode_one_by_one_on_either_path(count):
    # Few texts are encoded one at a time, many through sentencepiece's threaded batch call.
    words = ["el", "gato", "negro", "duerme", "en", "jardín", "¿dónde?", "Ｈｏｌａ\u202f!"]
    tokenizer = Tokenizer.train([" ".join(words[i:] + words[:i]) for i in range(8)] * 4, 60)
    texts = [" ".join(words[i % 8 : i % 8 + 1 + i % 5]) for i in range(count)]
    for add_eos in (True, False):
        expected = [tokenizer.encode(t, add_eos=add_eos) for t in texts]
        assert tokenizer.encode_batch(texts, add_eos=add_eos) == expected


def test_empty_and_overlong_pairs_are_dropped_and_counted():
    long = "a b c d e f g h i j k l m n o p"  # 16 tokens or more, whatever the vocabulary
    sources = ["uno dos", "  ", "tres", long, "cinco", "", "seis siete"]
    targets = ["one two", "blank", "", "short", long, "five", "six seven"]
    text, counts = normalize_pairs(ParallelText(sources, targets, "x"))
    assert counts.empty == 3 and len(text) == 4
    tokenizer = Tokenizer.train(sources + targets, 60)
    corpus = encode_pairs(text, tokenizer, 8, counts)
    assert (counts.read, counts.too_long, counts.kept) == (7, 2, 2)
    assert corpus.kept == [0, 3]  # indices into the normalised text
    assert corpus.src == [tokenizer.encode("uno dos", add_eos=False),
                          tokenizer.encode("seis siete", add_eos=False)]  # fmt: skip
    message = counts.describe("train")
    assert "dropped 3 pairs with an empty side" in message
    assert "dropped 2 pairs longer than 8 tokens" in message
    assert message.endswith("kept 2")


def test_nothing_dropped_says_so():
    assert FilterCounts(read=5).describe("dev") == "dev: read 5 pairs; kept 5"


# --- batching ---------------------------------------------------------------------------------


def random_lengths(n, seed=0):
    rng = random.Random(seed)
    return [rng.randint(1, 40) for _ in range(n)], [rng.randint(1, 40) for _ in range(n)]


def test_batches_respect_the_token_budget_and_cover_every_pair_once():
    src, tgt = random_lengths(500)
    batches = make_batches(src, tgt, 256, seed=3, epoch=0)
    assert sorted(i for b in batches for i in b) == list(range(500))
    for b in batches:
        assert len(b) * max(max(src[i] for i in b), max(tgt[i] for i in b)) <= 256


def test_an_example_longer_than_the_budget_is_a_batch_alone():
    batches = make_batches([5, 300, 5], [5, 10, 5], 64, seed=0, epoch=0)
    assert [1] in batches and sorted(i for b in batches for i in b) == [0, 1, 2]


def test_batches_are_deterministic_for_a_seed_and_change_with_seed_and_epoch():
    src, tgt = random_lengths(300)
    a = make_batches(src, tgt, 200, seed=7, epoch=2)
    assert a == make_batches(src, tgt, 200, seed=7, epoch=2)
    assert a != make_batches(src, tgt, 200, seed=8, epoch=2)
    assert a != make_batches(src, tgt, 200, seed=7, epoch=3)


def test_length_bucketing_keeps_padding_small():
    src, tgt = random_lengths(2000)
    bucketed = padding_fraction(make_batches(src, tgt, 512, seed=0, epoch=0), src, tgt)
    order = list(range(2000))
    random.Random(0).shuffle(order)
    size = len(order) // len(make_batches(src, tgt, 512, seed=0, epoch=0))
    unsorted = [order[i : i + size] for i in range(0, 2000, size)]
    assert bucketed < 0.2 < padding_fraction(unsorted, src, tgt)


def test_padding_fraction_by_hand():
    # batch [0, 1]: source 2 + 4 of 8, target 3 + 3 of 6 -> 12 real of 14
    assert padding_fraction([[0, 1]], [2, 4], [3, 3]) == pytest.approx(1 - 12 / 14)


def test_collate_follows_the_internal_contract():
    corpus = Corpus(src=[[10, 11], [12]], tgt=[[20], [21, 22, 23]])
    batch = collate(corpus, [0, 1], start_id=1, eos_id=2)
    assert batch.src.tolist() == [[10, 11, 2], [12, 2, 0]]
    assert batch.tgt_in.tolist() == [[1, 20, 0, 0], [1, 21, 22, 23]]
    assert batch.labels.tolist() == [[20, 2, 0, 0], [21, 22, 23, 2]]
    assert batch.target_tokens == 6 and batch.src.dtype == torch.long


def test_stream_resumes_at_its_saved_position_across_epochs():
    rng = random.Random(1)
    corpus = Corpus(
        src=[[5] * rng.randint(1, 9) for _ in range(60)],
        tgt=[[6] * rng.randint(1, 9) for _ in range(60)],
    )
    straight = BatchStream(corpus, 40, seed=4)
    first = straight.take(straight.batches_per_epoch - 1)
    position = straight.position
    rest = straight.take(5)  # crosses into epoch 1
    assert straight.epoch == 1
    resumed = BatchStream(corpus, 40, seed=4, **position)
    assert resumed.take(5) == rest
    assert first + rest != first + straight.take(5)  # the stream moves on
