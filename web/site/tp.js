// Widget 3: the tensor-parallel split of a decode step (`decode tp`), one record at batch 1 and one at batch 256, each
// with the calculator's table `tp` over 1, 2, 4 and 8 GPUs.
"use strict";

const TP_BATCHES = [1, 256];

defineWidget({
  id: "w-tp",
  describe() {
    $("tp-tokens-out").textContent = `${pow2("tp-tokens").toLocaleString("en")} tok`;
  },
  records() {
    return TP_BATCHES.map((batch) => {
      const inputs = { model: $("tp-model").value, gpu: $("tp-gpu").value, batch: String(batch),
                       tokens: String(pow2("tp-tokens")), tp: "1,2,4,8" };
      if ($("tp-link").value) inputs.link = $("tp-link").value;
      return { plugin: "decode", calculator: "tp", inputs };
    });
  },
  clear() {
    clearSvg($("tp-chart"));
    $("tp-figures-head").replaceChildren();
    $("tp-figures").replaceChildren();
    $("tp-notes").textContent = "";
  },
  render(docs) {
    tpFigures(docs);
    // The notes of both records, each once.
    $("tp-notes").textContent = [...new Set(docs.flatMap((d) => d.notes ?? []))].join(" · ");
    drawTp($("tp-chart"), docs.map((d) => tableOf(d, "tp")));
  },
});

// One row per record and degree: what each GPU holds and reads, the all-reduces, and the step's terms.
const TP_COLUMNS = [
  ["tp", "GPUs", "GPU"], ["weights_per_device", "weights per GPU"], ["bytes_per_step", "bytes read per step per GPU"],
  ["allreduces", "all-reduces per token", "all-reduces"], ["allreduce_bytes", "bytes per all-reduce"],
  ["memory_time", "memory time"], ["compute_time", "compute time"], ["communication_time", "all-reduce time"],
  ["step_time", "step time"], ["tokens_per_second_per_stream", "tokens per second per sequence"],
  ["speedup", "speed-up over 1 GPU", "×"]];
const TP_SOURCES = { weights_per_device: [], bytes_per_step: [], memory_time: ["memory_bandwidth"],
                     compute_time: ["peak"], communication_time: ["scaleup_bandwidth", "bandwidth_per_direction"],
                     step_time: ["memory_bandwidth", "peak", "scaleup_bandwidth", "bandwidth_per_direction"] };

function tpFigures(docs) {
  $("tp-figures-head").replaceChildren(h("tr", {}, ...TP_COLUMNS.map(([, title]) => h("th", { scope: "col" }, title))));
  const body = [];
  docs.forEach((doc, i) => {
    body.push(h("tr", { class: "group" }, h("th", { colspan: TP_COLUMNS.length, scope: "rowgroup" },
                                             `batch ${TP_BATCHES[i]}: ${doc.tables.tp.title}`)));
    doc.tables.tp.rows.forEach((_, row) => body.push(h("tr", {}, ...TP_COLUMNS.map(([key, , unit]) =>
      h("td", { class: "value" }, cellFig(docs, i, "tp", row, key, { unit, fields: TP_SOURCES[key] }))))));
  });
  $("tp-figures").replaceChildren(...body);
}

// Stacked bars, one panel per batch: the term that binds (memory or compute, which overlap) under the all-reduces
// (which do not), so a bar is as tall as the step; the term that does not bind is outlined inside the first.
function drawTp(svg, tables) {
  const W = 760, H = 420, T = 78, B = 50, panelGap = 84, L = 72, R = 16;
  clearSvg(svg);
  patterns(svg);
  const fills = { memory: { fill: "#1f4e9c" }, compute: { fill: `url(#${svg.id}-diagonal)`, stroke: "#7a3d00" },
                  communication: { fill: `url(#${svg.id}-cross)`, stroke: "#333" },
                  hidden: { fill: "none", stroke: "#000", "stroke-width": 1.5, "stroke-dasharray": "4 3" } };
  const width = (W - L - R - panelGap * (tables.length - 1)) / tables.length;
  tables.forEach((rows, p) => {
    const x0 = L + p * (width + panelGap);
    const top = niceCeiling(Math.max(...rows.map((r) => r.step_time)));
    const py = (t) => H - B - t / top * (H - T - B);
    for (const t of linearTicks(top)) {
      svg.append(el("line", { x1: x0, x2: x0 + width, y1: py(t), y2: py(t), stroke: "#eee" }));
      svg.append(el("text", { x: x0 - 6, y: py(t) + 4, "text-anchor": "end", "font-size": 12 }, si(t, "s")));
    }
    svg.append(el("text", { x: x0 + width / 2, y: T - 10, "text-anchor": "middle", "font-size": 13, "font-weight": 600 },
                  `batch ${TP_BATCHES[p]}`));
    const slot = width / rows.length, bar = slot * 0.55;
    rows.forEach((r, k) => {
      const x = x0 + slot * k + (slot - bar) / 2;
      const binds = r.memory_time >= r.compute_time ? "memory" : "compute";
      const base = Math.max(r.memory_time, r.compute_time), hidden = Math.min(r.memory_time, r.compute_time);
      const box = (from, to, style, what) => {
        const rect = el("rect", { x, y: py(to), width: bar, height: Math.max(0, py(from) - py(to)), ...style });
        rect.append(el("title", {}, what));
        svg.append(rect);
      };
      box(0, base, fills[binds], `${binds} time ${si(base, "s")} (binds)`);
      box(base, base + r.communication_time, fills.communication, `all-reduce time ${si(r.communication_time, "s")}`);
      if (hidden > 0) box(0, hidden, fills.hidden, `${binds === "memory" ? "compute" : "memory"} time ${si(hidden, "s")} (overlapped)`);
      svg.append(el("text", { x: x + bar / 2, y: H - B + 16, "text-anchor": "middle", "font-size": 12 }, si(r.tp, "")));
    });
    axisTitle(svg, x0 + width / 2, H - 12, "GPUs (tensor-parallel degree)");
    axisTitle(svg, x0 - 60, (T + H - B) / 2, "step time (s)", true);
  });
  legend(svg, L, 16, [[boxSwatch(fills.memory), "memory time (binds)"], [boxSwatch(fills.compute), "compute time (binds)"],
                      [boxSwatch(fills.communication), "all-reduce time"]]);
  legend(svg, L, 38, [[boxSwatch(fills.hidden), "the term that does not bind, overlapped with the one that does"]]);
}
