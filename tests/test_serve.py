"""`heedful serve` through FastAPI's TestClient: answers equal the Translator's and
heedful.explain's, every bad input gets its status and a JSON message, concurrent requests are
batched without mixing answers, and a busy or slow model answers 503 / 504 while /health still
answers."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time

import httpx
import pytest
import torch
from fastapi.testclient import TestClient
from serve_support import SOURCE, make_model_dir, tatoeba_pairs, until

from heedful import native
from heedful.commands.serve import model_dirs
from heedful.explain.page import shared_script
from heedful.explain.tables import format_table
from heedful.explain.views import views
from heedful.explain.words import to_words
from heedful.serve import create_app
from heedful.serve.app import STATIC
from heedful.serve.schemas import MAX_TEXT_CHARS, MAX_TEXTS
from heedful.serve.worker import sentences_in
from heedful.translator import Translator

TEXTS = [SOURCE, "Hola, mundo.", "¿Dónde está la estación de tren?", "Tengo hambre.", SOURCE]
BASE = "http://127.0.0.1"  # a loopback host: the server answers no other Host header by default


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    return {"es-en": make_model_dir(root / "es-en", seed=1), "m2": make_model_dir(root / "m2", 3)}


@pytest.fixture(scope="module")
def translators(dirs):
    """Loaded apart from the app's own: what any other user of the Translator API gets."""
    return {name: Translator.load(d) for name, d in dirs.items()}


@pytest.fixture(scope="module")
def client(dirs):
    with TestClient(create_app(dirs), base_url=BASE) as c:
        yield c


def new_app(dirs, **options):
    return create_app({"es-en": dirs["es-en"]}, **options)


@contextlib.contextmanager
def blocked(app, name="es-en"):
    """Keep the model's thread busy until the block ends: requests queue up meanwhile."""
    gate = threading.Event()
    app.state.workers[name]._executor.submit(gate.wait)
    try:
        yield app.state.workers[name]
    finally:
        gate.set()


def assert_weights(got, expected: torch.Tensor) -> None:
    """JSON weights (six decimals) against the tensor they came from."""
    got = torch.tensor(got, dtype=torch.float64)
    torch.testing.assert_close(got, expected.double(), atol=1e-6, rtol=0)


def async_client(app) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE)


def test_the_native_kernels_are_built_as_the_server_starts_not_in_its_first_request(
    dirs, monkeypatch, fresh_build
):
    monkeypatch.setenv("HEEDFUL_NATIVE", "1")
    app = new_app(dirs)
    assert native._library.cache_info().currsize == 0  # loading the models built nothing
    with TestClient(app, base_url=BASE) as c:
        assert native._library.cache_info().currsize == 1 and native.available()
        assert list((fresh_build / "native").glob("kernels-*.so"))
        assert c.post("/translate", json={"text": SOURCE}).status_code == 200


# --- translation ------------------------------------------------------------------------------


@pytest.mark.parametrize("beam", [1, 4])
def test_translate_one_text_is_the_translators_translation(client, translators, beam):
    r = client.post("/translate", json={"text": SOURCE, "beam_size": beam})
    assert r.status_code == 200, r.text
    expected = translators["es-en"].translate([SOURCE], beam_size=beam, alignments=True)[0]
    assert r.json() == {"model": "es-en", "beam_size": beam, "translation": expected.text,
                        "warnings": expected.warnings}  # fmt: skip
    assert expected.text  # the test model says something (never ending it: a warning)


def test_translate_texts_keeps_their_order(client, translators):
    r = client.post("/translate", json={"texts": TEXTS, "beam_size": 2})
    assert r.status_code == 200, r.text
    out = r.json()["translations"]
    assert out == translators["es-en"].translate(TEXTS, beam_size=2)
    assert out[0] == out[4] and len(set(out)) > 1


def test_models_are_chosen_by_name_the_first_is_the_default(client, translators):
    one = [client.post("/translate", json={"text": t, "model": "m2"}).json() for t in TEXTS[:3]]
    assert [r["model"] for r in one] == ["m2"] * 3
    assert [r["translation"] for r in one] == translators["m2"].translate(TEXTS[:3])
    assert [r["translation"] for r in one] != translators["es-en"].translate(TEXTS[:3])
    assert client.post("/translate", json={"text": SOURCE}).json()["model"] == "es-en"
    models = client.get("/models").json()
    assert [m["name"] for m in models] == ["es-en", "m2"]
    assert models[0]["source_language"] == "es" and models[0]["target_language"] == "en"
    assert (models[0]["n_layers"], models[0]["n_heads"]) == (2, 4)


