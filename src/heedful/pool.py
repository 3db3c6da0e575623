"""Several translators side by side, each in a process of its own with its own threads.

On a CPU a small model's products are too small to keep several threads busy: CTranslate2's
documentation advises several workers of one thread each (``inter_threads``) for throughput,
and on these 2 cores that is its faster way for the bundled models (bench/README). A
``TranslatorPool`` is heedful's: ``workers`` processes (spawned, so no thread or lock of the
caller is copied), each loading the model once, with ``threads`` threads; a call hands each
worker every ``workers``-th text by length, so that all get as much work, and puts the answers
back in order.

What a worker answers is what ``Translator`` answers for the texts it is given. A float32
model translates a sentence alike whatever sentences share its batch (heedful.continuous), so
the pool's translations and links are the single translator's (their scores to float
rounding, about 1e-6); an int8 model's activations are quantised with one scale per product,
and some of its translations change with the sentences beside them, as they do with
``--batch-size`` (60 of the first 1,200 es -> en dev sentences, greedy). The answers come back
from the workers pickled, between the caller's own processes; no file is ever unpickled. So do
the warnings a worker's call raised ("1 translation may leave out a word ..."), raised again in
the caller, where its filters and the CLI's one-line format apply.

    with TranslatorPool("models/es-en", workers=2) as pool:
        pool.translate(["Hola.", "¿Qué tal?"])
"""

from __future__ import annotations

import multiprocessing
import os
import time
import warnings
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import torch

from heedful.decoding import DecodingOptions
from heedful.translator import Translation, Translator

STARTING_S = 600  # how long the workers may take to load the model and answer
_translator: Translator | None = None  # a worker's own
_failure: Exception | None = None  # why a worker's model did not load


class TranslatorPool:
    """``workers`` processes, each with the model of ``model_dir`` (``Translator.load``, with
    ``quantize``) on ``threads`` threads (default: this process's threads shared out, at least
    one each)."""

    def __init__(
        self,
        model_dir: str | Path,
        workers: int,
        *,
        quantize: str | None = None,
        threads: int | None = None,
    ):
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.threads = threads or max(1, torch.get_num_threads() // workers)
        self._executor = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start,
            initargs=(str(model_dir), quantize, self.threads),
        )
        # every worker loads the model now: one that does not load fails here, not at the first
        # texts; and the pool's first call is timed like its others
        started: set[int] = set()
        deadline = time.monotonic() + STARTING_S
        while len(started) < workers:
            started |= {f.result() for f in [self._executor.submit(_ready) for _ in range(workers)]}
            if len(started) < workers and time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"{len(started)} of {workers} workers started in {STARTING_S} s")

    def translate(self, texts: list[str], beam_size: int | None = None, **keywords) -> list[str]:
        """``Translator.translate``'s texts (no ``alignments``: ``translate_n_best`` has them)."""
        options = DecodingOptions.given(None, beam_size, **keywords)
        return [best[0].text for best in self.translate_n_best(texts, options=options)]

    def translate_n_best(
        self,
        texts: list[str],
        *,
        options: DecodingOptions | None = None,
        alignments: bool = False,
    ) -> list[list[Translation]]:
        """``Translator.translate_n_best``."""
        return self._shared(texts, _translate, options or DecodingOptions(), alignments)

    def translate_html(
        self, fragments: list[str], options: DecodingOptions | None = None
    ) -> list[str]:
        """``heedful.markup.translate_html``: each HTML fragment translated, its tags kept."""
        return self._shared(fragments, _translate_html, options)

    def generate_tokens(
        self, src_ids: list[list[int]], beam_size: int, **keywords: Any
    ) -> list[list[int]]:
        """The best hypothesis's tokens for each source (``Translator.generate``)."""
        return self._shared(src_ids, _generate, beam_size, keywords)

    def _shared(self, items: list, work, *arguments) -> list:
        """``work(part, *arguments)`` in the workers, each part every ``workers``-th item by
        length, and the answers in the items' order."""
        order = sorted(range(len(items)), key=lambda i: len(items[i]))
        parts = [order[k :: self.workers] for k in range(self.workers)]
        futures: list[tuple[list[int], Future]] = [
            (part, self._executor.submit(_warned, work, [items[i] for i in part], *arguments))
            for part in parts
            if part
        ]
        out: list = [None] * len(items)
        for part, future in futures:
            answers, raised = future.result()
            for message, category in raised:
                warnings.warn(message, category, stacklevel=3)
            for i, answer in zip(part, answers, strict=True):
                out[i] = answer
        return out

    def close(self) -> None:
        self._executor.shutdown(cancel_futures=True)

    def __enter__(self) -> TranslatorPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _start(model_dir: str, quantize: str | None, threads: int) -> None:
    global _translator, _failure
    torch.set_num_threads(threads)
    warnings.filterwarnings("ignore", category=UserWarning, module="torch")
    try:
        _translator = Translator.load(model_dir, quantize=quantize)
    except Exception as error:  # noqa: BLE001 - raised again by _ready, in the caller
        _failure = error  # (an initializer's own exception only breaks the pool, unnamed)


def _ready() -> int:
    if _failure is not None:
        raise _failure
    time.sleep(0.05)  # long enough for the other workers to take the other calls
    return os.getpid()


def _warned(work, *arguments) -> tuple[Any, list[tuple[str, type[Warning]]]]:
    """``work(*arguments)`` in a worker, and the warnings it raised, for the caller to raise."""
    with warnings.catch_warnings(record=True) as raised:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=UserWarning, module="torch")
        answers = work(*arguments)
    return answers, [(str(w.message), w.category) for w in raised]


def _translate(texts, options, alignments) -> list[list[Translation]]:
    return _translator.translate_n_best(texts, options=options, alignments=alignments)


def _translate_html(fragments, options) -> list[str]:
    from heedful.markup import translate_html

    return translate_html(_translator, fragments, options)


def _generate(src_ids, beam_size, keywords) -> list[list[int]]:
    return [found[0].tokens for found in _translator.generate(src_ids, beam_size, **keywords)]
