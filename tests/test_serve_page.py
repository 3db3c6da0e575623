"""End to end: `heedful serve` in its own process, the page driven in headless Chromium.

Type a sentence, click Translate, and see the translation, the heatmap (one cell per weight, the
words on its edges), hover highlighting, the layer / head / kind buttons and the explainer's
table, all agreeing with what the API answers; click or hover a word of the source or of the
translation and see the words aligned to it, as /translate links them, apart from the heatmap;
and no request leaves the server.

Needs Playwright (the Python package) and Debian's chromium (/usr/bin/chromium): Playwright's
own browser download is never used.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright import sync_api  # a dev dependency: missing means a broken set-up, not a skip
from serve_support import SOURCE, make_model_dir

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# `make test` installs Debian's chromium; without it this test fails rather than skips.
assert Path(CHROMIUM).exists(), "no chromium: apt-get install chromium (the Makefile does)"

TEXT = "¿Dónde está la estación de tren?"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data, {"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`heedful serve` with two models on a free loopback port; its base URL."""
    root = tmp_path_factory.mktemp("page")
    es_en, other = make_model_dir(root / "es-en", seed=1), make_model_dir(root / "m2", seed=3)
    port = free_port()
    log = open(root / "server.log", "w")  # noqa: SIM115 - closed below
    command = ["serve", "--model", str(es_en), "--model", f"other={other}", "--port", str(port)]
    process = subprocess.Popen(
        [sys.executable, "-m", "heedful", *command],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "HEEDFUL_KEEP_MALLOC": "1"},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                get(base + "/health")
                break
            except (urllib.error.URLError, ConnectionError):
                assert process.poll() is None, (root / "server.log").read_text()
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not start: " + (root / "server.log").read_text())
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)
        log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, server):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.requested = []  # every URL the page asked for
    page.problems = []  # console errors and uncaught exceptions
    page.on("request", lambda r: page.requested.append(r.url))
    page.on("console", lambda m: m.type == "error" and page.problems.append(m.text))
    page.on("pageerror", lambda e: page.problems.append(str(e)))
    page.goto(server + "/")
    yield page
    page.close()


def translate(page, text: str) -> None:
    page.locator("#source").fill("")
    page.locator("#source").press_sequentially(text)
    page.locator("#translate").click()
    page.wait_for_selector("#heatmap td")
    sync_api.expect(page.locator("#translate")).to_have_text("Translate")


def translation(server: str, text: str, model: str | None = None, beam_size: int = 4) -> str:
    body = {"text": text, "model": model, "beam_size": beam_size}
    return get(server + "/translate", body)["translation"]


def heatmap_labels(page) -> tuple[list[str], list[str]]:
    rows = page.locator("#heatmap th.row").all_text_contents()
    cols = page.locator("#heatmap th.col").all_text_contents()
    return rows, cols


def table_lines(page) -> list[str]:
    cells = page.locator("#links tbody tr").evaluate_all(
        "rows => rows.map(r => r.cells[0].textContent + ' ' + r.cells[1].textContent)"
    )
    return cells


def expected_lines(view: dict) -> list[str]:
    return [
        row["word"]
        + " → "
        + ", ".join(f"{a['word']} ({a['weight']:.2f})" for a in row["attends_to"])
        for row in view["table"]["rows"]
    ]


def screenshot(page, name: str) -> None:
    """To look at the page: HEEDFUL_SCREENSHOTS=DIR pytest tests/test_serve_page.py"""
    folder = os.environ.get("HEEDFUL_SCREENSHOTS")
    if folder:
        page.screenshot(path=Path(folder) / f"serve-{name}.png", full_page=True)