@pytest.mark.parametrize("path", ["/translate", "/attention"])
def test_an_unknown_model_is_404(client, path):
    r = client.post(path, json={"text": SOURCE, "model": "de-en"})
    assert r.status_code == 404
    assert "de-en" in r.json()["detail"] and "es-en, m2" in r.json()["detail"]


# --- bad input --------------------------------------------------------------------------------

TOO_LONG = "a" * (MAX_TEXT_CHARS + 1)
BAD = {
    "empty text": ("/translate", {"text": ""}),
    "blank text": ("/translate", {"text": " \t\n"}),
    "no text": ("/translate", {"beam_size": 2}),
    "text and texts": ("/translate", {"text": "hola", "texts": ["hola"]}),
    "empty list": ("/translate", {"texts": []}),
    "invisible text": ("/translate", {"text": "\u200b\u200d"}),
    "too many texts": ("/translate", {"texts": ["hola"] * (MAX_TEXTS + 1)}),
    "too long text": ("/translate", {"text": TOO_LONG}),
    "too long text in the list": ("/translate", {"texts": ["hola", TOO_LONG]}),
    "not a string": ("/translate", {"text": 42}),
    "beam 0": ("/translate", {"text": "hola", "beam_size": 0}),
    "beam 99": ("/translate", {"text": "hola", "beam_size": 99}),
    "misspelt field": ("/translate", {"text": "hola", "beam": 2}),
    "a list, not an object": ("/translate", ["hola"]),
    "attention: empty text": ("/attention", {"text": ""}),
    "attention: only unknown characters": ("/attention", {"text": "🙂🙂"}),
    "attention: too long": ("/attention", {"text": TOO_LONG}),
    "attention: blank target": ("/attention", {"text": "hola", "target": " "}),
    "attention: no such kind": ("/attention", {"text": "hola", "kind": "self"}),
    "attention: no such level": ("/attention", {"text": "hola", "level": "bytes"}),
    "attention: head 0.5": ("/attention", {"text": "hola", "head": 0.5}),
    "attention: top 0": ("/attention", {"text": "hola", "top": 0}),
}


@pytest.mark.parametrize("case", BAD)
def test_bad_input_is_422_with_a_json_message(client, case):
    path, body = BAD[case]
    r = client.post(path, json=body)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail
    assert TOO_LONG not in r.text  # the input is not echoed back


@pytest.mark.parametrize("value", [True, "4", 4.0, [4], None])
def test_a_beam_size_of_another_type_is_refused_not_converted(client, value):
    r = client.post("/translate", json={"text": SOURCE, "beam_size": value})
    assert r.status_code == 422, r.text
    assert r.json()["detail"].startswith("beam_size: ")


@pytest.mark.parametrize(
    "body, words",
    [
        ({}, 'give "text" (a string) or "texts" (a list of strings)'),
        ({"beam_size": 2}, 'give "text" (a string) or "texts" (a list of strings)'),
        ({"text": "hola", "texts": ["hola"]}, 'give "text" or "texts", not both'),
        ({"text": True}, "text: Input should be a valid string"),
        ({"texts": "hola"}, "texts: Input should be a valid list"),
    ],
)
def test_a_missing_or_mistyped_field_is_named(client, body, words):
    r = client.post("/translate", json=body)
    assert r.status_code == 422
    assert r.json()["detail"] == words


def test_a_blank_text_in_a_list_is_translated_as_blank_without_the_model(dirs, translators):
    app = new_app(dirs)
    texts = ["Hola, mundo.", " ", "", "\u200b\u200d", "\ufeff\u2060 \n", SOURCE]
    with TestClient(app, base_url=BASE) as c:
        r = c.post("/translate", json={"texts": texts})
        assert r.status_code == 200, r.text
        counters = c.get("/health").json()["models"]["es-en"]
    expected = translators["es-en"].translate([texts[0], texts[-1]])
    assert r.json()["translations"] == [expected[0], "", "", "", "", expected[1]]
    assert counters["texts"] == 2  # the model saw the two real texts only


@pytest.mark.parametrize("path", ["/translate", "/attention"])
def test_a_text_of_invisible_characters_only_is_refused(client, path):
    r = client.post(path, json={"text": "\u200b\u200d"})
    assert r.status_code == 422
    assert "only invisible characters" in r.json()["detail"]


