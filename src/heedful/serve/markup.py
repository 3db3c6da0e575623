"""``format=html`` in both APIs: each fragment's texts translated on the model's worker, batched
with the other requests, with their word links, and every tag put back around the words it was
around (``heedful.markup``: parsing and placing; here only the glue).

Parsing and writing HTML take a few milliseconds a fragment, so they run in a thread of the
pool, not on the event loop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi.concurrency import run_in_threadpool

from heedful.markup import Markup, render_all
from heedful.serve.worker import ModelWorker

__all__ = ["Markup", "parse", "translate_markups"]


async def parse(fragments: list[str]) -> list[Markup]:
    return await run_in_threadpool(lambda: [Markup.parse(f) for f in fragments])


async def translate_markups(
    worker: ModelWorker,
    in_time: Callable[[Awaitable], Awaitable],
    markups: list[Markup],
    beam_size: int,
) -> tuple[list[str], list[list[str]]]:
    """Each parsed fragment translated, its texts in one request to ``worker``; and what may be
    wrong with each fragment's translation (its texts' ``Translation.warnings``, in order)."""
    texts = [text for markup in markups for text in markup.texts]
    found = await in_time(worker.translate(texts, beam_size, alignments=True)) if texts else []
    notes, at = [], 0
    for markup in markups:
        n = len(markup.segments)
        notes.append([note for options in found[at : at + n] for note in options[0].warnings])
        at += n
    return await run_in_threadpool(render_all, markups, found), notes
