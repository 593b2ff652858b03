// What every widget of the page shares: the engine, the display of its numbers as figures, the SVG helpers, and
// the redraw that records what was asked of the engine (the page's contract with its browser test, docs/web.md:
// data-records, data-redraw-ms, span.fig, body[data-ready]).
"use strict";

const $ = (id) => document.getElementById(id);

function fill(select, items, chosen) {
  for (const [id, name] of items) select.add(new Option(`${name} (${id})`, id, false, id === chosen));
}

// A slider that moves over powers of two: its position is the exponent.
const pow2 = (id) => 2 ** Number($(id).value);

// Display only: SI prefixes on the engine's numbers, four significant digits as the command line prints them.
// Times also take the prefixes below one (a decode step is milliseconds); other units below one stay plain numbers.
const PREFIXES = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"], [1, ""]];
const SMALL_PREFIXES = [[1, ""], [1e-3, "m"], [1e-6, "µ"], [1e-9, "n"]];
function si(value, unit) {
  const space = unit ? " " : "";
  if (value === 0) return `0${space}${unit}`;
  const prefixes = unit === "s" && Math.abs(value) < 1 ? SMALL_PREFIXES : PREFIXES;
  const [scale, prefix] = prefixes.find(([s]) => Math.abs(value) >= s) ?? prefixes[prefixes.length - 1];
  const text = String(Number((value / scale).toPrecision(4)));
  return prefix || unit ? `${text} ${prefix}${unit}` : text;
}

// Where a figure came from: the provenance entries of the catalog fields it was read from.
function sourceOf(doc, fields) {
  return (doc.provenance ?? []).filter((p) => fields.some((f) => p.field === f || p.field.startsWith(f)))
    .map((p) => `${p.id} ${p.field}: ${p.source ?? p.basis}${p.as_of ? ` (as of ${p.as_of})` : ""}`).join("\n");
}