# --- the Host header ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8000", "localhost", "LOCALHOST:1", "[::1]:80", "a.localhost"]
)
def test_loopback_host_names_are_answered(client, host):
    r = client.get("/health", headers={"host": host})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("path", ["/health", "/translate", "/libretranslate/languages"])
def test_another_host_name_is_refused_dns_rebinding(client, path):
    r = client.request("POST" if path == "/translate" else "GET", path,
                       headers={"host": "evil.example:8000"}, json={"text": SOURCE})  # fmt: skip
    assert r.status_code == 400
    message = r.json()["error" if path.startswith("/libretranslate") else "detail"]
    assert "'evil.example:8000'" in message and "--allowed-host" in message


def test_allowed_hosts_are_answered_and_a_star_allows_any(dirs):
    with TestClient(new_app(dirs, allowed_hosts=["translate.example"]), base_url=BASE) as c:
        assert c.get("/health", headers={"host": "translate.example:443"}).status_code == 200
        assert c.get("/health", headers={"host": "localhost"}).status_code == 200
        assert c.get("/health", headers={"host": "other.example"}).status_code == 400
    with TestClient(new_app(dirs, allowed_hosts=["*"]), base_url="http://anything") as c:
        assert c.get("/health").status_code == 200


@pytest.mark.parametrize(
    "selection, words",
    [({"layer": 3}, "choose 1..2"), ({"layer": -3}, "layer -3"), ({"head": 5}, "choose 1..4")],
)
def test_a_layer_or_head_that_does_not_exist_is_422(client, selection, words):
    r = client.post("/attention", json={"text": SOURCE, "kind": "cross", **selection})
    assert r.status_code == 422
    assert words in r.json()["detail"]


