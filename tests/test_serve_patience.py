"""The server's timeout counts time without progress (heedful.serve.worker, "Patience"): a long
request whose texts keep being translated is answered however long it takes in all, one left
waiting is answered 504, and requests queued behind long work still move. The model here is a
stand-in that sleeps a fixed time a batch, so that the times are the test's own; and the server
gives memory back after large work (heedful.serve.memory)."""

from __future__ import annotations

import asyncio
import os
import threading
import time

import httpx
import pytest
from serve_support import make_model_dir, until

from heedful.serve import create_app
from heedful.serve import worker as worker_module
from heedful.serve.memory import NATIVE_CACHES
from heedful.serve.worker import BATCH_COST, TRIM_AFTER_COST, ModelWorker, sentence_cost
from heedful.translator import Translation

BASE = "http://127.0.0.1"


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return make_model_dir(tmp_path_factory.mktemp("patience") / "es-en")


def long_texts(n: int) -> list[str]:
    """n texts of 6 sentences: at beam 8, 2 of them fill a batch."""
    return [" ".join(f"Es la frase {6 * i + j}." for j in range(6)) for i in range(n)]


def answer(text: str) -> list[Translation]:
    return [Translation(f"<{text[:20]}>", 0.0, [])]


class SlowModel:
    """A Translator's stand-in: ``seconds`` a batch; ``on_batch(n)`` is called in the n-th."""

    def __init__(self, seconds: float, on_batch=None):
        self.seconds = seconds
        self.on_batch = on_batch
        self.batches = 0

    def translate_n_best(self, texts, beam_size=None, *, n_best=1, alignments=False):
        self.batches += 1
        if self.on_batch is not None:
            self.on_batch(self.batches)
        time.sleep(self.seconds)
        return [answer(t) for t in texts]

    def attend(self, text, target=None, beam_size=4):
        time.sleep(self.seconds)
        raise ValueError("only the wait is tested")  # answered 422


def slow_app(model_dir, monkeypatch, timeout_s: float, model: SlowModel):
    app = create_app({"es-en": model_dir}, timeout_s=timeout_s)
    translator = app.state.workers["es-en"].translator
    monkeypatch.setattr(translator, "translate_n_best", model.translate_n_best)
    monkeypatch.setattr(translator, "attend", model.attend)
    return app


def client(app) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)


def test_a_long_request_whose_texts_keep_being_translated_is_answered(model_dir, monkeypatch):
    """16 batches of 0.1 s each: longer in all than the timeout, never that long without one."""
    texts = long_texts(32)
    assert [sentence_cost(t, 8) for t in texts] == [48] * 32 and 2 * 48 <= BATCH_COST < 3 * 48
    model = SlowModel(0.1)
    app = slow_app(model_dir, monkeypatch, 0.5, model)

    async def main():
        async with client(app) as c:
            start = time.perf_counter()
            r = await c.post("/translate", json={"texts": texts, "beam_size": 8})
            return r, time.perf_counter() - start

    r, seconds = asyncio.run(main())
    assert r.status_code == 200, r.text
    assert r.json()["translations"] == [answer(t)[0].text for t in texts]
    assert model.batches == 16 and seconds > 3 * 0.5


def test_a_request_left_waiting_between_its_batches_is_504(model_dir, monkeypatch):
    """After 3 of its batches the model's thread is kept busy by other work: the request made
    progress, then none for the timeout, and is cut; the model then drops it."""
    gate = threading.Event()
    app = None

    def block_after_third(n):
        if n == 3:  # queued before the request's next turn
            app.state.workers["es-en"]._executor.submit(gate.wait, 30)

    model = SlowModel(0.05, block_after_third)
    app = slow_app(model_dir, monkeypatch, 0.3, model)

    async def main():
        async with client(app) as c:
            try:
                start = time.perf_counter()
                r = await c.post("/translate", json={"texts": long_texts(32), "beam_size": 8})
                return r, time.perf_counter() - start
            finally:
                gate.set()

    r, seconds = asyncio.run(main())
    assert r.status_code == 504 and "0.3 s" in r.json()["detail"]
    assert seconds >= 3 * 0.05 + 0.3
    worker = app.state.workers["es-en"]
    asyncio.run(until(lambda: worker.counters.waiting == 0 and worker._queue == []))
    assert model.batches == 3


def test_requests_queued_behind_long_ones_still_move(model_dir, monkeypatch):
    """Four long requests at once, each 16 batches of 0.04 s (2.6 s in all, the timeout 1 s):
    the least work left goes first, but one that has waited half the timeout leads the next
    batch, so none is cut."""
    model = SlowModel(0.04)
    app = slow_app(model_dir, monkeypatch, 1.0, model)
    texts = long_texts(32)

    async def main():
        async with client(app) as c:
            asks = [c.post("/translate", json={"texts": texts, "beam_size": 8}) for _ in range(4)]
            return await asyncio.gather(*asks)

    answers = asyncio.run(main())
    assert [r.status_code for r in answers] == [200] * 4, [r.text for r in answers]
    assert model.batches == 4 * 16


def test_an_attention_call_is_cut_waiting_but_not_running(model_dir, monkeypatch):
    """/attention is one piece: a call longer than the timeout is answered, one that waits
    that long behind other work is 504."""
    app = slow_app(model_dir, monkeypatch, 0.2, SlowModel(0.5))

    async def main():
        async with client(app) as c:
            running = await c.post("/attention", json={"text": "Hola."})
            gate = threading.Event()
            app.state.workers["es-en"]._executor.submit(gate.wait, 30)
            try:
                waiting = await c.post("/attention", json={"text": "Hola."})
            finally:
                gate.set()
            return running, waiting

    running, waiting = asyncio.run(main())
    assert running.status_code == 422 and "only the wait" in running.json()["detail"]
    assert waiting.status_code == 504


# --- memory -----------------------------------------------------------------------------------


def test_memory_is_given_back_when_the_queue_empties_after_large_work(monkeypatch):
    calls = []
    monkeypatch.setattr(worker_module, "give_back", lambda: calls.append(1))
    worker = ModelWorker("m", SlowModel(0.0))

    async def ask(texts, beam):
        return await worker.translate(texts, beam)

    try:
        small = ["Hola."] * 8  # 8 sentences at beam 4: 32
        assert sum(sentence_cost(t, 4) for t in small) < TRIM_AFTER_COST
        asyncio.run(ask(small, 4))
        assert calls == []
        large = long_texts(8)  # 8 texts of 6 sentences at beam 8: 384
        assert sum(sentence_cost(t, 8) for t in large) >= TRIM_AFTER_COST
        asyncio.run(ask(large, 8))
        asyncio.run(until(lambda: calls == [1]))  # after the turn that answered it
        asyncio.run(ask(small, 4))
        time.sleep(0.1)
        assert calls == [1]  # small work after it gives nothing back
    finally:
        worker.close()


def test_the_server_bounds_onednns_caches_unless_told(model_dir, monkeypatch):
    for name in NATIVE_CACHES:
        monkeypatch.setenv(name, "x")
        monkeypatch.delenv(name)  # restored to unset afterwards
    create_app({"es-en": model_dir})
    assert {name: os.environ[name] for name in NATIVE_CACHES} == NATIVE_CACHES
    assert all(int(value) < 1024 for value in NATIVE_CACHES.values())  # the libraries' default
    monkeypatch.setenv("LRU_CACHE_CAPACITY", "7")
    create_app({"es-en": model_dir})
    assert os.environ["LRU_CACHE_CAPACITY"] == "7"
