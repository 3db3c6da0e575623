// heedful serve: the page. Translate with POST /translate (with its word alignment: click or
// hover a word to see the words aligned to it) and POST /attention, then draw the selected kind,
// layer and head as a heatmap, with the explainer's table that the server computed
// (heedful.explain.tables). Switching the view asks the server again: it keeps the sentence's
// weights, so no model runs.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  // The head colours, heatmap ramp and buttons of heedful's offline page (/static/shared.js).
  const {COLORS, blue, button} = heedful;
  const KIND_NAMES = {cross: "Cross", encoder: "Encoder self", decoder: "Decoder self"};
  const AXES = {
    cross: ["target word being produced", "source word"],
    encoder: ["source word attending", "source word attended to"],
    decoder: ["target word being produced", "target word read so far"],
  };
  const SPECIAL = new Set(["<s>", "</s>", "<pad>"]);
  const TOP = 5;

  // What is asked for; `sentence` is fixed at each Translate, the view changes without a model.
  const state = {sentence: null, kind: "cross", layer: -1, head: "mean", level: "words"};
  let answer = null;   // the latest /attention response
  let aligned = null;  // the latest /translate response with its links, indexed (alignment())
  let pinned = null;   // the word clicked: {side, i}
  let current = null;  // {view, w: rows of weights [Q][K], max}
  let focus = null;    // {q, k}: either may be null
  let asked = 0;       // number of the latest request: older answers are dropped

  const fmt = (w) => w.toFixed(2);

  // --- talking to the server ------------------------------------------------------------------
  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST",
      headers: {"content-type": "application/json"},
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      const detail = data && data.detail ? data.detail : response.status + " " + response.statusText;
      throw new Error(detail);
    }
    return data;
  }

  async function loadModels() {
    const response = await fetch("/models");
    const models = await response.json();
    const select = $("model");
    for (const m of models) {
      const option = document.createElement("option");
      option.value = m.name;
      const pair = m.source_language && m.target_language
        ? " (" + m.source_language + " → " + m.target_language + ")" : "";
      option.textContent = m.name + pair;
      select.appendChild(option);
    }
  }

  async function ask(isNewSentence) {
    const number = ++asked;
    const s = state.sentence;
    const body = {text: s.text, model: s.model, beam_size: s.beam, kind: state.kind,
                  layer: state.layer, head: state.head, level: state.level};
    busy(true, isNewSentence);
    const started = performance.now();
    try {
      // A new sentence: its translation with word links (UTF-16 offsets, as JavaScript counts),
      // and its attention, asked together.
      const links = isNewSentence
        ? post("/translate", {text: s.text, model: s.model, beam_size: s.beam,
                              alignments: true, offsets: "utf16"})
        : null;
      const [data, translated] = await Promise.all([post("/attention", body), links]);
      if (number !== asked) return;
      showError(null);
      answer = data;
      answer.seconds = (performance.now() - started) / 1000;
      if (isNewSentence) {
        aligned = alignment(s.text, translated);
        showTranslation();
      }
      render();
    } catch (e) {
      if (number === asked) showError(e.message);
    } finally {
      if (number === asked) busy(false, isNewSentence);
    }
  }

  function busy(on, isNewSentence) {
    const button = $("translate");
    if (isNewSentence) {
      button.disabled = on;
      button.textContent = on ? "Translating…" : "Translate";
    }
    $("explore").classList.toggle("loading", on);
  }

  // An error replaces what was shown: a translation and attention left under it would look
  // like the answer to the new request (and be another model's, if the selector changed).
  function showError(message) {
    $("error").hidden = !message;
    $("error").textContent = message ? message : "";
    if (message) clearResult();
  }

  function clearResult() {
    answer = null;
    aligned = null;
    pinned = null;
    current = null;
    focus = null;
    $("result").hidden = true;
    $("source-words").replaceChildren();
    $("translation").replaceChildren();
    $("alignment-info").textContent = "";
    $("raw").hidden = true;
    $("meta").textContent = "";
    $("explore").hidden = true;
    $("heatmap").replaceChildren();
    $("links").tBodies[0].replaceChildren();
    $("table-text").textContent = "";
  }

  function showTranslation() {
    $("result").hidden = false;
    const t = $("translation");
    words($("source-words"), aligned.source, aligned.sourceSpans, "source");
    words(t, aligned.translation, aligned.targetSpans, "target");
    t.classList.toggle("empty", !aligned.translation);
    if (!aligned.translation) t.textContent = "(empty translation)";
    showLinks(null);
    // The attention below is of the text translated as one sequence; /translate cuts a text
    // into sentences and keeps URLs and numbers from the model, so the two may differ.
    $("raw").hidden = answer.translation === aligned.translation;
    $("raw-translation").textContent = answer.translation;
    const score = answer.score === null ? "" : " · score " + answer.score.toFixed(2);
    $("meta").textContent = answer.model + " · beam " + answer.beam_size + score + " · " +
                            answer.seconds.toFixed(2) + " s";
    $("explore").hidden = false;
  }

  // --- the word alignment: click or hover a word, see the words aligned to it ----------------
  // Distinct from the attention below: these are the links the model's alignment method draws
  // from it (the model directory's "alignment" record), word to word, as the API gives them.

  // The /translate answer indexed: each side's linked words (spans, sorted) and, for each, the
  // other side's words it is linked to.
  function alignment(source, data) {
    const links = data.alignment || [];
    const key = (span) => span[0] + ":" + span[1];
    const spans = (side) => {
      const seen = new Map();
      for (const link of links) seen.set(key(link[side]), link[side]);
      return [...seen.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    };
    const sourceSpans = spans("source"), targetSpans = spans("target");
    const at = (list) => new Map(list.map((span, i) => [key(span), i]));
    const sourceAt = at(sourceSpans), targetAt = at(targetSpans);
    const toTarget = sourceSpans.map(() => []), toSource = targetSpans.map(() => []);
    for (const link of links) {
      const i = sourceAt.get(key(link.source)), j = targetAt.get(key(link.target));
      toTarget[i].push(j);
      toSource[j].push(i);
    }
    return {source, translation: data.translation, sourceSpans, targetSpans, toTarget, toSource};
  }

  // The text with each linked word in a span of its own (overlapping spans: the first only).
  function words(container, text, spans, side) {
    container.replaceChildren();
    let at = 0;
    spans.forEach(([start, end], i) => {
      if (start < at) return;
      if (start > at) container.append(text.slice(at, start));
      const word = document.createElement("span");
      word.className = "aw";
      word.dataset.side = side;
      word.dataset.i = String(i);
      word.tabIndex = 0;
      word.textContent = text.slice(start, end);
      container.appendChild(word);
      at = end;
    });
    if (at < text.length) container.append(text.slice(at));
  }

  function wordAt(side, i) {
    const box = side === "source" ? $("source-words") : $("translation");
    return box.querySelector('.aw[data-i="' + i + '"]');
  }

  // Light up a word ({side, i}) and the words aligned to it; null: none.
  function showLinks(word) {
    for (const el of document.querySelectorAll(".aw.sel, .aw.hit")) {
      el.classList.remove("sel", "hit");
    }
    $("aligned").classList.toggle("focused", !!word);
    const info = $("alignment-info");
    if (!word || !aligned) {
      info.textContent = aligned && aligned.sourceSpans.length
        ? "Click or hover a word to see the words aligned to it."
        : "No word links for this translation.";
      return;
    }
    const other = word.side === "source" ? "target" : "source";
    const found = (word.side === "source" ? aligned.toTarget : aligned.toSource)[word.i];
    const el = wordAt(word.side, word.i);
    if (el) el.classList.add("sel");
    const names = [];
    for (const j of [...found].sort((a, b) => a - b)) {
      const hit = wordAt(other, j);
      if (hit) { hit.classList.add("hit"); names.push(hit.textContent); }
    }
    info.replaceChildren();
    const strong = document.createElement("strong");
    strong.textContent = el ? el.textContent : "";
    info.append(strong, word.side === "source" ? " → " : " ← ", names.join(", "),
                pinned ? "  (click it again to let go)" : "");
  }

  function alignmentEvents() {
    const box = $("aligned");
    const wordOf = (e) => {
      const el = e.target.closest(".aw");
      return el ? {side: el.dataset.side, i: Number(el.dataset.i)} : null;
    };
    box.addEventListener("mouseover", (e) => {
      const word = wordOf(e);
      if (word && !pinned && aligned) showLinks(word);
    });
    box.addEventListener("mouseleave", () => { if (!pinned) showLinks(null); });
    const toggle = (word) => {  // pin a word's links, or let them go
      const same = pinned && pinned.side === word.side && pinned.i === word.i;
      pinned = same ? null : word;
      showLinks(pinned);
    };
    box.addEventListener("click", (e) => {
      const word = wordOf(e);
      if (word && aligned) toggle(word);
    });
    box.addEventListener("keydown", (e) => {
      const word = wordOf(e);
      if (word && aligned && (e.key === "Enter" || e.key === " ")) {
        e.preventDefault();
        toggle(word);
      }
    });
  }

  // --- controls -------------------------------------------------------------------------------
  function controls(view) {
    const kinds = $("kinds"); kinds.replaceChildren();
    for (const [k, info] of Object.entries(answer.kinds)) {
      button(kinds, KIND_NAMES[k], k === state.kind, () => {
        state.kind = k;
        state.layer = Math.min(state.layer, info.n_layers);
        if (state.head !== "mean") state.head = Math.min(state.head, info.n_heads);
        ask(false);
      }, {"data-kind": k, title: info.title});
    }
    const layers = $("layers"); layers.replaceChildren();
    for (let l = 1; l <= view.n_layers; l++) {
      button(layers, String(l), l === state.layer, () => { state.layer = l; ask(false); },
             {"data-layer": String(l), title: "layer " + l + " of " + view.n_layers});
    }
    const heads = $("heads"); heads.replaceChildren();
    button(heads, "mean", state.head === "mean", () => { state.head = "mean"; ask(false); },
           {"data-head": "mean", title: "the mean of the layer's " + view.n_heads + " heads"});
    for (let h = 1; h <= view.n_heads; h++) {
      const b = button(heads, String(h), state.head === h, () => { state.head = h; ask(false); },
                       {"data-head": String(h), title: "head " + h});
      b.classList.add("head");
      b.style.setProperty("--swatch", COLORS[(h - 1) % COLORS.length]);
    }
    const levels = $("levels"); levels.replaceChildren();
    for (const [lv, name] of [["words", "words"], ["pieces", "subword pieces"]]) {
      button(levels, name, lv === state.level, () => { state.level = lv; ask(false); },
             {"data-level": lv});
    }
  }

  // --- the heatmap ----------------------------------------------------------------------------
  function render() {
    const view = answer.attention[state.kind];
    // The server answers with the layer it resolved (-1 becomes the last): keep the number.
    state.layer = view.layers[0];
    state.head = view.heads[0];
    const w = view.weights[0][0];
    let max = 0;
    for (const row of w) for (const x of row) if (x > max) max = x;
    current = {view, w, max: max || 1};
    focus = null;
    controls(view);
    $("describe").textContent = view.table.describe;
    const [rows, cols] = AXES[state.kind];
    $("axes").textContent = "Rows: " + rows + ". Columns: " + cols + ".";
    $("max").textContent = fmt(current.max);
    heatmap();
    table();
    info();
  }

  function label(cell, text) {
    const span = document.createElement("span");
    span.textContent = text;
    cell.title = text;
    if (SPECIAL.has(text)) cell.classList.add("special");
    cell.appendChild(span);
  }

  function heatmap() {
    const {view, w, max} = current;
    const table = $("heatmap");
    table.replaceChildren();
    const big = Math.max(view.queries.length, view.keys.length);
    table.className = "heatmap" + (big > 40 ? " small" : big > 24 ? " medium" : "");
    const head = table.createTHead().insertRow();
    const corner = document.createElement("th");
    corner.className = "corner";
    head.appendChild(corner);
    view.keys.forEach((key, k) => {
      const th = document.createElement("th");
      th.className = "col";
      th.dataset.k = String(k);
      label(th, key);
      head.appendChild(th);
    });
    const body = table.createTBody();
    view.queries.forEach((query, q) => {
      const tr = body.insertRow();
      const th = document.createElement("th");
      th.className = "row";
      th.dataset.q = String(q);
      label(th, query);
      tr.appendChild(th);
      view.keys.forEach((key, k) => {
        const td = tr.insertCell();
        td.dataset.q = String(q);
        td.dataset.k = String(k);
        td.style.background = blue(w[q][k] / max);
        td.title = query + " → " + key + ": " + fmt(w[q][k]);
      });
    });
  }

  function setFocus(f) {
    focus = f;
    const table = $("heatmap");
    for (const el of table.querySelectorAll(".hl")) el.classList.remove("hl");
    for (const el of table.querySelectorAll(".on")) el.classList.remove("on");
    for (const tr of $("links").tBodies[0].rows) tr.classList.remove("hl");
    if (f) {
      if (f.q !== null) {
        table.querySelector('th.row[data-q="' + f.q + '"]').classList.add("hl");
        table.tBodies[0].rows[f.q].classList.add("hl");
        $("links").tBodies[0].rows[f.q].classList.add("hl");
      }
      if (f.k !== null) {
        table.querySelector('th.col[data-k="' + f.k + '"]').classList.add("hl");
        for (const td of table.querySelectorAll('td[data-k="' + f.k + '"]')) td.classList.add("hl");
      }
      if (f.q !== null && f.k !== null) {
        table.querySelector('td[data-q="' + f.q + '"][data-k="' + f.k + '"]').classList.add("on");
      }
    }
    table.classList.toggle("focused", !!f);
    info();
  }

  // The explainer's line for the focused word: "black → negro (0.81), gato (0.12)".
  function info() {
    const box = $("info");
    box.replaceChildren();
    if (!focus) { box.textContent = "Hover a cell or a word."; return; }
    const {view, w} = current;
    const fromRow = focus.q !== null;
    const who = fromRow ? view.queries[focus.q] : view.keys[focus.k];
    const labels = fromRow ? view.keys : view.queries;
    const pairs = labels.map((_, x) => [fromRow ? w[focus.q][x] : w[x][focus.k], x]);
    pairs.sort((a, b) => b[0] - a[0]);
    const strong = document.createElement("strong");
    strong.textContent = who;
    box.append(strong, fromRow ? " → " : " ← ");
    const picked = fromRow ? focus.k : focus.q;  // the hovered cell's other word, if any
    const shown = pairs.filter((p, r) => r === 0 || p[0] >= 0.005).slice(0, TOP);
    if (picked !== null && !shown.some(([, x]) => x === picked)) {
      shown.push([fromRow ? w[focus.q][picked] : w[picked][focus.k], picked]);
    }
    shown.forEach(([weight, x], r) => {
      const word = document.createElement("span");
      word.className = "word" + (x === picked ? " picked" : "");
      word.textContent = labels[x];
      const number = document.createElement("span");
      number.className = "w";
      number.textContent = " (" + fmt(weight) + ")";
      const gap = r === TOP - 1 && shown.length > TOP ? " … " : ", ";
      box.append(word, number, r < shown.length - 1 ? gap : "");
    });
  }

  function heatmapEvents() {
    const table = $("heatmap");
    table.addEventListener("mouseover", (e) => {
      const cell = e.target.closest("td, th.row, th.col");
      if (!cell || !current) return;
      const q = cell.dataset.q === undefined ? null : Number(cell.dataset.q);
      const k = cell.dataset.k === undefined ? null : Number(cell.dataset.k);
      if (!focus || focus.q !== q || focus.k !== k) setFocus({q, k});
    });
    table.addEventListener("mouseleave", () => setFocus(null));
  }

  // --- the explainer's table, as the server made it ------------------------------------------
  function table() {
    const {view} = current;
    const body = $("links").tBodies[0];
    body.replaceChildren();
    view.table.rows.forEach((row, q) => {
      const tr = body.insertRow();
      tr.dataset.q = String(q);
      const word = tr.insertCell();
      word.textContent = row.word;
      word.className = "word" + (SPECIAL.has(row.word) ? " special" : "");
      const links = tr.insertCell();
      links.className = "attends";
      links.append("→ ");
      row.attends_to.forEach((a, r) => {
        const key = document.createElement("span");
        key.className = "key";
        key.textContent = a.word;
        const weight = document.createElement("span");
        weight.className = "w";
        weight.textContent = " (" + fmt(a.weight) + ")";
        links.append(key, weight, r < row.attends_to.length - 1 ? ", " : "");
      });
      tr.addEventListener("mouseenter", () => setFocus({q, k: null}));
      tr.addEventListener("mouseleave", () => setFocus(null));
    });
    $("table-text").textContent = view.table.text;
  }

  // --- the form -------------------------------------------------------------------------------
  function count() {
    const source = $("source");
    $("count").textContent = source.value.length + " / " + source.maxLength;
  }

  function submit(e) {
    e.preventDefault();
    const text = $("source").value;
    if (!text.trim()) {
      asked++;
      busy(false, true);
      showError("Type something to translate.");
      return;
    }
    state.sentence = {text, model: $("model").value || null, beam: Number($("beam").value)};
    ask(true);
  }

  // What is shown is always the selected model's (and beam's): another choice clears it, and
  // drops any answer still on its way.
  function choose() {
    asked++;
    busy(false, true);
    showError(null);
    clearResult();
  }

  $("form").addEventListener("submit", submit);
  $("model").addEventListener("change", choose);
  $("beam").addEventListener("change", choose);
  $("source").addEventListener("input", count);
  $("source").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) $("form").requestSubmit();
  });
  heatmapEvents();
  alignmentEvents();
  count();
  loadModels().catch((e) => showError("Could not list the models: " + e.message));
})();
