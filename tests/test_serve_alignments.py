"""Word alignments and markup in the HTTP API (issues 30 and 33): /translate with
``"alignments": true`` answers each translation's word links, which index the right characters
(code points, or UTF-16 code units for JavaScript) and are the Translator's own; ``"format":
"html"`` keeps every tag; the LibreTranslate API gives the same links as an extra field. On the
bundled es-en model, whose translations and links mean something."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest
from fastapi.testclient import TestClient

from heedful.bundled import model_dir
from heedful.markup import translate_html
from heedful.serve import create_app
from heedful.translator import Translator

BASE = "http://127.0.0.1"
TEXTS = [
    "El gato negro duerme en el jardín.",
    "Mi web es https://example.org/docs y mi correo ana@example.com.",
    "¡Hola 🙂! Tengo {count} mensajes nuevos 👍 para ti.",
    "Tengo hambre. ¿Dónde está la estación de tren?",
]
HTML = '<p>El gato <b>negro</b> duerme en el <a href="/jardin">jardín</a>.</p>'
TAP = "El grifo del baño está estropeado."  # -> "The bathroom is out of order."


@pytest.fixture(scope="module")
def translator():
    return Translator.load(model_dir("es-en"))


@pytest.fixture(scope="module")
def app(translator):
    return create_app({"es-en": Translator.load(model_dir("es-en"))})


@pytest.fixture(scope="module")
def client(app):
    with TestClient(app, base_url=BASE) as c:
        yield c


def records(translation) -> list[dict]:
    return [link.record() for link in translation.alignment]


def utf16(text: str, span: list[int]) -> str:
    return text.encode("utf-16-le")[2 * span[0] : 2 * span[1]].decode("utf-16-le")


def test_a_translations_links_index_its_words_and_are_the_translators(client, translator):
    r = client.post("/translate", json={"text": TEXTS[0], "alignments": True})
    assert r.status_code == 200, r.text
    answer = r.json()
    (expected,) = translator.translate([TEXTS[0]], alignments=True)
    assert answer["translation"] == expected.text
    assert answer["alignment"] == records(expected) and answer["alignment"]
    for link in answer["alignment"]:
        assert TEXTS[0][slice(*link["source"])] == link["source_word"]
        assert answer["translation"][slice(*link["target"])] == link["target_word"]
    # not asked: the answer is as before
    plain = client.post("/translate", json={"text": TEXTS[0]}).json()
    assert plain == {"model": "es-en", "beam_size": 4, "translation": expected.text}


def test_each_of_several_texts_has_its_links_a_blank_one_none(client, translator):
    texts = [*TEXTS, " "]
    r = client.post("/translate", json={"texts": texts, "beam_size": 2, "alignments": True})
    assert r.status_code == 200, r.text
    answer = r.json()
    found = translator.translate(TEXTS, beam_size=2, alignments=True)
    assert answer["translations"] == [t.text for t in found] + [""]
    assert answer["alignments"] == [records(t) for t in found] + [[]]
    for text, translation, links in zip(texts, answer["translations"], answer["alignments"],
                                        strict=True):  # fmt: skip
        for link in links:
            assert text[slice(*link["source"])] == link["source_word"]
            assert translation[slice(*link["target"])] == link["target_word"]
    # a URL links to itself, and so does a placeholder
    second = answer["alignments"][1]
    assert any(k["source_word"] == k["target_word"] == "https://example.org/docs" for k in second)
    assert any(k["source_word"] == k["target_word"] == "{count}" for k in answer["alignments"][2])


def test_utf16_offsets_index_a_javascript_string(client):
    text = TEXTS[2]  # emoji before other words: code points and UTF-16 units differ
    body = {"text": text, "alignments": True, "offsets": "utf16"}
    answer = client.post("/translate", json=body).json()
    points = client.post("/translate", json={**body, "offsets": "code_points"}).json()
    assert len(answer["alignment"]) == len(points["alignment"]) > 0
    shifted = 0
    for link, point in zip(answer["alignment"], points["alignment"], strict=True):
        assert utf16(text, link["source"]) == link["source_word"] == point["source_word"]
        assert utf16(answer["translation"], link["target"]) == link["target_word"]
        shifted += link["source"] != point["source"]
    assert shifted  # the emoji moved the words after it


def test_html_keeps_its_tags_and_is_what_heedful_markup_gives(client, translator):
    r = client.post("/translate", json={"texts": [HTML, "<p>Tengo <i>hambre</i>.</p>"],
                                        "format": "html"})  # fmt: skip
    assert r.status_code == 200, r.text
    expected = translate_html(translator, [HTML, "<p>Tengo <i>hambre</i>.</p>"])
    assert r.json()["translations"] == expected
    assert '<a href="/jardin">' in expected[0] and "<b>" in expected[0]
    one = client.post("/translate", json={"text": HTML, "format": "html"}).json()
    assert one["translation"] == expected[0]


def test_links_are_refused_for_html(client):
    r = client.post("/translate", json={"text": HTML, "format": "html", "alignments": True})
    assert r.status_code == 422
    assert r.json()["detail"] == "alignments are given for format text only"
    for bad in ({"alignments": "yes"}, {"offsets": "bytes"}, {"format": "markdown"}):
        assert client.post("/translate", json={"text": "hola", **bad}).status_code == 422


def test_the_libretranslate_api_gives_the_links_when_asked(client, translator):
    fields = {"q": TEXTS[:2], "source": "es", "target": "en", "alignments": True}
    answer = client.post("/libretranslate/translate", json=fields).json()
    found = translator.translate(TEXTS[:2], alignments=True)
    assert answer == {
        "translatedText": [t.text for t in found],
        "alignments": [records(t) for t in found],
    }
    form = {"q": TEXTS[0], "source": "es", "target": "en", "alignments": "true"}
    answer = client.post("/libretranslate/translate", data=form).json()
    assert answer == {"translatedText": found[0].text, "alignments": records(found[0])}
    plain = client.post("/libretranslate/translate", data={**form, "alignments": "false"})
    assert plain.json() == {"translatedText": found[0].text}
    same = {"q": "Hola, mundo.", "source": "es", "target": "es", "alignments": True}
    links = client.post("/libretranslate/translate", json=same).json()["alignments"]
    assert [(k["source"], k["target"], k["source_word"]) for k in links] == [
        ([0, 4], [0, 4], "Hola"), ([6, 11], [6, 11], "mundo")
    ]  # fmt: skip
    html = {**fields, "format": "html"}
    r = client.post("/libretranslate/translate", json=html)
    assert r.status_code == 400 and "format text only" in r.json()["error"]
    r = client.post("/libretranslate/translate", json={**fields, "alignments": "maybe"})
    assert r.status_code == 400 and "alignments must be true or false" in r.json()["error"]


def test_requests_with_and_without_links_share_a_batch(app, translator):
    """A request that asks for links and one that does not, waiting together, run in one batch;
    each gets its own answer."""
    worker = app.state.workers["es-en"]
    before = worker.counters.batches
    gate = threading.Event()
    worker._executor.submit(gate.wait)

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE) as c:
            asks = [
                c.post("/translate", json={"text": TEXTS[0], "alignments": True}),
                c.post("/translate", json={"text": TEXTS[3]}),
            ]
            tasks = [asyncio.ensure_future(a) for a in asks]
            for _ in range(2000):
                if worker.counters.waiting == 2:
                    break
                await asyncio.sleep(0.01)
            gate.set()
            return await asyncio.gather(*tasks)

    with_links, without = asyncio.run(main())
    found = translator.translate([TEXTS[0], TEXTS[3]], alignments=True)
    assert with_links.json()["alignment"] == records(found[0])
    assert without.json() == {"model": "es-en", "beam_size": 4, "translation": found[1].text}
    assert worker.counters.batches == before + 1


def test_openapi_documents_the_links(client):
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert {"source", "target", "source_word", "target_word"} <= set(
        schemas["WordLink"]["properties"]
    )
    request = schemas["TranslateRequest"]["properties"]
    assert {"alignments", "format", "offsets"} <= set(request)


def test_the_answers_carry_what_may_be_wrong_with_each_translation(client, translator):
    """'El grifo del baño ...' comes back 'The bathroom ...': the answer says which word may be
    missing, naming the sentence; a text without a problem has none, an answer of none no key."""
    texts = [TEXTS[0], TAP]
    r = client.post("/translate", json={"texts": texts})
    assert r.status_code == 200, r.text
    expected = [t.warnings for t in translator.translate(texts, alignments=True)]
    assert r.json()["warnings"] == expected
    assert expected[0] == [] and expected[1] == [f"{TAP!r}: may leave out 'grifo'"]
    assert "warnings" not in client.post("/translate", json={"text": TEXTS[0]}).json()
    fields = {"source": "es", "target": "en"}
    one = client.post("/libretranslate/translate", json={"q": TAP, **fields})
    assert one.json()["warnings"] == expected[1]
    many = client.post("/libretranslate/translate", json={"q": texts, **fields})
    assert many.json()["warnings"] == expected


def test_an_html_fragment_s_answer_carries_its_blocks_warnings(client):
    fragment = f"<p>{TEXTS[0]}</p><p>El <b>grifo</b> del baño está estropeado.</p>"
    r = client.post("/translate", json={"texts": [fragment, HTML], "format": "html"})
    assert r.status_code == 200, r.text
    (first, second) = r.json()["warnings"]
    assert second == [] and first == [f"{TAP!r}: may leave out 'grifo'"]
    fields = {"q": fragment, "source": "es", "target": "en", "format": "html"}
    assert client.post("/libretranslate/translate", json=fields).json()["warnings"] == first
