"""The interactive page in a real browser: Debian's chromium driven by Playwright (.ci/run
installs both; HEEDFUL_CHROMIUM names another chromium binary)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import torch
from attention_views_support import (
    SOURCE,
    TARGET,
    forced_attended,
    single_thread,
    tiny_lm,
    tiny_transformer,
    tokenizer,
)
from playwright.sync_api import sync_playwright

from heedful.explain.capture import attend_lm
from heedful.explain.page import render_page, save_page, shared_script
from heedful.explain.views import views
from heedful.explain.words import to_words


def chromium_path() -> str:
    path = os.environ.get("HEEDFUL_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail("no chromium: `apt-get install chromium` (or set HEEDFUL_CHROMIUM)")
    return path


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
        yield b
        b.close()


@pytest.fixture(scope="module")
def attended():
    with single_thread():
        return forced_attended(tiny_transformer())


class Page:
    """A page opened from a file, with every console error and every network request kept."""

    def __init__(self, browser, path: Path):
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.goto(path.as_uri())

    def texts(self, selector: str) -> list[str]:
        return self.page.locator(selector).all_text_contents()

    def close(self):
        self.page.close()


def test_the_page_is_one_offline_file():
    html = render_page(forced_attended(tiny_transformer()))
    for outside in ("http://", "https://", "src=", "href=", "@import"):
        assert outside not in html
    assert all(html.count(f"__{name}__") == 0 for name in ("DATA", "TITLE", "SHARED"))
    # the script shared with heedful serve's page travels inside
    assert f"<script>{shared_script()}</script>" in html


def test_the_page_shows_the_tokens_and_a_selectable_head(browser, attended, tmp_path):
    page = Page(browser, save_page(attended, tmp_path / "page.html"))
    words = views(to_words(attended))
    cross = words["cross"]
    assert page.texts("#queries .tok") == cross.queries  # target words
    assert page.texts("#keys .tok") == cross.keys  # source words
    assert "mean of 4 heads" in page.page.inner_text("#describe")

    # Choose layer 1, head 3, and hover "black": the page says where it attends.
    page.page.click("#layers button[data-layer='1']")
    page.page.click("#heads button[data-head='3']")
    assert page.page.get_attribute("#heads button[data-head='3']", "aria-pressed") == "true"
    assert page.page.get_attribute("#heads button[data-head='mean']", "aria-pressed") == "false"
    assert page.page.inner_text("#describe").endswith("layer 1 of 2, head 3")
    black = cross.queries.index("black")
    page.page.hover(f"#queries .tok[data-index='{black}']")
    info = page.page.inner_text("#info")
    weights = cross.select(0, 2)[black]
    best = int(weights.argmax())
    assert info.startswith(f"black → {cross.keys[best]} (")
    assert float(info.split("(")[1].split(")")[0]) == pytest.approx(float(weights[best]), abs=0.01)

    # Another kind and the subword level bring their own tokens.
    page.page.click("#kinds button[data-kind='encoder']")
    assert page.texts("#queries .tok") == words["encoder"].queries
    page.page.click("#levels button[data-level='pieces']")
    assert page.texts("#keys .tok") == attended.source_pieces
    page.page.click("#kinds button[data-kind='decoder']")
    assert page.texts("#keys .tok") == ["<s>"] + attended.target_pieces[:-1]
    page.page.click("#heads button[data-head='all']")
    page.page.hover("#keys .tok[data-index='0']")
    assert page.page.inner_text("#info").startswith("<s> ← ")
    assert page.errors == []
    assert all(url.startswith("file:") for url in page.requests)
    page.close()


def test_a_long_sentence_stays_usable(browser, tmp_path):
    with single_thread():
        source = " ".join([SOURCE] * 12)
        long = forced_attended(tiny_transformer(), source, " ".join([TARGET] * 12))
    assert len(long.source_pieces) > 100
    page = Page(browser, save_page(long, tmp_path / "long.html"))
    n_words = len(to_words(long).target_pieces)
    assert page.page.locator("#queries .tok").count() == n_words
    last = n_words - 1
    page.page.hover(f"#queries .tok[data-index='{last}']")  # scrolls down to it
    assert page.page.inner_text("#info").startswith("</s> → ")
    assert page.page.locator("#info").is_visible()  # the panel follows the scroll
    page.page.click("#levels button[data-level='pieces']")
    assert page.page.locator("#keys .tok").count() == len(long.source_pieces)
    page.page.hover("#matrix", position={"x": 1, "y": 1})  # the first cell
    assert page.page.inner_text("#info").startswith("▁The → ")
    assert page.errors == []
    page.close()


def test_a_language_model_page_has_only_self_attention(browser, tmp_path):
    with single_thread():
        attended = attend_lm(tiny_lm(), tokenizer(), TARGET)
    page = Page(browser, save_page(attended, tmp_path / "lm.html"))
    assert page.texts("#kinds button") == ["Decoder self"]
    assert page.texts("#queries .tok") == TARGET.split() + ["</s>"]
    assert page.texts("#keys .tok") == ["<s>"] + TARGET.split()
    assert page.page.inner_text("#sentence") == TARGET
    assert page.errors == []
    page.close()


def test_tokens_are_text_never_markup(browser, tmp_path):
    a = forced_attended(tiny_transformer())
    a.source = "</script><b id=evil>x</b>"
    a.source_pieces = ["</script><b", "id=evil>x</b>"] + a.source_pieces[2:]
    page = Page(browser, save_page(a, tmp_path / "evil.html"))
    assert page.page.locator("#evil").count() == 0
    assert "</script><b id=evil>x</b>" in page.page.inner_text("#sentence")
    page.page.click("#levels button[data-level='pieces']")
    page.page.click("#kinds button[data-kind='encoder']")
    assert page.texts("#queries .tok")[:2] == ["</script><b", "id=evil>x</b>"]
    assert page.errors == []
    page.close()


def test_weights_travel_as_bytes_that_round_to_the_shown_precision():
    import base64

    from heedful.explain.page import encode_view

    view = views(forced_attended(tiny_transformer()))["cross"]
    data = encode_view(view)
    raw = torch.frombuffer(bytearray(base64.b64decode(data["weights"])), dtype=torch.uint8)
    back = raw.float().reshape(data["shape"]) / 255
    assert (back - view.weights).abs().max() <= 0.5 / 255 + 1e-6


def test_the_page_opens_on_the_chosen_kind_layer_and_head(browser, attended, tmp_path):
    path = save_page(attended, tmp_path / "start.html", kind="encoder", layer=0, head=2)
    page = Page(browser, path)
    pressed = page.texts("nav button[aria-pressed='true']")
    assert pressed == ["Encoder self", "1", "3", "words"]
    assert page.page.inner_text("#describe") == "encoder self-attention, layer 1 of 2, head 3"
    assert page.errors == []
    page.close()
    with pytest.raises(ValueError, match="no cross-attention"):
        save_page(attend_lm(tiny_lm(), tokenizer(), TARGET), tmp_path / "x.html", kind="cross")
