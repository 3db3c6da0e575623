"""bench/decode_workloads.py: the long-tailed file is the dev sources plus paragraphs and long
sentences, the same at every run."""

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

import decode_workloads  # noqa: E402

SOURCES = [f"Tom tiene {n} perros y vive en la casa número {n}." for n in range(40)]
SOURCES += [f"Mary compró {n} manzanas rojas en el mercado de la ciudad." for n in range(40)]
REFERENCES = [s.replace("tiene", "has").replace("compró", "bought") for s in SOURCES]


def make(seed: int = 1) -> list[str]:
    return decode_workloads.long_tail(
        SOURCES, REFERENCES, "es", "en", seed=seed, paragraphs=10, long=10
    )


def test_the_long_tail_is_the_sources_with_paragraphs_and_long_sentences():
    mixed = make()
    assert mixed == make() and mixed != make(seed=2)  # seeded
    assert len(mixed) == len(SOURCES) + 20
    assert sorted(s for s in mixed if s in SOURCES) == sorted(SOURCES)
    made = [s for s in mixed if s not in SOURCES]
    words = [len(s.split()) for s in made]
    assert sum(40 <= n <= 80 for n in words) >= 10  # the long sentences
    assert sum(s.count(". ") >= 1 for s in made) >= 10  # the paragraphs, 2-6 sentences
    assert mixed[: len(SOURCES)] != SOURCES  # shuffled together