def test_translate_and_explore_the_attention(page, server):
    sync_api.expect(page.locator("#model option")).to_have_count(2)
    assert page.locator("#model option").first.text_content() == "es-en (es → en)"
    translate(page, TEXT)

    api = get(server + "/attention", {"text": TEXT, "kind": "cross", "layer": -1, "head": "mean"})
    view = api["attention"]["cross"]
    sync_api.expect(page.locator("#translation")).to_have_text(translation(server, TEXT))
    assert api["translation"] == translation(server, TEXT)  # one sentence: the same
    assert heatmap_labels(page) == (view["queries"], view["keys"])
    assert page.locator("#heatmap td").count() == len(view["queries"]) * len(view["keys"])
    describe = page.locator("#describe").text_content()
    assert describe == "cross-attention, layer 2 of 2, mean of 4 heads"
    assert table_lines(page) == expected_lines(view)

    # Hovering a cell lights up its row and column labels, its table row, and says where it looks.
    q, k = 1, 2
    page.locator(f'#heatmap td[data-q="{q}"][data-k="{k}"]').hover()
    lit = page.locator("#heatmap th.hl").all_text_contents()
    assert lit == [view["keys"][k], view["queries"][q]]
    assert page.locator("#heatmap td.on").count() == 1
    assert page.locator("#links tbody tr.hl").count() == 1
    info = page.locator("#info").text_content()
    heaviest = max(range(len(view["keys"])), key=lambda j: view["weights"][0][0][q][j])
    assert info.startswith(f"{view['queries'][q]} → {view['keys'][heaviest]} (")
    screenshot(page, "hover")
    page.mouse.move(5, 5)
    assert page.locator("#heatmap th.hl").count() == 0

    # Another layer and head: the page shows what the API gives for them.
    page.locator('#layers button[data-layer="1"]').click()
    page.locator('#heads button[data-head="3"]').click()
    sync_api.expect(page.locator("#describe")).to_have_text("cross-attention, layer 1 of 2, head 3")
    one = get(server + "/attention", {"text": TEXT, "kind": "cross", "layer": 1, "head": 3})
    assert table_lines(page) == expected_lines(one["attention"]["cross"])
    assert page.locator('#heads button[aria-pressed="true"]').text_content() == "3"

    # Encoder self-attention: source words on both edges.
    page.locator('#kinds button[data-kind="encoder"]').click()
    sync_api.expect(page.locator("#describe")).to_contain_text("encoder self-attention, layer 1")
    rows, cols = heatmap_labels(page)
    assert rows == cols == view["keys"]
    screenshot(page, "encoder")

    assert page.problems == []
    assert all(url.startswith(server + "/") for url in page.requested), page.requested


def test_another_model_and_an_empty_text(page, server):
    page.locator("#model").select_option("other")
    page.locator("#beam").select_option("1")
    translate(page, SOURCE)
    expected = translation(server, SOURCE, model="other", beam_size=1)
    sync_api.expect(page.locator("#translation")).to_have_text(expected)
    assert page.locator("#meta").text_content().startswith("other · beam 1")

    asked = len(page.requested)
    page.locator("#source").fill("   ")
    page.locator("#translate").click()
    sync_api.expect(page.locator("#error")).to_have_text("Type something to translate.")
    assert len(page.requested) == asked  # refused before asking the server
    assert shown(page) == NOTHING  # the previous translation is not left under the error
    assert page.problems == []


def shown(page) -> dict:
    """What the page shows of a translation: its text, and whether the result and the attention
    are visible, with how many heatmap cells and table rows they hold."""
    return page.evaluate(
        """() => ({
            result: !document.getElementById("result").hidden,
            explore: !document.getElementById("explore").hidden,
            translation: document.getElementById("translation").textContent,
            cells: document.querySelectorAll("#heatmap td").length,
            rows: document.querySelectorAll("#links tbody tr").length,
        })"""
    )


NOTHING = {"result": False, "explore": False, "translation": "", "cells": 0, "rows": 0}


