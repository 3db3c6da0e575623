"""One model's queue: its own thread runs every call, one at a time, and the texts that wait to
be translated are gathered into batches, the least work first.

A torch module and its decoding caches are not safe to share between threads, so each model gets
a single worker thread (``ThreadPoolExecutor(max_workers=1)``) and the event loop only waits on
futures. The thread runs one batch per turn:

- **Gathering.** A request queues its texts (a job) and asks for a turn. A turn first waits
  until ``gather_s`` (a few milliseconds) after the oldest job arrived, so that requests sent
  together share a batch; on a busy model the oldest has waited longer than that already
  (requests pile up while a batch runs), and the turn starts at once.
- **Pieces.** The unit of work is one text (``Translator.translate_n_best`` cuts a text into its
  sentences and batches them). A text costs ``sentence_cost``: the sentences it seems to hold
  times the beam (at least 4, the Translator's batch of 32 sentences at beam 4 being one full
  batch), and a turn takes at most ``batch_cost`` of it, so that a request of 32 long texts at
  beam 8 runs in many turns instead of one.
- **By size.** Requests whose work left fits in one batch come first, the least recently served
  first (first come, first served); then the larger ones, the least work left first. Each turn
  is led by the first of them, and takes only texts of its beam size and n-best, and of its size
  class (a sentence or two, or longer), so that a short request does not wait for long texts in
  its own batch: the lead's texts, then those of the next requests in that order, smallest texts
  first, until the budget is spent. So a short request waits for the batch that is running,
  then runs in the next one (or the one after, behind earlier short ones), however much long
  work is queued; and long requests finish one after the other instead of all of them late.
  (Short requests that keep the model busy without a pause would hold long ones back; the
  patience rule below still gives each of those a batch now and then.)

Word alignments (``alignments=True``) are computed for a whole batch when one of its requests
asks for them (6-11% more time for that batch: decoding keeps the aligning heads' weights,
heedful.aligning); the others are not kept waiting for a batch of their own.

**Patience** (the server's timeout): a request is given up (``Stalled``, which the server
answers 504) when ``patience`` seconds pass in which it made no progress: none of its texts was
being translated and no batch of them ended. The clock starts as it arrives, restarts as each
batch of its texts ends, and stops while one runs; so a request as long as the API allows, whose
texts are being translated batch after batch, is answered however long it takes in all, and
only one left waiting (behind a model stuck or flooded) is cut. So that a request that has to
wait behind others' work still moves, one that has waited half its patience without progress
leads the next batch, before the order above. An attention call is one piece: the clock stops
once it starts.

Blank texts (white space or invisible characters only) are answered "" without the model. A
request that gives up (stalled, or its client gone) is dropped from the queue; a batch already
running finishes, and its answers are thrown away. After a turn that leaves the queue empty,
memory freed by large batches is given back to the system (``heedful.serve.memory``).
"""

from __future__ import annotations

import asyncio
import itertools
import math
import re
import threading
import time
from collections import OrderedDict, deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import torch

from heedful.attended import Attended
from heedful.serve.memory import give_back
from heedful.serve.text import is_blank
from heedful.translator import Translation, Translator

GATHER_S = 0.005  # how long an idle model waits for more requests before translating
BATCH_COST = 128  # a turn's budget: 32 sentences at beam 4 (the Translator's batch), 16 at beam 8
LONG_SENTENCES = 2  # texts of more sentences than this run in batches of long texts
TRIM_AFTER_COST = 256  # give memory back when the queue empties after this much work
ATTENDED_CACHE_BYTES = 128 * 2**20  # the latest sentences' weights, to switch views for free
_SENTENCE_END = re.compile(r"[.!?…。！？]+(?=\s|$)")


def sentences_in(text: str) -> int:
    """About how many sentences ``text`` holds: its sentence ends, or one per 200 characters
    for text without them."""
    return max(1, len(_SENTENCE_END.findall(text)), math.ceil(len(text) / 200))


def sentence_cost(text: str, beam_size: int) -> int:
    """What a text costs a batch: its sentences times its beams (a beam under 4 costs as 4: the
    Translator batches 32 sentences whatever their beam)."""
    return sentences_in(text) * max(beam_size, 4)


class Busy(Exception):
    """More requests wait for this model than it may queue."""