function h(name, attrs = {}, ...children) {
  const e = document.createElement(name);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

// One engine number on the page. `unit` is what is written after it: the engine's unit unless the figure says
// what is counted (speed-ups in ×, a batch in sequences).
function fig(record, key, value, unit, source) {
  const span = h("span", { class: "fig", "data-record": String(record), "data-key": key, "data-value": String(value) },
                 si(value, unit));
  if (source) {
    span.tabIndex = 0;
    span.dataset.source = "";
    span.title = source;
  }
  return span;
}

// The figure of results.NAME of docs[i]; `o.unit` replaces the engine's unit, `o.fields` names the catalog fields
// whose sources it shows. Null when the engine did not report it.
function resultFig(docs, i, name, o = {}) {
  const v = docs[i].results?.[name];
  if (!v) return null;
  return fig(i, `results.${name}`, v.value, o.unit ?? displayUnit(v.unit), o.fields ? sourceOf(docs[i], o.fields) : "");
}

// A table of an engine document: its rows as objects keyed by column, and the figure of one cell.
function tableOf(doc, name) {
  const t = doc.tables?.[name];
  if (!t) return [];
  return t.rows.map((row) => Object.fromEntries(t.columns.map((c, k) => [c.key, row[k]])));
}
function cellFig(docs, i, table, row, column, o = {}) {
  const t = docs[i].tables[table];
  const c = t.columns.findIndex((col) => col.key === column);
  return fig(i, `tables.${table}.${row}.${column}`, t.rows[row][c], o.unit ?? displayUnit(t.columns[c].unit),
             o.fields ? sourceOf(docs[i], o.fields) : "");
}
// The engine writes dimensionless numbers with the unit "1"; the page writes them bare.
const displayUnit = (unit) => (unit === "1" || unit === undefined ? "" : unit);

// A two-column table of figures: [label, figure] pairs, rows whose figure is missing left out.
function figureRows(tbody, rows) {
  tbody.replaceChildren(...rows.filter(([, f]) => f).map(([label, f]) =>
    h("tr", {}, h("td", {}, label), h("td", { class: "value" }, f))));
}

const SVG = "http://www.w3.org/2000/svg";
function el(name, attrs = {}, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}
// Empties a chart but for its <title> and <defs>.
function clearSvg(svg) {
  for (const c of [...svg.children]) if (c.tagName !== "title" && c.tagName !== "defs") c.remove();
}
// Hatches and dots that tell the series apart without colour (greyscale print, colour blindness).
function patterns(svg) {
  if (svg.querySelector("defs")) return;
  const defs = el("defs");
  const hatch = (id, colour, d, background) => {
    const p = el("pattern", { id, width: 6, height: 6, patternUnits: "userSpaceOnUse" });
    p.append(el("rect", { width: 6, height: 6, fill: background }));
    p.append(el("path", { d, stroke: colour, "stroke-width": 1.5 }));
    defs.append(p);
  };
  const prefix = svg.id;
  hatch(`${prefix}-diagonal`, "#7a3d00", "M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2", "#f0a860");
  hatch(`${prefix}-cross`, "#333", "M0,3 h6 M3,0 v6", "#c8c8c8");
  const dots = el("pattern", { id: `${prefix}-dots`, width: 5, height: 5, patternUnits: "userSpaceOnUse" });
  dots.append(el("rect", { width: 5, height: 5, fill: "#fff" }), el("circle", { cx: 2.5, cy: 2.5, r: 0.9, fill: "#777" }));
  defs.append(dots);
  svg.prepend(defs);
}

// Legend entries [swatch, text] in a row above the data area, each placed after the width of the one before.
function legend(svg, x, y, entries) {
  const g = el("g", { class: "legend" });
  svg.append(g);
  let at = x;
  for (const [swatch, text] of entries) {
    g.append(swatch(at, y));
    const label = el("text", { x: at + 26, y: y + 4, "font-size": 12 }, text);
    g.append(label);
    at += 26 + label.getComputedTextLength() + 18;
  }
  return g;
}
const lineSwatch = (attrs) => (x, y) => el("line", { x1: x, x2: x + 20, y1: y, y2: y, ...attrs });
const boxSwatch = (attrs) => (x, y) => el("rect", { x, y: y - 6, width: 20, height: 12, ...attrs });

function axisTitle(svg, x, y, text, vertical = false) {
  const attrs = { x, y, "text-anchor": "middle", "font-size": 13 };
  if (vertical) attrs.transform = `rotate(-90 ${x} ${y})`;
  svg.append(el("text", attrs, text));
}

// Linear axes: ticks at 1, 2 or 5 x a power of ten, about five of them.
function tickStep(top) {
  const raw = top / 5, power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw);
}
function niceCeiling(top) {
  const step = tickStep(top);
  return Math.ceil(top / step) * step;
}
function linearTicks(top) {
  const step = tickStep(top), ticks = [];
  for (let k = 0; k * step <= top * (1 + 1e-9); ++k) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

// Widgets: `records()` gives the batch records of one redraw, `render(docs)` draws from the engine's answers,
// `clear()` empties the widget when the engine refuses a record.
const widgets = [];
let runRecord = null;

function defineWidget(w) {
  w.section = $(w.id);
  w.status = w.section.querySelector(".status");
  widgets.push(w);
  for (const control of w.section.querySelectorAll("select, input")) control.addEventListener("input", () => redraw(w));
  if (w.describe) w.describe();
}

function redraw(w) {
  if (w.describe) w.describe();
  if (!runRecord) return;
  const started = performance.now();
  const records = w.records().map((r) => JSON.stringify(r));
  const docs = records.map((r) => JSON.parse(runRecord(r, 1)));
  const refused = docs.find((d) => d.error);
  if (refused) {
    w.clear();
    w.status.className = "status error";
    w.status.textContent = `${refused.error}${refused.hint ? `\n${refused.hint}` : ""}`;
  } else {
    w.status.className = "status";
    w.status.textContent = "";
    w.render(docs);
  }
  w.section.dataset.records = JSON.stringify(records);
  w.section.dataset.redrawMs = String(performance.now() - started);
}

function start() {
  const failed = (what) => {
    for (const w of widgets) {
      w.status.className = "status error";
      w.status.textContent = `The engine did not load: ${what}`;
    }
  };
  window.addEventListener("error", (e) => failed(e.message));
  for (const w of widgets) w.status.textContent = "Loading the engine…";
  loadInfracalcEngine("infracalc-engine-wasm").then((engine) => {
    runRecord = engine.cwrap("infracalc_run_record", "string", ["string", "number"]);
    for (const w of widgets) redraw(w);
    document.body.dataset.readyMs = String(performance.now());
    document.body.dataset.ready = "1";
  }, (e) => failed(String(e)));
}
