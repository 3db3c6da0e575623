"""heedful.pool: translators in processes of their own answer as one translator does."""

from __future__ import annotations

from pathlib import Path

import pytest

from heedful.bundled import model_dir
from heedful.data import read_split
from heedful.decoding import DecodingOptions
from heedful.pool import TranslatorPool
from heedful.translator import Translator


@pytest.fixture(scope="module")
def sources():
    data = Path(__file__).resolve().parents[1] / "../shared/data"
    split = read_split(data, "tatoeba/spa-eng/dev.tsv", "es", "en", ("en", "es"))
    return split.sources[:150] + ["Hola. Me llamo Kwame y vivo en Accra desde 2019.", ""]


def test_a_pool_of_the_bundled_model_translates_as_one_translator(sources):
    """float32, greedy and beam 4: every translation, its links and (to rounding) its score;
    and at token level, ``generate_tokens`` gives ``generate``'s best tokens."""
    directory = model_dir("es-en")
    translator = Translator.load(directory)
    ids = translator.tokenizer.encode_batch(sources[:40])
    with TranslatorPool(directory, 2) as pool:
        assert pool.workers == 2 and pool.threads >= 1
        for beam in (1, 4):
            one = translator.translate(sources, beam, alignments=True)
            options = DecodingOptions(beam_size=beam)
            found = pool.translate_n_best(sources, options=options, alignments=True)
            two = [best[0] for best in found]
            assert [t.text for t in two] == [t.text for t in one]
            assert [t.alignment for t in two] == [t.alignment for t in one]
            assert [t.score for t in two] == pytest.approx([t.score for t in one], abs=1e-4)
            assert pool.translate(sources[:20], beam) == [t.text for t in one[:20]]
            tokens = [h[0].tokens for h in translator.generate(ids, beam)]
            assert pool.generate_tokens(ids, beam) == tokens


def test_the_warnings_of_a_worker_are_raised_in_the_caller():
    texts = [
        "I have a dog.",
        "We need to buy milk, eggs and bread.",
        "Bonjour, je suis très content de vous voir aujourd'hui.",
    ]
    with TranslatorPool(model_dir("en-fr"), 2) as pool:
        with pytest.warns(UserWarning) as raised:
            found = pool.translate_n_best(texts)
    left_out, kept = sorted((str(w.message) for w in raised), key=lambda m: "French" in m)
    assert "1 translation may leave out" in left_out and "'eggs'" in left_out
    assert "1 sentence already in French" in kept
    assert found[1][0].warnings == ["'We need to buy milk, eggs and bread.': may leave out 'eggs'"]
