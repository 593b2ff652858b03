// Widget 1: the roofline of a decode step (`decode roofline`): the ridge, and where decode and prefill sit.
"use strict";

defineWidget({
  id: "w-roofline",
  describe() {
    $("roofline-batch-out").textContent = String(pow2("roofline-batch"));
    $("roofline-tokens-out").textContent = `${pow2("roofline-tokens").toLocaleString("en")} tok`;
  },
  records() {
    const inputs = { model: $("roofline-model").value, gpu: $("roofline-gpu").value, batch: String(pow2("roofline-batch")),
                     tokens: String(pow2("roofline-tokens")) };
    if ($("roofline-compute").value) inputs["compute-dtype"] = $("roofline-compute").value;
    return [{ plugin: "decode", calculator: "roofline", inputs }];
  },
  clear() {
    clearSvg($("roofline-chart"));
    $("roofline-verdict").textContent = "";
    $("roofline-figures").replaceChildren();
    $("roofline-notes").textContent = "";
  },
  render(docs) {
    const doc = docs[0];
    const v = doc.verdicts;
    const bound = (key, what) => v[key] ? `${what} is ${v[key].ok ? "memory-bound" : "compute-bound"} (${v[key].text})` : "";
    $("roofline-verdict").textContent = [bound("decode_memory_bound", "Decode"), bound("prefill_memory_bound", "Prefill")]
      .filter(Boolean).join(". ");
    figureRows($("roofline-figures"), [
      ["peak rate", resultFig(docs, 0, "peak", { fields: ["peak"] })],
      ["memory bandwidth", resultFig(docs, 0, "bandwidth", { fields: ["memory_bandwidth"] })],
      ["ridge point", resultFig(docs, 0, "ridge_point", { fields: ["peak", "memory_bandwidth"] })],
      ["batch at the ridge", resultFig(docs, 0, "ridge_batch", { unit: "sequences" })],
      ["decode intensity", resultFig(docs, 0, "decode_intensity")],
      ["decode attainable rate", resultFig(docs, 0, "decode_attainable")],
      ["bytes per decode step", resultFig(docs, 0, "decode_bytes")],
      ["prefill intensity", resultFig(docs, 0, "prefill_intensity")],
      ["prefill attainable rate", resultFig(docs, 0, "prefill_attainable")]]);
    $("roofline-notes").textContent = (doc.notes ?? []).join(" · ");
    drawRoofline($("roofline-chart"), doc.results);
  },
});

function drawRoofline(svg, r) {
  const W = 760, H = 440, L = 70, R = 20, T = 40, B = 50;
  clearSvg(svg);
  const peak = r.peak.value, bw = r.bandwidth.value, ridge = r.ridge_point.value;
  const points = [["decode", r.decode_intensity?.value, r.decode_attainable?.value, "#1f4e9c", "circle"],
                  ["prefill", r.prefill_intensity?.value, r.prefill_attainable?.value, "#b35900", "square"]]
    .filter(([, i, a]) => i > 0 && a > 0);
  const xs = [ridge, ...points.map((p) => p[1])];
  const x0 = Math.floor(Math.log10(Math.min(...xs) / 4)), x1 = Math.ceil(Math.log10(Math.max(...xs) * 4));
  const y1 = Math.ceil(Math.log10(peak * 2)), y0 = Math.floor(Math.log10(Math.min(peak, bw * 10 ** x0)));
  const px = (i) => L + (Math.log10(i) - x0) / (x1 - x0) * (W - L - R);
  const py = (a) => H - B - (Math.log10(a) - y0) / (y1 - y0) * (H - T - B);
  for (let e = x0; e <= x1; ++e) {
    svg.append(el("line", { x1: px(10 ** e), x2: px(10 ** e), y1: T, y2: H - B, stroke: "#eee" }));
    svg.append(el("text", { x: px(10 ** e), y: H - B + 16, "text-anchor": "middle", "font-size": 12 }, si(10 ** e, "")));
  }
  for (let e = y0; e <= y1; ++e) {
    svg.append(el("line", { x1: L, x2: W - R, y1: py(10 ** e), y2: py(10 ** e), stroke: "#eee" }));
    svg.append(el("text", { x: L - 6, y: py(10 ** e) + 4, "text-anchor": "end", "font-size": 12 }, si(10 ** e, "")));
  }
  axisTitle(svg, (L + W - R) / 2, H - 12, "arithmetic intensity (FLOP/B)");
  axisTitle(svg, 16, (T + H - B) / 2, "attainable rate (FLOP/s)", true);
  // The roof: bandwidth x intensity up to the ridge, the peak after it.
  const lo = 10 ** x0, hi = 10 ** x1;
  svg.append(el("polyline", { points: `${px(lo)},${py(bw * lo)} ${px(ridge)},${py(peak)} ${px(hi)},${py(peak)}`,
                              fill: "none", stroke: "#222", "stroke-width": 2.5 }));
  svg.append(el("line", { x1: px(ridge), x2: px(ridge), y1: py(peak), y2: H - B, stroke: "#222", "stroke-dasharray": "4 4" }));
  // The ridge's label at the foot of its line, where the roof (and so every point) is far above it.
  svg.append(el("text", { x: px(ridge) + 6, y: H - B - 8, "font-size": 12 }, `ridge ${si(ridge, "FLOP/B")}`));
  const marker = (shape, x, y, colour) => shape === "circle" ? el("circle", { cx: x, cy: y, r: 7, fill: colour })
                                                             : el("rect", { x: x - 6, y: y - 6, width: 12, height: 12, fill: colour });
  // Decode's label under the roof, prefill's above it: they stay apart however close the points come.
  for (const [name, i, a, colour, shape] of points) {
    svg.append(marker(shape, px(i), py(a), colour));
    const above = name === "prefill";
    svg.append(el("text", { x: px(i) + (above ? -10 : 10), y: py(a) + (above ? -10 : 18), "font-size": 13, fill: colour,
                            "text-anchor": above ? "end" : "start" }, name));
  }
  legend(svg, L, 16, [[lineSwatch({ stroke: "#222", "stroke-width": 2.5 }), "roof: bandwidth × intensity, then the peak"],
                      [lineSwatch({ stroke: "#222", "stroke-dasharray": "4 4" }), "ridge"],
                      ...points.map(([name, , , colour, shape]) => [(x, y) => marker(shape, x + 10, y, colour), `${name} step`])]);
}
