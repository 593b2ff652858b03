#include "plan/plan_html.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>

#include "documents/json.hpp"
#include "plan/plan_file.hpp"
#include "plan/plan_svg.hpp"
#include "plan/svg.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

// Text in an element or an attribute: the SVG writer's escaper, which handles &, <, > and ".
std::string h(std::string_view text) { return svg::esc(text); }

// `lines`, when given, names each row's line: its value cell carries data-line, which the what-if panel updates.
std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows,
                  const std::vector<std::string>& lines = {}) {
  std::string out = "<table>\n<thead><tr>";
  for (const auto& c : head) out += "<th>" + h(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    out += "<tr>";
    for (std::size_t i = 0; i < rows[r].size(); ++i) {
      if (i != 1) out += "<td>";
      else if (r < lines.size()) out += "<td class=\"num\" data-line=\"" + h(lines[r]) + "\">";
      else out += "<td class=\"num\">";
      out += h(rows[r][i]) + "</td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// Print on A4 or Letter: tables do not break inside a row, charts keep to the page width, headings stay with
// what follows them. On screen the browser lays out and paints a table, list or chart only when it comes into view
// (content-visibility): a what-if move that changes much of the report (another system) was painted 10-15 ms later
// without it, the text of the tables below the window shaped again.
constexpr std::string_view kStyle =
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222;line-height:1.35}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}"
    "th,td{border-bottom:1px solid #ddd;padding:0.25em 0.6em;text-align:left;vertical-align:top}"
    "td.num{text-align:right;white-space:nowrap}th{background:#f3f3f3}"
    ".fail{color:#b00020;font-weight:bold}.pass{color:#1b5e20}"
    "figure{margin:1em 0}svg{max-width:100%;height:auto}"
    "#report>table,#report>ul,#report>figure{content-visibility:auto;contain-intrinsic-size:auto 20em}"
    "@media print{body{margin:0;max-width:none}h2{break-after:avoid}tr,figure{break-inside:avoid}"
    "#report>table,#report>ul,#report>figure{content-visibility:visible}}";

// The what-if panel's look: controls in a grid, changed values marked.
constexpr std::string_view kWhatIfStyle =
    "#what-if{border:1px solid #ccc;padding:0.5em 1em;margin:1em 0}#what-if fieldset{border:0;padding:0;margin:0;"
    "display:grid;grid-template-columns:max-content max-content max-content;gap:0.25em 0.6em;align-items:center}"
    "#what-if input,#what-if select{font:inherit}#what-if input[type=number]{width:9em}.changed{background:#fff0b3}"
    "@media print{#what-if{display:none}}";

// The panel's code: loads the engine with the site's loader (the engine's script and the loader as base64 in the page's
// data, its gzipped WebAssembly as base64 in an element of its own, as the site carries it: nothing is fetched), re-runs the plan with the changed controls as overrides through infracalc_run_plan, and puts the
// report the engine writes in place of the page's, marking each value that differs from the plan as written. It has
// no < and no &: it sits as plain text in a script element of a page that is also XML.
constexpr std::string_view kWhatIfScript = R"js((function () {
  'use strict';
  var D = window.infracalcWhatIf;
  var section = document.getElementById('what-if');
  var status = document.getElementById('wi-status');
  var fields = document.getElementById('wi-fields');
  var controls = Array.prototype.slice.call(section.querySelectorAll('[data-key]'));
  var each = function (root, f) { Array.prototype.forEach.call(root.querySelectorAll('[data-line]'), f); };
  var written = {};
  each(document.getElementById('report'), function (e) { written[e.getAttribute('data-line')] = e.textContent; });
  var run = null;
  function message(e) { return e instanceof Error ? e.message : String(e); }
  function say(text, failed) { status.textContent = text; status.className = failed ? 'fail' : ''; }
  function bytes(b64) {
    if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(b64);
    var s = atob(b64), u = new Uint8Array(s.length);
    for (var i = 0; i !== s.length; ++i) u[i] = s.charCodeAt(i);
    return u;
  }
  function overrides() {
    var set = {}, k;
    for (k in D.set) set[k] = D.set[k];
    controls.forEach(function (c) {
      if (c.value === c.getAttribute('data-initial')) return;
      var unit = c.getAttribute('data-unit');
      set[c.getAttribute('data-key')] = unit ? (c.value === '' ? '' : c.value + ' ' + unit) : c.value;
    });
    return set;
  }
  function engine_run(set, runs) {
    var text = run(D.plan, JSON.stringify({ file: D.file, set: set, sweep: D.sweep, view: 'html', runs: runs || 'kept' }));
    if (text.charAt(0) !== '{') return { page: text };
    var e = JSON.parse(text);
    return { error: e.error + (e.hint ? ' (' + e.hint + ')' : '') };
  }
  function changed_values(report) {
    var keys = {};
    each(report, function (e) {
      var k = e.getAttribute('data-line');
      var differs = written[k] !== e.textContent;
      e.classList.toggle('changed', differs);
      if (differs) {
        keys[k] = true;
        e.title = k in written ? 'as written: ' + written[k] : 'not in the page as written';
      }
    });
    return Object.keys(keys).length;
  }
  // Brings the page's report to the engine's, changing only the nodes and attributes that differ (a chart that differs
  // is replaced whole): a move changes some values and charts, and the browser then lays out and paints those instead
  // of a whole new report.
  function morph(live, fresh) {
    if (live.nodeType !== fresh.nodeType || live.nodeName !== fresh.nodeName) {
      live.parentNode.replaceChild(document.importNode(fresh, true), live);
      return;
    }
    if (live.nodeType !== 1) {
      if (live.nodeValue !== fresh.nodeValue) live.nodeValue = fresh.nodeValue;
      return;
    }
    if (live.isEqualNode(fresh)) return;  // the browser's own comparison passes over what did not change
    // A chart that changed changes nearly everywhere: one new subtree costs less than its attributes one by one.
    if (live.nodeName === 'svg') {
      live.parentNode.replaceChild(document.importNode(fresh, true), live);
      return;
    }
    var i, a, kept = live.attributes, wanted = fresh.attributes;
    for (i = kept.length - 1; i !== -1; --i) {
      a = kept[i];
      if (!fresh.hasAttributeNS(a.namespaceURI, a.localName)) live.removeAttributeNS(a.namespaceURI, a.localName);
    }
    for (i = 0; i !== wanted.length; ++i) {
      a = wanted[i];
      if (live.getAttributeNS(a.namespaceURI, a.localName) !== a.value) live.setAttributeNS(a.namespaceURI, a.name, a.value);
    }
    var l = live.firstChild, f = fresh.firstChild, next;
    while (f) {
      next = f.nextSibling;
      if (l) {
        var after = l.nextSibling;
        morph(l, f);
        l = after;
      } else {
        live.appendChild(document.importNode(f, true));
      }
      f = next;
    }
    while (l) {
      next = l.nextSibling;
      live.removeChild(l);
      l = next;
    }
  }
  function rerun() {
    var t0 = performance.now(), set = overrides(), t1 = t0;
    try {
      var r = engine_run(set);
      t1 = performance.now();
      if (r.error) {
        say(r.error, true);
      } else {
        var fresh = new DOMParser().parseFromString(r.page, 'text/html').getElementById('report');
        var n = changed_values(fresh);
        morph(document.getElementById('report'), fresh);
        var failed = document.getElementById('failed-steps');
        if (failed) say('A step of the plan failed with these values (the report says which; its values show as \u2014): ' +
                        failed.textContent.trim(), true);
        else say(n === 0 ? 'No value differs from the plan as written.' : n + (n === 1 ? ' value differs' : ' values differ') +
                 ' from the plan as written (marked; hover for the written value).', false);
      }
    } catch (e) {
      say('The engine failed: ' + message(e), true);
    }
    section.setAttribute('data-overrides', JSON.stringify(set));
    section.setAttribute('data-engine-ms', (t1 - t0).toFixed(1));
    section.setAttribute('data-redraw-ms', (performance.now() - t0).toFixed(1));
  }
  function ready(engine) {
    run = engine.cwrap('infracalc_run_plan', 'string', ['string', 'string']);
    var base = engine_run(D.set), differ = 0;
    if (base.page) {
      each(new DOMParser().parseFromString(base.page, 'text/html').getElementById('report'), function (e) {
        if (written[e.getAttribute('data-line')] !== e.textContent) ++differ;
      });
    }
    controls.forEach(function (c) { c.addEventListener('change', rerun); });
    document.getElementById('wi-reset').addEventListener('click', function () {
      controls.forEach(function (c) { c.value = c.getAttribute('data-initial'); });
      rerun();
    });
    fields.disabled = false;
    document.getElementById('wi-reset').disabled = false;
    if (base.error) say('The engine refuses the plan as written: ' + base.error, true);
    else if (differ !== 0) say('The engine gives ' + differ + ' values other than this page: it was built from other sources ' +
                                'than the infracalc that wrote the page (run make web, then write the page again).', true);
    else say('Ready: change a value to run the plan again in this page.', false);
    document.body.dataset.ready = '1';
    // The browser first runs WebAssembly through its baseline compiler and compiles the code that runs often again,
    // optimised, in the background: the run above used the first, and the first changes would take two to four times
    // as long as later ones. Three more runs of every step while the page is idle, their results dropped, warm the
    // engine (measured: a capacity-search move costs about as much as a warm one from the third run on).
    var warmups = 3;
    (function warm() {
      (window.requestIdleCallback || window.setTimeout)(function () {
        try { engine_run(D.set, 'fresh'); } catch (e) { /* a failing plan says so when it is changed */ }
        if (--warmups !== 0) warm();
        else section.setAttribute('data-warm', '1');
      });
    })();
  }
  try {
    if (typeof DecompressionStream !== 'function') throw new Error('this browser cannot unpack it (no DecompressionStream)');
    var text = function (b64) { return new TextDecoder().decode(bytes(b64)); };
    window.createInfracalcEngine = (0, eval)(text(D.js) + '\n;createInfracalcEngine');
    var load = (0, eval)(text(D.loader) + '\n;loadInfracalcEngine');
    load('infracalc-engine-wasm', { print: function () {}, printErr: function () {} }).then(ready).catch(function (e) {
      say('The engine did not load: ' + message(e), true);
    });
  } catch (e) {
    say('The engine did not load: ' + message(e), true);
  }
})();
)js";

