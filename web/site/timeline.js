// Widget 4: the same eight GPUs as TP8, TP4xPP2 and DP8 (`decode timeline`): every GPU's intervals over one round from
// the calculator's table `timeline`, and each layout's round from its table `layouts`.
"use strict";

const TIMELINE_LAYOUTS = "TP8,TP4xPP2,DP8";

defineWidget({
  id: "w-timeline",
  describe() {
    $("timeline-batch-out").textContent = String(pow2("timeline-batch"));
    $("timeline-tokens-out").textContent = `${pow2("timeline-tokens").toLocaleString("en")} tok`;
  },
  records() {
    return [{ plugin: "decode", calculator: "timeline",
              inputs: { model: $("timeline-model").value, gpu: $("timeline-gpu").value, batch: String(pow2("timeline-batch")),
                        tokens: String(pow2("timeline-tokens")), gpus: "8", layouts: TIMELINE_LAYOUTS } }];
  },
  clear() {
    clearSvg($("timeline-chart"));
    $("timeline-figures-head").replaceChildren();
    $("timeline-figures").replaceChildren();
    $("timeline-notes").replaceChildren();
  },
  render(docs) {
    timelineFigures(docs);
    const layouts = tableOf(docs[0], "layouts");
    const winner = layouts.find((l) => l.total === docs[0].results.best_total.value)?.layout ?? "the best layout";
    const sourced = { fields: DEVICE_FIELDS };
    const best = h("p", {}, `Most tokens per second, all GPUs together: ${winner}, `, resultFig(docs, 0, "best_total", sourced),
                   "; each sequence then gets ", resultFig(docs, 0, "best_per_sequence", { unit: "tok/s", ...sourced }),
                   ", one token every ", resultFig(docs, 0, "best_round", sourced), ".");
    $("timeline-notes").replaceChildren(best, h("p", {}, (docs[0].notes ?? []).join(" · ")));
    drawTimeline($("timeline-chart"), layouts, tableOf(docs[0], "timeline"));
  },
});

// Columns of the table `layouts` shown: key, heading, the unit written (the engine's when absent), and whether the
// figure rests on the accelerator's and link's catalog figures.
const TIMELINE_COLUMNS = [
  { key: "layout", title: "layout" },
  { key: "replica_batch", title: "sequences per replica", unit: "seq" },
  { key: "micro_batches", title: "in flight per replica", unit: "micro-batches" },
  { key: "stage_compute", title: "stage compute per micro-batch", sourced: true },
  { key: "stage_communicate", title: "stage all-reduces per micro-batch", sourced: true },
  { key: "hand_over", title: "hand-over between stages", sourced: true },
  { key: "round", title: "round: time between two tokens of a sequence", sourced: true },
  { key: "per_sequence", title: "tokens per second per sequence", unit: "tok/s", sourced: true },
  { key: "total", title: "tokens per second, all GPUs", sourced: true }];
const DEVICE_FIELDS = ["memory_bandwidth", "peak", "scaleup_bandwidth", "bandwidth_per_direction"];

function timelineFigures(docs) {
  $("timeline-figures-head").replaceChildren(h("tr", {}, ...TIMELINE_COLUMNS.map((c) => h("th", { scope: "col" }, c.title))));
  $("timeline-figures").replaceChildren(...tableOf(docs[0], "layouts").map((layout, row) => h("tr", {},
    ...TIMELINE_COLUMNS.map((c) => c.key === "layout" ? h("th", { scope: "row" }, layout.layout)
      : h("td", { class: "value" }, cellFig(docs, 0, "layouts", row, c.key, { unit: c.unit, fields: c.sourced ? DEVICE_FIELDS : undefined }))))));
}

const STATE_STYLES = (svg) => ({
  compute: { fill: "#1f4e9c" },
  communicate: { fill: `url(#${svg.id}-diagonal)`, stroke: "#7a3d00", "stroke-width": 0.5 },
  wait: { fill: `url(#${svg.id}-dots)`, stroke: "#999", "stroke-width": 0.5 },
});

// One row per GPU, grouped by layout, on one time axis so the layouts' rounds compare directly.
function drawTimeline(svg, layouts, segments) {
  const W = 760, L = 120, R = 24, T = 56, B = 50, row = 13, header = 22;
  clearSvg(svg);
  patterns(svg);
  const style = STATE_STYLES(svg);
  const gpusOf = (name) => Math.max(...segments.filter((s) => s.layout === name).map((s) => s.gpu)) + 1;
  const H = T + layouts.reduce((sum, l) => sum + header + gpusOf(l.layout) * row, 0) + B;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const end = niceCeiling(Math.max(...layouts.map((l) => l.round)));
  const px = (t) => L + t / end * (W - L - R);
  for (const t of linearTicks(end)) {
    svg.append(el("line", { x1: px(t), x2: px(t), y1: T, y2: H - B, stroke: "#eee" }));
    svg.append(el("text", { x: px(t), y: H - B + 16, "text-anchor": "middle", "font-size": 12 }, si(t, "s")));
  }
  let y = T;
  for (const l of layouts) {
    svg.append(el("text", { x: 8, y: y + header - 7, "font-size": 13, "font-weight": 600 }, l.layout));
    y += header;
    for (let gpu = 0; gpu < gpusOf(l.layout); ++gpu) {
      svg.append(el("text", { x: L - 8, y: y + row - 3, "text-anchor": "end", "font-size": 10 }, `GPU ${gpu}`));
      for (const s of segments.filter((q) => q.layout === l.layout && q.gpu === gpu)) {
        const rect = el("rect", { x: px(s.start), y: y + 1, width: Math.max(0, px(s.end) - px(s.start)), height: row - 2, ...style[s.state] });
        const micro = s.micro_batch === "-" ? "" : `, micro-batch ${s.micro_batch}`;
        rect.append(el("title", {}, `${l.layout} GPU ${gpu}: ${s.state}${micro}, ${si(s.start, "s")} to ${si(s.end, "s")}`));
        svg.append(rect);
      }
      y += row;
    }
  }
  axisTitle(svg, (L + W - R) / 2, H - 12, "time from the start of the round (s)");
  legend(svg, L, 20, [[boxSwatch(style.compute), "busy: computing"], [boxSwatch(style.communicate), "communicating (all-reduces)"],
                      [boxSwatch(style.wait), "waiting (for a stage, or a hand-over)"]]);
}
