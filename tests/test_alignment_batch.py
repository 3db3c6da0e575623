"""Word links of many pairs at once (heedful.explain.alignment_batch) are each pair's links
found alone: its words' scores (``word_head_scores``), blended with a second reading, then
``link`` without the words a caller links itself, for every way of linking, normalising and
weighing; on random attention and on the bundled model's translations."""

from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from heedful.aligning import forced_cross
from heedful.bundled import model_dir
from heedful.decoding import fit_source
from heedful.explain.alignment_batch import link_batch
from heedful.explain.alignment_choice import _link_apart, align_ids
from heedful.explain.alignment_methods import (
    AlignmentMethod,
    blended,
    word_head_scores,
)
from heedful.explain.linked_words import LinkedWords
from heedful.translator import Translator

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
WORDS = "the cat house minister ministre maison chat le la parliament parlement a".split()


def alone(weights, seconds, pieces, apart, method, table) -> list[set]:
    """Each pair's links found on its own."""
    out = []
    for mean, second, both, kept in zip(weights, seconds, pieces, apart, strict=True):
        scores = word_head_scores(mean.unsqueeze(0), *both, method.method)[0]
        if method.blend:
            second = word_head_scores(second.unsqueeze(0), *both, "predict")[0]
            scores = blended(scores, second, method.blend)
        out.append(_link_apart(scores, method, kept, both, table))
    return out


def random_pair(rng: random.Random) -> tuple[list[str], list[str]]:
    """Source pieces ending with </s>, target pieces ending with </s> (or cut without it)."""

    def pieces(n: int) -> list[str]:
        out = []
        for _ in range(n):
            word = rng.choice(WORDS)
            cut = rng.randrange(1, len(word) + 1)  # a word in one or two pieces
            out += ["▁" + word[:cut]] + ([word[cut:]] if cut < len(word) else [])
        return out

    source = pieces(rng.randint(1, 9)) + ["</s>"]
    target = pieces(rng.randint(1, 9))
    return source, target + (["</s>"] if rng.random() < 0.8 else [])


@pytest.mark.parametrize("links", ["argmax", "intersection", "grow-diag-final-and"])
@pytest.mark.parametrize("normalize", ["target", "source"])
@pytest.mark.parametrize(
    ("method", "blend", "spelling", "linked", "confidence"),
    [("shift", 0.0, 0.0, 0.0, 0.0), ("predict", 0.0, 2.0, 0.0, 0.0), ("shift", 0.5, 2.0, 1.0, 0.0),
     ("full", 0.25, 0.0, 0.5, 0.0), ("shift", 0.5, 2.0, 1.0, 0.4), ("predict", 0.0, 0.0, 0.0, 0.2)],
)  # fmt: skip
def test_many_pairs_link_as_each_alone(
    links, normalize, method, blend, spelling, linked, confidence
):
    rng = random.Random(7)
    torch.manual_seed(7)
    table = LinkedWords.from_pairs(
        ((s, t), rng.random()) for s in WORDS for t in WORDS if rng.random() < 0.3
    )
    pieces = [random_pair(rng) for _ in range(40)]
    weights = [torch.rand(len(t), len(s)).softmax(-1) for s, t in pieces]
    seconds = [torch.rand(len(t), len(s)).softmax(-1) for s, t in pieces]
    apart = []
    for source, target in pieces:  # some pairs keep a placeholder's words apart
        n_source = sum(p.startswith("▁") for p in source)
        n_target = sum(p.startswith("▁") for p in target)
        apart.append(
            ({rng.randrange(n_source)} if rng.random() < 0.3 else set(),
             {rng.randrange(n_target)} if n_target and rng.random() < 0.3 else set())
        )  # fmt: skip
    apart[0] = ({0}, set())  # one pair with every source word apart: no links at all
    pieces[0] = (["▁the", "</s>"], pieces[0][1])
    weights[0], seconds[0] = (torch.rand(len(pieces[0][1]), 2) for _ in range(2))
    method = AlignmentMethod(method, 1, (0,), normalize=normalize, links=links, blend=blend,
                             blend_layer=2, spelling=spelling, linked=linked,
                             confidence=confidence)  # fmt: skip
    expected = alone(weights, seconds, pieces, apart, method, table)
    assert link_batch(weights, seconds, pieces, apart, method, table) == expected
    assert expected[0] == set() and sum(map(len, expected)) > (0 if confidence else len(pieces))
    if confidence:  # fewer links than without, none of them below the share
        every = alone(weights, seconds, pieces, apart, replace(method, confidence=0.0), table)
        assert all(e <= f for e, f in zip(expected, every, strict=True))
        assert sum(map(len, expected)) < sum(map(len, every))
    assert link_batch([], [], [], [], method, table) == []


@pytest.fixture(scope="module")
def en_fr():
    return Translator.load(model_dir("en-fr"))


def test_the_bundled_models_translations_link_as_each_alone(en_fr):
    """Hansards sentences (long, with names and numbers), translated, then linked both ways
    by the model's recorded method (blended, spelling and linked words)."""
    lines = (SHARED / "align" / "hansards-en-fr" / "dev.en").read_text().splitlines()[:60]
    method = en_fr.resolved_alignment()
    assert method.blend and method.spelling and method.linked
    src = [fit_source(en_fr.tokenizer.encode(s), en_fr.config, quiet=True) for s in lines]
    found = en_fr.generate(src, 4)
    pairs = [(s, h[0].tokens) for s, h in zip(src, found, strict=True)]
    tokenizer = en_fr.tokenizer
    source_pieces = getattr(tokenizer, "source_pieces", tokenizer.pieces)
    pieces = [(source_pieces(s), tokenizer.pieces(t)) for s, t in pairs]
    apart = [((), ())] * len(pairs)
    apart[3] = ({1}, {0, 2})
    batched = align_ids(en_fr, pairs, method, apart=apart, pieces=pieces)
    first = [w[list(method.heads)].mean(0) for w in forced_cross(en_fr.model, pairs, method.layer)]
    second = [w.mean(0) for w in forced_cross(en_fr.model, pairs, method.blend_layer)]
    expected = alone(first, second, pieces, apart, method, en_fr.linked_words)
    assert batched == expected
    assert sum(map(len, expected)) > 10 * len(pairs)