std::string base64(std::string_view bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<unsigned char>(bytes[i + k]) : 0U);
    for (std::size_t k = 0; k < 4; ++k) out += k <= n ? kDigits[(v >> (18 - 6 * k)) & 63U] : '=';
  }
  return out;
}

// A JSON string that is safe inside a script element of a page that is also XML: no <, > or & as themselves.
std::string script_json_string(std::string_view text) {
  std::string json;
  append_json_string(json, text);
  std::string out;
  for (char c : json) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

// The keys a sweep sets (its axes, every [[variant]]): the page shows its first point, where they are the sweep's.
bool swept(const PlanSpec& spec, const WhatIf& what_if, const std::string& path) {
  for (const auto& ax : spec.sweeps)
    if (const KeyDef* k = find_key(ax.key, spec.mode()); k != nullptr && k->path() == path) return true;
  for (const auto& ax : what_if.sweeps)
    if (const KeyDef* k = find_key(ax.substr(0, ax.find('=')), spec.mode()); k != nullptr && k->path() == path) return true;
  for (const auto& v : spec.variants)
    for (const auto& [key, value] : v.sets)
      if (const KeyDef* k = find_key(key, spec.mode()); k != nullptr && k->path() == path) return true;
  return false;
}

// A number for an input's value attribute: twelve significant digits (the shown value, not the last bits of a
// unit conversion).
std::string control_number(double v) { return fmt::format("{:.12g}", v); }

// One control of the panel: the key's value as the worksheet has it, in its display unit where the key is a
// quantity (a number input with the key's bounds, when the number and unit read back as the same value), a select
// for a choice or a catalog id (the ids the catalog has of its kinds), text otherwise.
std::string control(const Worksheet& w, const KeyDef& key, const SpecValue& given) {
  const std::string path = key.path();
  std::string id = "wi-" + path;
  for (char& c : id)
    if (c == '.') c = '-';
  const int i = w.program.find(path);
  const std::optional<Cell>* value = i >= 0 ? &w.sheet.values[static_cast<std::size_t>(i)] : nullptr;
  const Quantity* q = value != nullptr && *value ? std::get_if<Quantity>(&**value) : nullptr;
  const std::string* text = value != nullptr && *value ? std::get_if<std::string>(&**value) : nullptr;
  const std::string shown = text != nullptr ? *text : given.text;
  std::string out = "<label for=\"" + h(id) + "\" title=\"" + h(key.help) + "\">" + h(path) + "</label>\n";
  const std::string common = "id=\"" + h(id) + "\" name=\"" + h(path) + "\" data-key=\"" + h(path) + "\"";

  if (key.kind == KeyKind::choice || key.kind == KeyKind::id) {
    std::vector<std::string> ids;
    std::vector<std::string_view> options = key.choices;
    if (key.kind == KeyKind::id) {
      ids = catalog_ids(key);
      options.assign(ids.begin(), ids.end());
    }
    options.insert(options.end(), key.more_choices.begin(), key.more_choices.end());
    if (key.auto_ok) options.emplace_back("auto");
    options.emplace_back(shown);
    // Each once, in the order the key lists them.
    for (std::size_t k = options.size(); k-- > 1;)
      if (std::find(options.begin(), options.begin() + static_cast<std::ptrdiff_t>(k), options[k]) != options.begin() + static_cast<std::ptrdiff_t>(k))
        options.erase(options.begin() + static_cast<std::ptrdiff_t>(k));
    out += "<select " + common + " data-initial=\"" + h(shown) + "\">";
    for (const auto o : options)
      out += "<option" + std::string(o == shown ? " selected=\"selected\"" : "") + ">" + h(o) + "</option>";
    return out + "</select>\n<span></span>\n";
  }
  if (q != nullptr && (key.kind == KeyKind::quantity || key.kind == KeyKind::integer)) {
    const Line& line = w.program.lines[static_cast<std::size_t>(i)];
    std::string unit = key.kind == KeyKind::integer ? std::string() : display_unit(line, *q);
    // A share reads as the plan writes it, in percent.
    const bool share = key.bound == Bound::fraction || key.bound == Bound::fraction0 || key.bound == Bound::open_fraction ||
                       (!given.text.empty() && given.text.back() == '%');
    if (unit.empty() && key.kind == KeyKind::quantity && q->dim == dims::none && share) unit = "%";
    const auto [factor, offset] = unit_factor(unit);
    const std::string number = control_number((q->value - offset) / factor);
    const auto back = parse_value(key, unit.empty() ? number : number + " " + unit, path);
    const Quantity* read = back ? std::get_if<Quantity>(&*back) : nullptr;
    if (read != nullptr && std::abs(read->value - q->value) <= 1e-9 * std::abs(q->value)) {
      std::string bounds;
      const std::string zero = control_number((0 - offset) / factor);
      switch (key.bound) {
        case Bound::any: break;
        case Bound::positive: bounds = " min=\"" + (key.kind == KeyKind::integer ? std::string("1") : zero) + "\""; break;
        case Bound::non_negative: bounds = " min=\"" + zero + "\""; break;
        case Bound::fraction:
        case Bound::fraction0:
        case Bound::open_fraction: bounds = " min=\"" + zero + "\" max=\"" + control_number((1 - offset) / factor) + "\""; break;
      }
      out += "<input type=\"number\" " + common + " data-unit=\"" + h(unit) + "\" data-initial=\"" + number + "\" value=\"" + number +
             "\" step=\"" + (key.kind == KeyKind::integer ? "1" : "any") + "\"" + bounds + "/>\n";
      return out + "<span class=\"unit\">" + h(unit) + "</span>\n";
    }
  }
  out += "<input type=\"text\" " + common + " data-initial=\"" + h(shown) + "\" value=\"" + h(shown) + "\"/>\n";
  return out + "<span class=\"unit\"></span>\n";
}

// The panel, its data (the plan, its overrides and the engine, base64) and its code.
std::string what_if_panel(const Worksheet& w, const WhatIf& what_if) {
  std::string out =
      "<section id=\"what-if\">\n<h2>What if</h2>\n<p id=\"wi-status\" role=\"status\">This panel runs the plan again in the page with "
      "the values below, through infracalc's engine compiled to WebAssembly (it needs script); the report below is the plan as "
      "written.</p>\n<fieldset id=\"wi-fields\" disabled=\"disabled\">\n";
  for (const auto& [path, given] : w.spec.values) {
    const KeyDef* key = find_key(path, w.program.mode);
    if (key == nullptr || key->section == "plan" || path == "workload.type" || key->kind == KeyKind::text || swept(w.spec, what_if, path))
      continue;
    out += control(w, *key, given);
  }
  out += "</fieldset>\n<p><button type=\"button\" id=\"wi-reset\" disabled=\"disabled\">Back to the plan as written</button></p>\n</section>\n";
  return out;
}

std::string what_if_script(const Worksheet& w, const WhatIf& what_if) {
  std::string data = "window.infracalcWhatIf = {\"file\": " + script_json_string(w.spec.file) + ", \"plan\": " + script_json_string(what_if.plan_text) +
                     ", \"set\": {";
  for (std::size_t k = 0; k < what_if.sets.size(); ++k) {
    const std::string& s = what_if.sets[k];
    const auto eq = s.find('=');
    data += (k == 0 ? "" : ", ") + script_json_string(s.substr(0, eq)) + ": " + script_json_string(eq == std::string::npos ? "" : s.substr(eq + 1));
  }
  data += "}, \"sweep\": [";
  for (std::size_t k = 0; k < what_if.sweeps.size(); ++k) data += (k == 0 ? "" : ", ") + script_json_string(what_if.sweeps[k]);
  data += "], \"js\": \"" + base64(what_if.engine_js) + "\", \"loader\": \"" + base64(what_if.engine_loader) + "\"};\n";
  // The WebAssembly as the site carries it (web/site/engine_loader.js): text the HTML parser reads, not the script's.
  return "<script type=\"application/gzip\" id=\"infracalc-engine-wasm\">" + base64(what_if.engine_wasm_gz) + "</script>\n<script>\n" + data +
         std::string(kWhatIfScript) + "</script>\n";
}

}  // namespace