def test_an_error_or_another_model_clears_the_previous_translation(page, server):
    translate(page, TEXT)
    before = shown(page)
    assert before["result"] and before["explore"] and before["cells"] > 0 and before["rows"] > 0

    # Only characters the model cannot read: the server refuses (422), and nothing of the
    # previous sentence stays under the error.
    page.locator("#source").fill("🙂🙂")
    page.locator("#translate").click()
    sync_api.expect(page.locator("#error")).to_contain_text("outside the model's vocabulary")
    assert shown(page) == NOTHING

    # Another model chosen: the translation on screen was the first model's, so it goes.
    translate(page, TEXT)
    assert shown(page)["result"]
    page.locator("#model").select_option("other")
    assert shown(page) == NOTHING
    translate(page, TEXT)
    sync_api.expect(page.locator("#translation")).to_have_text(translation(server, TEXT, "other"))
    assert page.locator("#meta").text_content().startswith("other · beam 4")
    assert page.locator("#error").is_hidden()
    # the browser logs the 422 itself; the page's script raised nothing
    assert page.problems == [
        "Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"
    ]


def linked_words(answer: dict, side: str) -> list[tuple[list[int], list[list[int]]]]:
    """Each linked word of one side (its UTF-16 span, sorted) and the spans linked to it."""
    other = "target" if side == "source" else "source"
    spans = sorted({tuple(k[side]) for k in answer["alignment"]})
    return [
        (
            list(span),
            sorted({tuple(k[other]) for k in answer["alignment"] if tuple(k[side]) == span}),
        )
        for span in spans
    ]


def utf16(text: str, span) -> str:
    return text.encode("utf-16-le")[2 * span[0] : 2 * span[1]].decode("utf-16-le")


def lit(page, box: str, kind: str) -> list[str]:
    return page.locator(f"#{box} .aw.{kind}").all_text_contents()


def test_clicking_a_word_shows_the_words_aligned_to_it(page, server):
    text = "🙂 El gato negro duerme en el jardín."  # an emoji: offsets in UTF-16 code units
    translate(page, text)
    body = {"text": text, "alignments": True, "offsets": "utf16"}
    answer = get(server + "/translate", body)
    sync_api.expect(page.locator("#translation")).to_have_text(answer["translation"])
    sources, targets = linked_words(answer, "source"), linked_words(answer, "target")
    assert page.locator("#source-words .aw").all_text_contents() == [
        utf16(text, span) for span, _ in sources
    ]
    assert page.locator("#translation .aw").all_text_contents() == [
        utf16(answer["translation"], span) for span, _ in targets
    ]
    assert page.locator("#source-words").text_content() == text

    # Hover a source word: it and its target words light up, and the line says which.
    k = max(range(len(sources)), key=lambda i: len(sources[i][1]))
    word = page.locator(f'#source-words .aw[data-i="{k}"]')
    word.hover()
    expected = [utf16(answer["translation"], span) for span in sources[k][1]]
    assert lit(page, "translation", "hit") == expected
    assert lit(page, "source-words", "sel") == [utf16(text, sources[k][0])]
    info = page.locator("#alignment-info").text_content()
    assert info == f"{utf16(text, sources[k][0])} → {', '.join(expected)}"
    assert page.locator("#heatmap .hl, #heatmap .on").count() == 0  # not the attention view
    screenshot(page, "alignment")

    # Click a target word: pinned, it stays lit while the mouse goes elsewhere.
    j = len(targets) - 1
    page.locator(f'#translation .aw[data-i="{j}"]').click()
    page.locator('#source-words .aw[data-i="0"]').hover()
    assert lit(page, "source-words", "hit") == [utf16(text, span) for span in targets[j][1]]
    assert lit(page, "translation", "sel") == [utf16(answer["translation"], targets[j][0])]
    page.mouse.move(5, 5)
    assert page.locator("#source-words .aw.hit").count() == len(targets[j][1])
    page.locator(f'#translation .aw[data-i="{j}"]').click()  # let go
    assert page.locator(".aw.hit, .aw.sel").count() == 0

    # The keyboard too: Enter on a focused word.
    word.focus()
    page.keyboard.press("Enter")
    assert lit(page, "translation", "hit") == expected
    assert page.problems == []
