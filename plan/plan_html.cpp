#include "plan/plan_html.hpp"

#include "plan/plan_svg.hpp"
#include "plan/svg.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

// Text in an element or an attribute: the SVG writer's escaper, which handles &, <, > and ".
std::string h(std::string_view text) { return svg::esc(std::string(text)); }

std::string table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table>\n<thead><tr>";
  for (const auto& c : head) out += "<th>" + h(c) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  for (const auto& r : rows) {
    out += "<tr>";
    for (std::size_t i = 0; i < r.size(); ++i) out += (i == 1 ? "<td class=\"num\">" : "<td>") + h(r[i]) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// Print on A4 or Letter: tables do not break inside a row, charts keep to the page width, headings stay with
// what follows them.
constexpr std::string_view kStyle =
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em;color:#222;line-height:1.35}"
    "table{border-collapse:collapse;margin:0.5em 0 1.5em;font-size:0.9em}"
    "th,td{border-bottom:1px solid #ddd;padding:0.25em 0.6em;text-align:left;vertical-align:top}"
    "td.num{text-align:right;white-space:nowrap}th{background:#f3f3f3}"
    ".fail{color:#b00020;font-weight:bold}.pass{color:#1b5e20}"
    "figure{margin:1em 0}svg{max-width:100%;height:auto}"
    "@media print{body{margin:0;max-width:none}h2{break-after:avoid}tr,figure{break-inside:avoid}}";

}  // namespace

std::string render_html(const Worksheet& w, const FormatOptions& number) {
  const std::string title = plan_title(w);
  std::string out = "<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" +
                    h(title) + "</title>\n<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n<h1>" + h(title) + "</h1>\n";
  if (const SpecValue* d = w.spec.get("plan.description")) out += "<p>" + h(d->text) + "</p>\n";
  out += "<p>A " + h(w.program.mode) + " plan" + (w.spec.file.empty() ? "" : " (<code>" + h(w.spec.file) + "</code>)") +
         ", computed by infracalc. Units: GB = 10<sup>9</sup> B, GiB = 2<sup>30</sup> B; a year is 365.25 days.</p>\n";

  std::vector<std::vector<std::string>> rows;
  for (int i : headline_lines(w)) {
    const Line& l = w.program.lines[static_cast<std::size_t>(i)];
    rows.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], number), l.label});
  }
  out += "<h2>Summary</h2>\n" + table({"line", "value", "meaning"}, rows);

  std::string checks;
  for (std::size_t c = 0; c < w.program.checks.size(); ++c) {
    const auto& verdict = w.sheet.checks[c];
    if (!verdict) continue;
    checks += "<li><span class=\"" + std::string(verdict->first ? "pass\">holds" : "fail\">fails") + "</span> <b>" + h(w.program.checks[c].key) +
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
    for (int i : lines) {
      const Line& l = w.program.lines[static_cast<std::size_t>(i)];
      rows.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], number), line_how(w, i), l.label});
    }
    out += "<h2>" + h(sheet_title(sheet)) + "</h2>\n" + table({"line", "value", "how", "meaning"}, rows);
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
  return out + "</body>\n</html>\n";
}

}  // namespace infracalc::plan
