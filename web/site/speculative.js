// Widget 2: speculative decoding (`decode speculative`): the speed-up by batch from the calculator's table `batch`
// (one record: the calculator sweeps the batch itself), against the expected tokens per pass and the ideal speed-up.
"use strict";

defineWidget({
  id: "w-speculative",
  describe() {
    $("speculative-k-out").textContent = `${$("speculative-k").value} tok`;
    $("speculative-alpha-out").textContent = $("speculative-alpha").value;
    $("speculative-draft-cost-out").textContent = $("speculative-draft-cost").value;
    $("speculative-batch-out").textContent = String(pow2("speculative-batch"));
    $("speculative-tokens-out").textContent = `${pow2("speculative-tokens").toLocaleString("en")} tok`;
  },
  records() {
    return [{ plugin: "decode", calculator: "speculative",
              inputs: { model: $("speculative-model").value, gpu: $("speculative-gpu").value, k: $("speculative-k").value,
                        alpha: $("speculative-alpha").value, draft_cost: $("speculative-draft-cost").value,
                        batch: String(pow2("speculative-batch")), tokens: String(pow2("speculative-tokens")) } }];
  },
  clear() {
    clearSvg($("speculative-chart"));
    $("speculative-figures").replaceChildren();
    $("speculative-notes").textContent = "";
  },
  render(docs) {
    const rows = tableOf(docs[0], "batch");
    const at = rows.findIndex((r) => r.batch === pow2("speculative-batch"));
    const device = { fields: ["memory_bandwidth", "peak"] };
    figureRows($("speculative-figures"), [
      ["expected tokens per target pass", resultFig(docs, 0, "tokens_per_pass", { unit: "tok" })],
      ["tokens per pass if every draft is accepted", resultFig(docs, 0, "max_tokens_per_pass", { unit: "tok" })],
      ["tokens verified per sequence in one pass", resultFig(docs, 0, "verify_tokens", { unit: "tok" })],
      ["ideal speed-up (memory-bound step)", resultFig(docs, 0, "speedup", { unit: "×" })],
      ["plain decode step at this batch", resultFig(docs, 0, "plain_step_time", device)],
      ["verify pass at this batch", resultFig(docs, 0, "verify_step_time", device)],
      ["speed-up at this batch", resultFig(docs, 0, "speedup_at_batch", { unit: "×", ...device })],
      ["speculative tokens per second at this batch (all sequences)",
       at >= 0 ? cellFig(docs, 0, "batch", at, "speculative_tokens_per_second", device) : null],
      ["plain tokens per second at this batch (all sequences)",
       at >= 0 ? cellFig(docs, 0, "batch", at, "plain_tokens_per_second", device) : null],
      ["crossover: smallest batch at which speculation loses", resultFig(docs, 0, "crossover_batch", { unit: "seq", ...device })]]);
    $("speculative-notes").textContent = (docs[0].notes ?? []).join(" · ");
    drawSpeculative($("speculative-chart"), docs[0].results, rows, pow2("speculative-batch"));
  },
});

function drawSpeculative(svg, r, rows, batch) {
  const W = 760, H = 420, L = 64, R = 24, T = 64, B = 50;
  clearSvg(svg);
  patterns(svg);
  const tau = r.tokens_per_pass.value, ideal = r.speedup.value, cross = r.crossover_batch?.value;
  const bMax = rows[rows.length - 1].batch;
  const yMax = niceCeiling(Math.max(tau, ideal, ...rows.map((q) => q.speedup)) * 1.1);
  const px = (b) => L + Math.log2(b) / Math.log2(bMax) * (W - L - R);
  const py = (v) => H - B - v / yMax * (H - T - B);
  for (let b = 1; b <= bMax; b *= 2) {
    svg.append(el("line", { x1: px(b), x2: px(b), y1: T, y2: H - B, stroke: "#eee" }));
    svg.append(el("text", { x: px(b), y: H - B + 16, "text-anchor": "middle", "font-size": 12 }, si(b, "")));
  }
  for (const v of linearTicks(yMax)) {
    svg.append(el("line", { x1: L, x2: W - R, y1: py(v), y2: py(v), stroke: "#eee" }));
    svg.append(el("text", { x: L - 6, y: py(v) + 4, "text-anchor": "end", "font-size": 12 }, si(v, "")));
  }
  axisTitle(svg, (L + W - R) / 2, H - 12, "batch (sequences decoded together)");
  axisTitle(svg, 16, (T + H - B) / 2, "speed-up (×) · tokens per pass (tok)", true);
  const hline = (v, attrs) => svg.append(el("line", { x1: L, x2: W - R, y1: py(v), y2: py(v), ...attrs }));
  const styles = {
    even: { stroke: "#888", "stroke-width": 1.5, "stroke-dasharray": "1 3" },
    tau: { stroke: "#2a7a2a", "stroke-width": 2, "stroke-dasharray": "2 3" },
    ideal: { stroke: "#b35900", "stroke-width": 2, "stroke-dasharray": "8 4" },
    speedup: { stroke: "#1f4e9c", "stroke-width": 2.5, fill: "none" },
    cross: { stroke: "#a00000", "stroke-width": 1.5, "stroke-dasharray": "8 3 2 3" },
  };
  hline(1, styles.even);
  hline(tau, styles.tau);
  hline(ideal, styles.ideal);
  svg.append(el("polyline", { points: rows.map((q) => `${px(q.batch)},${py(q.speedup)}`).join(" "), ...styles.speedup }));
  for (const q of rows) svg.append(el("circle", { cx: px(q.batch), cy: py(q.speedup), r: 3.5, fill: "#1f4e9c" }));
  const chosen = rows.find((q) => q.batch === batch);
  const diamond = (x, y) => el("rect", { x: x - 6, y: y - 6, width: 12, height: 12, fill: "#fff", stroke: "#1f4e9c",
                                         "stroke-width": 2.5, transform: `rotate(45 ${x} ${y})` });
  if (chosen) svg.append(diamond(px(chosen.batch), py(chosen.speedup)));
  const crossLabel = (x, anchor, text) =>
    svg.append(el("text", { x, y: T + 14, "text-anchor": anchor, "font-size": 12, fill: "#a00000" }, text));
  if (cross !== undefined && cross <= bMax) {
    svg.append(el("line", { x1: px(cross), x2: px(cross), y1: T, y2: H - B, ...styles.cross }));
    const right = px(cross) > (L + W - R) / 2;
    crossLabel(px(cross) + (right ? -6 : 6), right ? "end" : "start", `crossover: batch ${si(cross, "")}`);
  } else {
    crossLabel(W - R - 6, "end", cross === undefined ? "no crossover: speculation pays at every batch searched"
                                                     : `crossover beyond the chart, at batch ${si(cross, "")}`);
  }
  legend(svg, L, 16, [[lineSwatch(styles.speedup), "speed-up at each batch"], [(x, y) => diamond(x + 10, y), "this batch"],
                      [lineSwatch(styles.ideal), "ideal speed-up (memory-bound)"]]);
  legend(svg, L, 38, [[lineSwatch(styles.tau), "expected tokens per pass"], [lineSwatch(styles.even), "break-even (1×)"],
                      ...(cross !== undefined && cross <= bMax ? [[lineSwatch(styles.cross), "crossover batch"]] : [])]);
}