class Stalled(TimeoutError):
    """A request made no progress for its model's ``patience`` seconds."""

    def __init__(self, patience: float):
        super().__init__(f"no progress in {patience:g} s")
        self.patience = patience


@dataclass
class _Progress:
    """When a request last moved (its arrival or the end of a batch of its texts, by
    time.monotonic()), and whether one of its batches is running now."""

    since: float
    running: bool = False

    def started(self) -> None:
        self.running = True

    def ended(self) -> None:
        self.since, self.running = time.monotonic(), False


@dataclass(eq=False)
class _Job:
    texts: list[str]
    beam_size: int
    n_best: int
    alignments: bool
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future
    arrived: float  # time.monotonic()
    progress: _Progress
    served: int  # the turn in which it was last served (its arrival's, at first): oldest leads
    results: list[list[Translation] | None] = field(default_factory=list)
    todo: deque[int] = field(default_factory=deque)  # texts not yet run, smallest first
    costs: list[int] = field(default_factory=list)
    remaining: int = 0  # the costs of the texts in todo
    abandoned: bool = False  # set by the event loop when the caller stops waiting

    @property
    def kind(self) -> tuple[int, int]:
        return self.beam_size, self.n_best

    def is_long(self, i: int) -> bool:
        return self.costs[i] > LONG_SENTENCES * max(self.beam_size, 4)