@pytest.mark.parametrize("body", [b'{"text": "hola"', b"text=hola", b'{"text": "hola",}'])
def test_invalid_json_is_422(client, body):
    r = client.post("/translate", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422
    assert r.json()["detail"] == "the body is not valid JSON"


@pytest.mark.filterwarnings("ignore:a source of")  # longer than the tiny model's positions
def test_a_body_over_the_limit_is_413_whether_its_length_is_declared_or_not(dirs):
    with TestClient(new_app(dirs, max_body_bytes=2000), base_url=BASE) as c:
        small = c.post("/translate", json={"texts": ["hola " * 150] * 2})  # 1.5 kB: fine
        assert small.status_code == 200
        declared = c.post("/translate", json={"texts": ["hola " * 150] * 4})  # 3 kB
        assert declared.status_code == 413
        assert "2000 bytes" in declared.json()["detail"]
        chunks = (b'{"text": "' + b"a" * 500 if i == 0 else b"a" * 500 for i in range(10))
        chunked = c.post("/translate", content=chunks, headers={"content-type": "application/json"})
        assert chunked.status_code == 413
        assert "2000 bytes" in chunked.json()["detail"]


def test_the_default_body_limit_admits_the_largest_valid_request(client):
    # json.dumps escapes é as \u00e9; beam 0 makes it a 422 after reading, with no model run
    body = {"texts": ["é" * MAX_TEXT_CHARS] * MAX_TEXTS, "beam_size": 0}
    r = client.post(
        "/translate", content=json.dumps(body), headers={"content-type": "application/json"}
    )
    assert len(r.request.content) > 190_000
    assert r.status_code == 422 and "beam_size" in r.json()["detail"]
    r = client.post("/translate", content=json.dumps({"text": "a" * 300_000}))
    assert r.status_code == 413


# --- attention --------------------------------------------------------------------------------


def test_attention_is_every_weight_of_translator_attend(client, translators):
    r = client.post("/attention", json={"text": SOURCE, "beam_size": 3})
    assert r.status_code == 200, r.text
    out = r.json()
    attended = translators["es-en"].attend(SOURCE, beam_size=3)
    assert (out["source"], out["translation"]) == (SOURCE, attended.translation)
    assert out["score"] == pytest.approx(attended.score)
    assert list(out["kinds"]) == list(out["attention"]) == ["encoder", "decoder", "cross"]
    for kind, view in views(to_words(attended)).items():
        got = out["attention"][kind]
        assert (got["queries"], got["keys"]) == (view.queries, view.keys)
        assert (got["layers"], got["heads"]) == ([1, 2], [1, 2, 3, 4])
        assert_weights(got["weights"], view.weights)
        last = view.n_layers - 1
        assert got["table"]["text"] == format_table(view, last, None, 3)
        assert (got["table"]["layer"], got["table"]["head"]) == (2, None)
    rows = torch.tensor(out["attention"]["cross"]["weights"]).sum(-1)  # each row a distribution
    torch.testing.assert_close(rows, torch.ones_like(rows), atol=1e-4, rtol=0)


def test_attention_selects_one_kind_layer_and_head(client, translators):
    view = views(to_words(translators["es-en"].attend(SOURCE)))["decoder"]
    ask = {"text": SOURCE, "kind": "decoder", "top": 2}
    one = client.post("/attention", json={**ask, "layer": 1, "head": -1}).json()
    assert list(one["attention"]) == ["decoder"] and list(one["kinds"]) == [
        "encoder",
        "decoder",
        "cross",
    ]
    got = one["attention"]["decoder"]
    assert (got["layers"], got["heads"]) == ([1], [4])
    assert_weights(got["weights"][0][0], view.weights[0, 3])
    assert got["table"]["text"] == format_table(view, 0, 3, top=2)
    mean = client.post("/attention", json={**ask, "layer": -1, "head": "mean"}).json()
    got = mean["attention"]["decoder"]
    assert (got["layers"], got["heads"]) == ([2], ["mean"])
    assert_weights(got["weights"][0][0], view.weights[1].mean(0))
    assert got["table"]["describe"] == "decoder self-attention, layer 2 of 2, mean of 4 heads"


def test_attention_of_pieces_and_of_a_forced_target(client, translators):
    target = "The black cat sleeps in the garden."
    r = client.post(
        "/attention", json={"text": SOURCE, "target": target, "level": "pieces", "kind": "cross"}
    )
    out = r.json()
    attended = translators["es-en"].attend(SOURCE, target)
    assert out["translation"] == target and out["score"] is None
    assert out["attention"]["cross"]["queries"] == attended.target_pieces
    assert out["attention"]["cross"]["keys"] == attended.source_pieces


def test_other_views_of_the_same_sentence_do_not_run_the_model_again(dirs, monkeypatch):
    app = new_app(dirs)
    translator = app.state.workers["es-en"].translator
    calls = []
    attend = translator.attend
    monkeypatch.setattr(translator, "attend", lambda *a: calls.append(a) or attend(*a))
    with TestClient(app, base_url=BASE) as c:
        for selection in ({"kind": "cross"}, {"kind": "encoder", "layer": 1}, {"head": 2}):
            assert c.post("/attention", json={"text": SOURCE, **selection}).status_code == 200
        assert len(calls) == 1
        c.post("/attention", json={"text": SOURCE, "beam_size": 2})  # another search
        c.post("/attention", json={"text": SOURCE, "target": "Hello."})  # a forced target
        assert len(calls) == 3


# --- concurrency, time and load ---------------------------------------------------------------


def test_concurrent_requests_are_batched_and_get_their_own_answers(dirs, translators):
    app = new_app(dirs)
    texts = [pair[1] for pair in tatoeba_pairs()[100:112]]
    beams = [1 + i % 2 for i in range(len(texts))]

    async def main():
        async with async_client(app) as c:
            with blocked(app) as worker:
                asks = [
                    c.post("/translate", json={"text": t, "beam_size": b})
                    for t, b in zip(texts, beams, strict=True)
                ]
                asks.append(c.post("/attention", json={"text": SOURCE, "kind": "cross"}))
                tasks = [asyncio.ensure_future(a) for a in asks]
                await until(lambda: worker.counters.waiting == len(tasks))
            answers = await asyncio.gather(*tasks)
            return answers, (await c.get("/health")).json()

    answers, health = asyncio.run(main())
    assert all(a.status_code == 200 for a in answers)
    got = [a.json()["translation"] for a in answers[:-1]]
    translator = translators["es-en"]
    assert got == [
        translator.translate([t], beam_size=b)[0] for t, b in zip(texts, beams, strict=True)
    ]
    assert answers[-1].json()["translation"] == translator.attend(SOURCE).translation
    counters = health["models"]["es-en"]
    assert counters["batches"] == 2  # one per beam size: the 12 waiting requests, batched
    assert counters["largest_batch"] == 6 and counters["texts"] == 12
    assert counters["served"] == 13 and counters["waiting"] == 0


def test_requests_sent_together_to_an_idle_model_are_gathered_into_one_batch(dirs, translators):
    app = new_app(dirs)
    worker = app.state.workers["es-en"]
    worker.gather_s = 1.0  # long enough for a busy test machine; the server waits a few ms

    async def main():
        async with async_client(app) as c:
            asks = [c.post("/translate", json={"text": t, "beam_size": 2}) for t in TEXTS]
            return await asyncio.gather(*asks)

    answers = asyncio.run(main())
    got = [a.json()["translation"] for a in answers]
    assert got == translators["es-en"].translate(TEXTS, beam_size=2)
    assert (worker.counters.batches, worker.counters.largest_batch) == (1, len(TEXTS))


def long_texts(n: int, sentences: int) -> list[str]:
    spanish = [pair[1] for pair in tatoeba_pairs()]
    return [" ".join(spanish[i * sentences : (i + 1) * sentences]) for i in range(n)]


def test_a_short_request_is_not_held_back_by_a_long_one(dirs, translators):
    """A request of 32 long texts at beam 8 runs in many batches, and a short request that comes
    while it runs is answered before it, within about one batch."""
    app = new_app(dirs)
    worker = app.state.workers["es-en"]
    texts = long_texts(32, 6)
    assert all(sentences_in(t) >= 3 for t in texts)
    finished = {}

    async def main():
        async with async_client(app) as c:

            async def timed(name, body):
                answer = await c.post("/translate", json=body)
                finished[name] = (time.perf_counter(), worker.counters.batches)
                return answer

            long = asyncio.ensure_future(timed("long", {"texts": texts, "beam_size": 8}))
            await until(lambda: worker.counters.batches >= 1)  # the long request is running
            started = worker.counters.batches
            short = await timed("short", {"text": SOURCE, "beam_size": 1})
            return started, short, await long

    started, short, long = asyncio.run(main())
    assert short.status_code == long.status_code == 200
    assert finished["short"][0] < finished["long"][0]
    assert finished["short"][1] <= started + 2  # the batch running when it came, then its own
    assert finished["long"][1] - started >= 4  # the long request went on after it
    assert short.json()["translation"] == translators["es-en"].translate([SOURCE], beam_size=1)[0]
    assert long.json()["translations"] == translators["es-en"].translate(texts, beam_size=8)


def test_long_requests_finish_one_after_the_other_not_all_late(dirs, translators):
    app = new_app(dirs)
    texts = long_texts(16, 6)
    finished = {}

    async def main():
        async with async_client(app) as c:

            async def timed(name, body):
                answer = await c.post("/translate", json=body)
                finished[name] = worker.counters.batches
                return answer

            with blocked(app) as worker:
                first = asyncio.ensure_future(timed("first", {"texts": texts, "beam_size": 8}))
                await until(lambda: worker.counters.waiting == 1)
                second = asyncio.ensure_future(timed("second", {"texts": texts, "beam_size": 8}))
                await until(lambda: worker.counters.waiting == 2)
            return await first, await second

    first, second = asyncio.run(main())
    assert first.json() == second.json()
    assert first.json()["translations"] == translators["es-en"].translate(texts, beam_size=8)
    # the first ran alone until it was done: half the batches, then the second's
    assert finished["second"] == 2 * finished["first"] and finished["first"] >= 3


RSS = """
import sys, torch
from heedful.serve.memory import give_back
def rss():  # bytes resident now
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096
before = rss()
size = int(sys.argv[2])
blocks = [torch.ones(size // 4) for _ in range(400_000_000 // size)]  # 400 MB
peak = rss()
del blocks
freed = rss()
if sys.argv[1] == "give back":
    give_back()
print(before, peak, freed, rss())
"""


@pytest.mark.parametrize("block", [80_000, 1_000_000])
def test_the_server_gives_memory_back_under_the_commands_allocator_settings(block):
    """Under the `heedful` command's MALLOC_* settings freed memory stays resident, in small
    blocks or large; give_back, which the server calls after large work, returns it."""
    env = {**os.environ, "MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": "100000000000"}
    out = {}
    for arm in ("keep", "give back"):
        command = [sys.executable, "-c", RSS, arm, str(block)]
        run = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
        out[arm] = [int(x) for x in run.stdout.split()]
    before, peak, freed, after = out["keep"]
    assert peak - before > 300e6 and freed - before > 300e6 and after - before > 300e6
    before, peak, freed, after = out["give back"]
    assert peak - before > 300e6 and after - before < 50e6


def test_a_slow_answer_is_504_and_a_request_given_up_is_not_run(dirs):
    app = new_app(dirs, timeout_s=0.3)

    async def main():
        async with async_client(app) as c:
            with blocked(app) as worker:
                late = await c.post("/translate", json={"text": SOURCE})
                health = await c.get("/health")  # the model is busy; health answers
            await until(lambda: worker.counters.waiting == 0)
            after = await c.post("/translate", json={"text": SOURCE})
            return late, health, after, worker.counters

    late, health, after, counters = asyncio.run(main())
    assert late.status_code == 504 and "0.3 s" in late.json()["detail"]
    assert health.status_code == 200 and health.json()["models"]["es-en"]["waiting"] == 0
    assert after.status_code == 200
    assert counters.texts == 1  # the request that gave up was dropped from the queue


def test_a_model_with_too_many_requests_waiting_answers_503(dirs):
    app = new_app(dirs, max_waiting=2)

    async def main():
        async with async_client(app) as c:
            with blocked(app) as worker:
                waiting = [
                    asyncio.ensure_future(c.post("/translate", json={"text": t})) for t in TEXTS[:2]
                ]
                await until(lambda: worker.counters.waiting == 2)
                refused = await c.post("/translate", json={"text": SOURCE})
                health = await c.get("/health")
            return refused, health, await asyncio.gather(*waiting)

    refused, health, waited = asyncio.run(main())
    assert refused.status_code == 503 and refused.headers["retry-after"] == "1"
    assert "2 requests waiting" in refused.json()["detail"]
    assert health.json()["models"]["es-en"]["waiting"] == 2
    assert [r.status_code for r in waited] == [200, 200]


def test_a_failing_model_answers_500_with_json(dirs, monkeypatch):
    app = new_app(dirs)

    def broken(*args, **kwargs):
        raise RuntimeError("out of memory")

    monkeypatch.setattr(app.state.workers["es-en"].translator, "translate_n_best", broken)
    with TestClient(app, raise_server_exceptions=False, base_url=BASE) as c:
        r = c.post("/translate", json={"text": SOURCE})
        assert r.status_code == 500 and "out of memory" in r.json()["detail"]
        assert c.get("/health").status_code == 200


# --- the page and the documentation -----------------------------------------------------------


def test_the_page_and_its_files_come_from_this_server_only(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for element in ("source", "model", "beam", "translate", "translation", "heatmap", "links"):
        assert f'id="{element}"' in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    for name in ("shared.js", "app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    # the script the offline attention page inlines, the same file
    shared = client.get("/static/shared.js")
    assert shared.headers["content-type"].startswith("text/javascript")
    assert shared.text == shared_script() and "const heedful" in shared.text
    for path in STATIC.iterdir():  # nothing from a CDN: no absolute URL but SVG's namespace
        text = path.read_text().replace('xmlns="http://www.w3.org/2000/svg"', "")
        assert not re.search(r"(https?:)?//[\w.-]+\.\w", text), path.name


def test_openapi_documents_the_api(client):
    spec = client.get("/openapi.json").json()
    assert {"/translate", "/attention", "/health", "/models"} <= set(spec["paths"])
    assert "413" in spec["paths"]["/translate"]["post"]["responses"]
    docs = client.get("/docs")
    assert docs.status_code == 200
    # offline: every script and stylesheet of the docs page comes from this server
    assert "cdn" not in docs.text.lower() and "https://" not in docs.text
    for asset in re.findall(r'(?:src|href)="(/[^"]+)"', docs.text):
        assert client.get(asset).status_code == 200, asset


# --- the command ------------------------------------------------------------------------------


def test_an_app_of_model_directories_names_them_by_directory(dirs):
    app = create_app([dirs["m2"], dirs["es-en"]])
    assert list(app.state.workers) == ["m2", "es-en"]  # the first is the default
    with pytest.raises(ValueError, match="two models are named 'm2'"):
        create_app([dirs["m2"], dirs["m2"]])


def test_serve_names_models_by_directory_or_name(dirs, tmp_path):
    named = model_dirs([str(dirs["es-en"]), f"other={dirs['m2']}"])
    assert named == {"es-en": dirs["es-en"], "other": dirs["m2"]}
    with pytest.raises(ValueError, match="two models are named 'es-en'"):
        model_dirs([str(dirs["es-en"]), f"es-en={dirs['m2']}"])
    with pytest.raises(FileNotFoundError, match="nowhere"):
        model_dirs([str(tmp_path / "nowhere")])
