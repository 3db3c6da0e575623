"""Women's names and the words that agree with them: does the translation keep her a woman?

    python bench/agreement.py                          # both bundled models
    python bench/agreement.py --names names.json       # the same names (say, for older code)

Tatoeba's woman is "Mary": the bundled models write "Mary est prête." and "Mary lost her book.",
but "Alice est prêt." and "Alicia lost his book." for the women's names they read too. This
counts, on sentences of my own making (templates below, never used in training), how often a
woman's first name from Faker's lists for the source language (heedful.names.people: its
``women``, not a place nor "Mary"; those the model read, so that it reads them as names) gets
the feminine: en -> fr, a feminine adjective of the template ("prête", "mariée"...); es -> en,
"her" or "she" and no "his", "he" or "him". Names the training text writes in lower case
("Rose", "Luz") go inside a sentence ("I think Rose is ready."), the others open it.

``--names FILE`` reads the names from FILE (written there on the first run): heedful's code of
another day can then be measured on the same names (``PYTHONPATH=OLD/src``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ADJECTIVES = {  # English -> the French feminine
    "ready": "prête", "happy": "heureuse", "tall": "grande", "married": "mariée",
    "busy": "occupée", "alone": "seule", "small": "petite", "lucky": "chanceuse",
    "nervous": "nerveuse", "surprised": "surprise",
}  # fmt: skip
SPANISH = [
    "{n} perdió su libro.",
    "{n} llamó a su madre.",
    "{n} vive con su perro.",
    "{n} ama a su marido.",
    "Creo que {n} terminó su trabajo.",
]


def read_names(model: Path, source: str) -> dict[str, list[str]]:
    """The women's first names the model read: "opening" (written capitalised in training) and
    "inside" (written in lower case there: a word too)."""
    from heedful.lexicon import Lexicon
    from heedful.names import people, places

    lexicon = Lexicon.load(model)
    found, where = people(source), places(source)
    read = sorted(
        (w for w in found.women if w in found.first and w not in where and w != "Mary"),
        key=lambda w: (-(lexicon.counts or {}).get(w.lower(), 0), w),
    )
    read = [w for w in read if lexicon.usual_case(w) is not None]
    inside = [w for w in read if lexicon.usual_case(w).islower()]
    return {"opening": [w for w in read if w not in inside], "inside": inside}


def inputs(source: str, names: dict[str, list[str]]) -> list[tuple[str, str]]:
    """(sentence, what must be in its translation) for every name and template."""
    if source == "en":
        out = [(f"{n} is {a}.", f) for n in names["opening"] for a, f in ADJECTIVES.items()]
        out += [(f"I think {n} is {a}.", f) for n in names["inside"] for a, f in ADJECTIVES.items()]
        return out
    return [(t.format(n=n), "her") for n in names["opening"] + names["inside"] for t in SPANISH]


def agrees(translation: str, wanted: str) -> bool:
    words = {w.lower() for w in re.findall(r"\w+", translation)}
    if wanted == "her":
        return bool(words & {"her", "she"}) and not words & {"his", "he", "him"}
    return wanted in words


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, action="append", help="model directory (repeatable)")
    parser.add_argument("--names", type=Path, help="read the names here (written if missing)")
    args = parser.parse_args(argv)
    from heedful import Translator

    models = args.model or [REPO / "models" / name for name in ("es-en", "en-fr")]
    known = json.loads(args.names.read_text()) if args.names and args.names.is_file() else {}
    started = time.perf_counter()
    for model in models:
        translator = Translator.load(model)
        source = translator.source_language
        names = known.get(str(model.name)) or read_names(model, source)
        known[str(model.name)] = names
        pairs = inputs(source, names)
        found = translator.translate([s for s, _ in pairs], beam_size=4)
        right = sum(agrees(t, wanted) for t, (_, wanted) in zip(found, pairs, strict=True))
        counts = f"{len(names['opening'])} names opening, {len(names['inside'])} inside"
        print(f"{model.name}: {right} of {len(pairs)} agree with a woman ({counts})")
    if args.names and not args.names.is_file():
        args.names.write_text(json.dumps(known, ensure_ascii=False, indent=1) + "\n")
    print(f"{time.perf_counter() - started:.0f} s, beam 4")
    return 0


if __name__ == "__main__":
    sys.exit(main())