@dataclass
class Counters:
    """What /health reports of a worker."""

    waiting: int = 0  # requests queued or running now
    served: int = 0  # requests answered
    batches: int = 0  # Translator.translate_n_best calls
    texts: int = 0  # texts translated (blank ones are not)
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
        gather_s: float = GATHER_S,
        batch_cost: int = BATCH_COST,
        patience: float | None = None,
    ):
        """``threads``: torch's intra-op threads for this model's calls (default: torch's);
        ``patience``: seconds a request may go without progress before it is given up
        (``Stalled``; None: it waits as long as it takes)."""
        self.name = name
        self.translator = translator
        self.max_waiting = max_waiting
        self.patience = patience
        self.gather_s = gather_s
        self.batch_cost = batch_cost
        self.counters = Counters()
        self._executor = ThreadPoolExecutor(
            max_workers=1,
            thread_name_prefix=f"heedful-{name}",
            initializer=None if threads is None else torch.set_num_threads,
            initargs=() if threads is None else (threads,),
        )
        self._mutex = threading.Lock()  # guards what follows, shared with the worker thread
        self._queue: list[_Job] = []
        self._turns = itertools.count()
        self._turn_pending = False  # a _turn is submitted and has not started
        self._cost_since_trim = 0
        self._attended = _AttendedCache(ATTENDED_CACHE_BYTES)

    async def translate(
        self, texts: list[str], beam_size: int, n_best: int = 1, alignments: bool = False
    ) -> list[list[Translation]]:
        """``Translator.translate_n_best(texts, beam_size, n_best=n_best,
        alignments=alignments)``, in batches shared with the other requests waiting; blank texts
        give [Translation("", 0.0, [])] (with no links)."""
        loop = asyncio.get_running_loop()
        with self._admitted():
            now = time.monotonic()
            job = _Job(list(texts), beam_size, n_best, alignments, loop, loop.create_future(),
                       now, _Progress(now), next(self._turns))  # fmt: skip
            job.costs = [sentence_cost(t, beam_size) for t in job.texts]
            blank = [] if alignments else None
            job.results = [[Translation("", 0.0, [], blank)] if is_blank(t) else None
                           for t in texts]  # fmt: skip
            job.todo = deque(sorted((i for i, r in enumerate(job.results) if r is None),
                                    key=lambda i: job.costs[i]))  # fmt: skip
            job.remaining = sum(job.costs[i] for i in job.todo)
            if not job.todo:
                return job.results
            with self._mutex:
                self._queue.append(job)
                self._ask_for_turn()
            try:
                return await self._patiently(job.future, job.progress)
            except (asyncio.CancelledError, Stalled):
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
            progress = _Progress(time.monotonic())

            def attend() -> Attended:
                progress.started()
                return self.translator.attend(text, target, beam_size)

            call = asyncio.wrap_future(self._executor.submit(attend))
            try:
                attended = await self._patiently(call, progress)
            except Stalled:
                call.cancel()  # not started (else it would not stall): it never runs
                raise
        self._attended.put(key, attended)
        return attended

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)

    # --- internals -----------------------------------------------------------------------------

    async def _patiently(self, future: asyncio.Future, progress: _Progress):
        """``await future``, or Stalled once ``patience`` seconds pass without progress."""
        if self.patience is None:
            return await future
        while True:
            left = self.patience  # while a batch of it runs: look again after that long
            if not progress.running:
                left = progress.since + self.patience - time.monotonic()
                if left <= 0:
                    raise Stalled(self.patience)
            done, _ = await asyncio.wait([future], timeout=left)  # never cancels it
            if done:
                return future.result()

    def _admitted(self):
        if self.counters.waiting >= self.max_waiting:
            raise Busy(f"model {self.name!r} has {self.counters.waiting} requests waiting")
        return _Waiting(self.counters)

    def _ask_for_turn(self) -> None:
        """Under the mutex: make sure a turn is queued on the thread (after any attend call
        queued before it: attention takes its turn too)."""
        if not self._turn_pending:
            self._turn_pending = True
            self._executor.submit(self._turn)

    def _turn(self) -> None:
        """On the worker thread: gather, then run one batch, and ask for another turn if work
        is left."""
        with self._mutex:
            self._turn_pending = False
            oldest = min((j.arrived for j in self._queue if not j.abandoned), default=None)
        if oldest is not None:
            time.sleep(max(0.0, oldest + self.gather_s - time.monotonic()))
        with self._mutex:
            batch = self._next_batch()
        if batch is not None:
            self._run(batch)
        with self._mutex:
            if any(j.todo and not j.abandoned for j in self._queue):
                self._ask_for_turn()
                return
            self._queue.clear()
            trim = self._cost_since_trim >= TRIM_AFTER_COST
            if trim:
                self._cost_since_trim = 0
        if trim:
            give_back()

    def _next_batch(self) -> list[tuple[_Job, int]] | None:
        """Under the mutex: the (job, text) pairs of the next batch, or None (see the module's
        docstring)."""
        self._queue = [j for j in self._queue if j.todo and not j.abandoned]
        if not self._queue:
            return None
        now = time.monotonic()
        order = sorted(self._queue, key=lambda job: self._priority(job, now))
        lead = order[0]
        long = lead.is_long(lead.todo[0])
        batch: list[tuple[_Job, int]] = []
        spent = 0
        for job in order:
            if job.kind != lead.kind:
                continue
            while job.todo and job.is_long(job.todo[0]) == long:
                cost = job.costs[job.todo[0]]
                if batch and spent + cost > self.batch_cost:
                    break  # its next texts are no smaller; another job's may fit
                batch.append((job, job.todo.popleft()))
                job.remaining -= cost
                spent += cost
        for job in {job for job, _ in batch}:
            job.progress.started()
        self._cost_since_trim += spent
        return batch

    def _priority(self, job: _Job, now: float) -> tuple:
        if self.patience is not None and now - job.progress.since >= self.patience / 2:
            return (0, job.progress.since)  # waited half its patience without progress
        if job.remaining <= self.batch_cost:  # a small request: first come, first served
            return (1, job.served)
        return (2, job.remaining, job.served)

    def _run(self, batch: list[tuple[_Job, int]]) -> None:
        """On the worker thread: translate the batch and hand each job its answers."""
        (lead, _), *_ = batch
        texts = [job.texts[i] for job, i in batch]
        alignments = any(job.alignments for job, _ in batch)
        try:
            found = self.translator.translate_n_best(
                texts, beam_size=lead.beam_size, n_best=lead.n_best, alignments=alignments
            )
        except Exception as e:  # noqa: BLE001 - handed to each waiting request
            with self._mutex:
                for job in {job for job, _ in batch}:
                    job.todo.clear()
                    job.progress.ended()
                    job.loop.call_soon_threadsafe(_settle, job.future, None, e)
            return
        self.counters.batches += 1
        self.counters.texts += len(texts)
        self.counters.largest_batch = max(self.counters.largest_batch, len(texts))
        with self._mutex:
            served = next(self._turns)
            for (job, i), options in zip(batch, found, strict=True):
                job.results[i] = options
                job.served = served
            for job in {job for job, _ in batch}:
                job.progress.ended()
                if not job.todo:
                    job.loop.call_soon_threadsafe(_settle, job.future, job.results, None)


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
