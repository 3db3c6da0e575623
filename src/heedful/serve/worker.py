"""One model's queue: its own thread runs every call, one at a time, and requests to translate
that wait together run as one batch.

A torch module and its decoding caches are not safe to share between threads, so each model gets
a single worker thread (``ThreadPoolExecutor(max_workers=1)``) and the event loop only waits on
futures. Translation requests are micro-batched without a timer: each request queues its texts
and asks the thread to drain the queue; while one batch runs, the next requests pile up and the
next drain takes them all (up to ``MAX_BATCH_TEXTS`` texts) as one ``Translator.translate`` call.
An idle server answers at once; a busy one batches more.

A request that gives up (its timeout, or its client gone) is dropped from the queue if its batch
has not started; one already running finishes, and its answer is thrown away.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import torch

from heedful.attended import Attended
from heedful.translator import Translator

MAX_BATCH_TEXTS = 64  # texts per drain: twice the Translator's batch of 32
ATTENDED_CACHE_BYTES = 128 * 2**20  # the latest sentences' weights, to switch views for free


class Busy(Exception):
    """More requests wait for this model than it may queue."""


@dataclass
class _Job:
    texts: list[str]
    beam_size: int
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future
    abandoned: bool = False  # set by the event loop when the caller stops waiting


@dataclass
class Counters:
    """What /health reports of a worker."""

    waiting: int = 0  # requests queued or running now
    served: int = 0  # requests answered
    batches: int = 0  # Translator.translate calls
    texts: int = 0  # texts translated
    largest_batch: int = 0  # texts in the largest batch so far


@dataclass
class _AttendedCache:
    """Least recently used Attended results, at most ``limit`` bytes of weights in all."""

    limit: int
    items: OrderedDict = field(default_factory=OrderedDict)
    size: int = 0

    def get(self, key) -> Attended | None:
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key][0]
        return None

    def put(self, key, attended: Attended) -> None:
        tensors = (attended.encoder_self, attended.decoder_self, attended.cross)
        nbytes = sum(t.nbytes for t in tensors if t is not None)
        if key in self.items or nbytes > self.limit:
            return
        self.items[key] = (attended, nbytes)
        self.size += nbytes
        while self.size > self.limit:
            _, (_, old) = self.items.popitem(last=False)
            self.size -= old


class ModelWorker:
    """A Translator behind one thread. Call its coroutines from the event loop only."""

    def __init__(
        self,
        name: str,
        translator: Translator,
        *,
        max_waiting: int = 256,
        threads: int | None = None,
    ):
        """``threads``: torch's intra-op threads for this model's calls (default: torch's)."""
        self.name = name
        self.translator = translator
        self.max_waiting = max_waiting
        self.counters = Counters()
        self._executor = ThreadPoolExecutor(
            max_workers=1,
            thread_name_prefix=f"heedful-{name}",
            initializer=None if threads is None else torch.set_num_threads,
            initargs=() if threads is None else (threads,),
        )
        self._mutex = threading.Lock()  # guards _queue, shared with the worker thread
        self._queue: deque[_Job] = deque()
        self._attended = _AttendedCache(ATTENDED_CACHE_BYTES)

    async def translate(self, texts: list[str], beam_size: int) -> list[str]:
        """``Translator.translate(texts, beam_size)``, batched with whatever else is waiting."""
        loop = asyncio.get_running_loop()
        job = _Job(list(texts), beam_size, loop, loop.create_future())
        with self._admitted():
            with self._mutex:
                self._queue.append(job)
            self._executor.submit(self._drain)
            try:
                return await job.future
            except asyncio.CancelledError:
                job.abandoned = True
                raise

    async def attend(self, text: str, target: str | None, beam_size: int) -> Attended:
        """``Translator.attend``; the latest results are kept, so asking again for another
        kind, layer or head of the same sentence costs nothing."""
        key = (text, target, beam_size)
        cached = self._attended.get(key)
        if cached is not None:
            return cached
        with self._admitted():
            call = self._executor.submit(self.translator.attend, text, target, beam_size)
            attended = await asyncio.wrap_future(call)  # cancelling it cancels a queued call
        self._attended.put(key, attended)
        return attended

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    # --- internals -----------------------------------------------------------------------------

    def _admitted(self):
        if self.counters.waiting >= self.max_waiting:
            raise Busy(f"model {self.name!r} has {self.counters.waiting} requests waiting")
        return _Waiting(self.counters)

    def _drain(self) -> None:
        """On the worker thread: translate what is queued, grouped by beam size."""
        jobs, count = [], 0
        with self._mutex:
            while self._queue:
                if jobs and count + len(self._queue[0].texts) > MAX_BATCH_TEXTS:
                    break  # the next drain takes the rest
                job = self._queue.popleft()
                if not job.abandoned:
                    jobs.append(job)
                    count += len(job.texts)
        by_beam: dict[int, list[_Job]] = {}
        for job in jobs:
            by_beam.setdefault(job.beam_size, []).append(job)
        for beam_size, group in by_beam.items():
            texts = [text for job in group for text in job.texts]
            try:
                translations = self.translator.translate(texts, beam_size=beam_size)
            except Exception as e:  # noqa: BLE001 - handed to each waiting request
                for job in group:
                    job.loop.call_soon_threadsafe(_settle, job.future, None, e)
                continue
            self.counters.batches += 1
            self.counters.texts += len(texts)
            self.counters.largest_batch = max(self.counters.largest_batch, len(texts))
            start = 0
            for job in group:
                answer = translations[start : start + len(job.texts)]
                start += len(job.texts)
                job.loop.call_soon_threadsafe(_settle, job.future, answer, None)


class _Waiting:
    """Counts a request as waiting while it is inside the ``with``."""

    def __init__(self, counters: Counters):
        self.counters = counters

    def __enter__(self):
        self.counters.waiting += 1

    def __exit__(self, kind, value, traceback):
        self.counters.waiting -= 1
        if kind is None:
            self.counters.served += 1


def _settle(future: asyncio.Future, result, error: BaseException | None) -> None:
    if future.done():  # the caller gave up meanwhile
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