std::string render_html(const Worksheet& w, const FormatOptions& number, const WhatIf* what_if) {
  const std::string title = plan_title(w);
  const bool panel = what_if != nullptr && !what_if->engine_js.empty();
  std::string out = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" +
                    h(title) + "</title>\n<style>" + std::string(kStyle) + (panel ? std::string(kWhatIfStyle) : std::string()) +
                    "</style>\n</head>\n<body>\n<h1>" + h(title) + "</h1>\n";
  if (const SpecValue* d = w.spec.get("plan.description")) out += "<p>" + h(d->text) + "</p>\n";
  if (panel) out += what_if_panel(w, *what_if);
  else if (what_if != nullptr)
    out += "<p>The what-if panel, which runs this plan again in the page with other values, needs the WebAssembly engine: run "
           "<code>make web</code>, then write the page again.</p>\n";
  out += "<div id=\"report\">\n<p>A " + h(w.program.mode) + " plan" + (w.spec.file.empty() ? "" : " (<code>" + h(w.spec.file) + "</code>)") +
         ", computed by infracalc. Units: GB = 10<sup>9</sup> B, GiB = 2<sup>30</sup> B; a year is 365.25 days.</p>\n";
  // A sweep's page shows its first point even when a step failed there (other points may not have): it says so first.
  if (!w.sheet.errors.empty()) {
    out += "<h2>Failed steps</h2>\n<ul id=\"failed-steps\">\n";
    for (const auto& e : w.sheet.errors) out += "<li class=\"fail\">" + h(e) + "</li>\n";
    out += "</ul>\n<p>Every value that needs a failed step shows as —.</p>\n";
  }

  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> keys;
  for (int i : headline_lines(w)) {
    const Line& l = w.program.lines[static_cast<std::size_t>(i)];
    rows.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], number), l.label});
    keys.push_back(l.key);
  }
  out += "<h2>Summary</h2>\n" + table({"line", "value", "meaning"}, rows, keys);

  std::string checks;
  for (std::size_t c = 0; c < w.program.checks.size(); ++c) {
    const auto& verdict = w.sheet.checks[c];
    if (!verdict) continue;
    checks += "<li data-line=\"check." + h(w.program.checks[c].key) + "\"><span class=\"" + std::string(verdict->first ? "pass\">holds" : "fail\">fails") + "</span> <b>" + h(w.program.checks[c].key) +
              "</b> (" + h(w.program.checks[c].label) + "): " + h(verdict->second) + "</li>\n";
  }
  if (!checks.empty()) out += "<h2>Checks</h2>\n<ul>\n" + checks + "</ul>\n";

  const std::vector<std::string> charts = chart_svgs(w);
  if (!charts.empty()) {
    out += "<h2>Charts</h2>\n";
    for (const auto& svg : charts) out += "<figure>\n" + svg + "</figure>\n";
  }

  for (const auto& sheet : w.program.sheets) {
    const auto lines = shown_lines(w, sheet);
    if (lines.empty()) continue;
    rows.clear();
    keys.clear();
    for (int i : lines) {
      const Line& l = w.program.lines[static_cast<std::size_t>(i)];
      rows.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], number), line_how(w, i), l.label});
      keys.push_back(l.key);
    }
    out += "<h2>" + h(sheet_title(sheet)) + "</h2>\n" + table({"line", "value", "how", "meaning"}, rows, keys);
  }

  if (!w.sheet.crosses.empty()) {
    out += "<h2>Cross-checks</h2>\n<p>Lines computed by the worksheet's own arithmetic, compared with the plugin that owns the formula:</p>\n<ul>\n";
    for (const auto& x : w.sheet.crosses) {
      const Step& s = w.program.steps[static_cast<std::size_t>(x.step)];
      out += "<li>" + h(w.program.lines[static_cast<std::size_t>(x.line)].key) + " against <code>" + h(s.plugin + " " + s.calculator) + "</code> " +
             h(x.output) + ": " + (x.ok ? "<span class=\"pass\">equal</span>" : "<span class=\"fail\">different</span>") + "</li>\n";
    }
    out += "</ul>\n";
  }
  const auto notes = all_notes(w);
  if (!notes.empty()) {
    out += "<h2>Notes</h2>\n<ul>\n";
    for (const auto& n : notes) out += "<li>" + h(n) + "</li>\n";
    out += "</ul>\n";
  }
  const auto sources = all_sources(w);
  if (!sources.empty()) {
    rows.clear();
    for (const auto& p : sources) rows.push_back({p.id + "." + p.field, p.as_of, p.basis, p.source + (p.note.empty() ? "" : " (" + p.note + ")")});
    out += "<h2>Sources</h2>\n" + table({"value", "as of", "basis", "source"}, rows);
  }
  out += "</div>\n<!-- end of report -->\n";
  if (panel) out += what_if_script(w, *what_if);
  return out + "</body>\n</html>\n";
}

}  // namespace infracalc::plan
