// What heedful's two attention pages share: the head colours, the Blues ramp of the PNG heatmaps
// and the toggle buttons. The offline page (heedful/explain/page.html) carries this file inline;
// `heedful serve` sends it as /static/shared.js, before its own app.js.
"use strict";
const heedful = {
  // one colour per head: matplotlib's tab10, then the darks of tab20b and tab20c
  COLORS: ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
           "#bcbd22", "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd"],
  // Blues, as the PNG heatmaps: white (0) to deep blue (1)
  BLUES: [[247, 251, 255], [198, 219, 239], [107, 174, 214], [33, 113, 181], [8, 48, 107]],
  blue(x) {
    const ramp = heedful.BLUES;
    const p = Math.min(1, Math.max(0, x)) * (ramp.length - 1);
    const k = Math.min(ramp.length - 2, Math.floor(p)), f = p - k;
    const c = ramp[k].map((a, n) => Math.round(a + f * (ramp[k + 1][n] - a)));
    return "rgb(" + c.join(",") + ")";
  },
  // A toggle button (aria-pressed) appended to parent.
  button(parent, text, pressed, onClick, attrs) {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = text;
    b.setAttribute("aria-pressed", String(pressed));
    for (const [k, v] of Object.entries(attrs || {})) b.setAttribute(k, v);
    b.addEventListener("click", onClick);
    parent.appendChild(b);
    return b;
  },
};
