// The worksheet as a human table, JSON, CSV and a Markdown report.
#include <algorithm>
#include <fmt/format.h>

#include "plan/machine_units.hpp"
#include "plan/plan_output.hpp"
#include "plan/text_table.hpp"
#include "documents/json.hpp"
#include "units/format.hpp"
#include "units/printable.hpp"

namespace infracalc::plan {

namespace {

// Aligned rows; a long label or formula runs past its column rather than widening every line.
std::string columns(std::vector<std::vector<std::string>> rows, const std::string& indent) {
  return writers::aligned_rows(std::move(rows), {.indent = indent, .widest = 44});
}

const char* kind_name(LineKind k) {
  switch (k) {
    case LineKind::input: return "input";
    case LineKind::catalog: return "catalog";
    case LineKind::step: return "plugin";
    case LineKind::expression: return "expression";
    case LineKind::choice: return "choice";
    case LineKind::rule: return "rule";
  }
  return "input";
}

std::string check_text(const Worksheet& w, std::size_t c) {
  const auto& v = w.sheet.checks[c];
  return std::string(v->first ? "yes" : "NO") + "  " + v->second;
}

std::string render_table(const Worksheet& w, const writers::OutputOptions& opt) {
  const FormatOptions& nf = opt.number;
  std::string out = writers::bold(plan_title(w), opt.color) + printable("  (" + w.program.mode + " plan" + (w.spec.file.empty() ? "" : ", " + w.spec.file) + ")", Keep::text) + "\n";
  out += "\n" + writers::bold("summary", opt.color) + "\n";
  std::vector<std::vector<std::string>> rows;
  for (int i : headline_lines(w)) {
    const Line& l = w.program.lines[static_cast<std::size_t>(i)];
    rows.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], nf), l.label});
  }
  out += columns(rows, "  ");
  bool any_check = false;
  for (std::size_t c = 0; c < w.program.checks.size(); ++c) {
    if (!w.sheet.checks[c]) continue;
    if (!any_check) out += "\n" + writers::bold("checks", opt.color) + "\n";
    any_check = true;
    out += "  " + printable(w.program.checks[c].key + ": " + check_text(w, c), Keep::text) + "\n";
  }
  for (const auto& sheet : w.program.sheets) {
    const auto lines = shown_lines(w, sheet);
    if (lines.empty()) continue;
    out += "\n" + writers::bold(sheet_title(sheet), opt.color) + "\n";
    rows.clear();
    for (int i : lines) {
      const Line& l = w.program.lines[static_cast<std::size_t>(i)];
      rows.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], nf), line_how(w, i)});
    }
    out += columns(rows, "  ");
  }
  if (!w.sheet.crosses.empty()) {
    out += "\n" + writers::bold("cross-checks", opt.color) + "\n";
    for (const auto& x : w.sheet.crosses) {
      const Step& s = w.program.steps[static_cast<std::size_t>(x.step)];
      out += "  " + printable(w.program.lines[static_cast<std::size_t>(x.line)].key + " = " + s.plugin + " " + s.calculator + " " + x.output + ": " +
                                  (x.ok ? "equal" : "DIFFERENT (" + machine_text(x.plugin) + ")"), Keep::text) + "\n";
    }
  }
  const auto notes = all_notes(w);
  if (!notes.empty()) {
    out += "\n" + writers::bold("notes", opt.color) + "\n";
    for (const auto& n : notes) out += "  - " + printable(n, Keep::text) + "\n";
  }
  const auto sources = all_sources(w);
  if (!sources.empty()) {
    out += "\n" + writers::bold("sources", opt.color) + "\n";
    rows.clear();
    for (const auto& p : sources)
      rows.push_back({p.id + "." + p.field, p.as_of, (p.basis.empty() ? "" : "[" + p.basis + "] ") + p.source + (p.overlay ? " (overlay)" : "")});
    out += columns(rows, "  ");
  }
  return out;
}

std::string render_csv(const Worksheet& w) {
  std::string out = "sheet,key,value,unit,kind,how\n";
  for (std::size_t i = 0; i < w.program.lines.size(); ++i) {
    const Line& l = w.program.lines[i];
    const auto& v = w.sheet.values[i];
    if (!v && l.kind == LineKind::input) continue;
    std::string value, unit;
    if (v) {
      if (const auto* q = std::get_if<Quantity>(&*v)) {
        const writers::MachineQuantity m = writers::machine_quantity(l.key, *q);
        value = format_machine(m.value);
        unit = m.unit;
      } else {
        value = std::get<std::string>(*v);
      }
    }
    out += writers::csv_cell(l.sheet) + "," + writers::csv_cell(l.key) + "," + writers::csv_cell(value) + "," + writers::csv_cell(unit) + "," + kind_name(l.kind) + "," +
           writers::csv_cell(line_how(w, static_cast<int>(i))) + "\n";
  }
  for (std::size_t c = 0; c < w.program.checks.size(); ++c)
    if (w.sheet.checks[c])
      out += "checks," + writers::csv_cell(w.program.checks[c].key) + "," + (w.sheet.checks[c]->first ? "true" : "false") + ",,check," +
             writers::csv_cell(w.sheet.checks[c]->second) + "\n";
  return out;
}

std::string render_md(const Worksheet& w, const writers::OutputOptions& opt) {
  const FormatOptions& nf = opt.number;
  std::string out = "# " + writers::md_escape(plan_title(w)) + "\n\n";
  if (const SpecValue* d = w.spec.get("plan.description")) out += writers::md_escape(d->text) + "\n\n";
  out += "A " + w.program.mode + " plan" + (w.spec.file.empty() ? "" : " (`" + w.spec.file + "`)") +
         ", computed by infracalc. Units: GB = 10^9 B, GiB = 2^30 B; a year is 365.25 days.\n\n";
  std::vector<std::vector<std::string>> summary;
  for (int i : headline_lines(w)) {
    const Line& l = w.program.lines[static_cast<std::size_t>(i)];
    summary.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], nf), l.label});
  }
  out += "## Summary\n\n" + writers::md_table({"line", "value", "meaning"}, summary);
  bool any_check = false;
  for (std::size_t c = 0; c < w.program.checks.size(); ++c) {
    if (!w.sheet.checks[c]) continue;
    if (!any_check) out += "\n## Checks\n\n";
    any_check = true;
    out += "- **" + writers::md_escape(w.program.checks[c].key) + "** (" + writers::md_escape(w.program.checks[c].label) + "): " + writers::md_escape(check_text(w, c)) + "\n";
  }
  for (const auto& sheet : w.program.sheets) {
    const auto lines = shown_lines(w, sheet);
    if (lines.empty()) continue;
    std::vector<std::vector<std::string>> body;
    for (int i : lines) {
      const Line& l = w.program.lines[static_cast<std::size_t>(i)];
      body.push_back({l.key, show_value(l, w.sheet.values[static_cast<std::size_t>(i)], nf), line_how(w, i), l.label});
    }
    out += "\n## " + writers::md_escape(sheet_title(sheet)) + "\n\n" + writers::md_table({"line", "value", "how", "meaning"}, body);
  }
  if (!w.sheet.crosses.empty()) {
    out += "\n## Cross-checks\n\nLines computed by the worksheet's own arithmetic, compared with the plugin that owns the formula:\n\n";
    for (const auto& x : w.sheet.crosses) {
      const Step& s = w.program.steps[static_cast<std::size_t>(x.step)];
      out += "- " + writers::md_escape(w.program.lines[static_cast<std::size_t>(x.line)].key) + " against `" + s.plugin + " " + s.calculator + "` " +
             writers::md_escape(x.output) + ": " + (x.ok ? "equal" : "**different**") + "\n";
    }
  }
  const auto notes = all_notes(w);
  if (!notes.empty()) {
    out += "\n## Notes\n\n";
    for (const auto& n : notes) out += "- " + writers::md_escape(n) + "\n";
  }
  const auto sources = all_sources(w);
  if (!sources.empty()) {
    std::vector<std::vector<std::string>> body;
    for (const auto& p : sources) body.push_back({p.id + "." + p.field, p.as_of, p.basis, p.source + (p.note.empty() ? "" : " (" + p.note + ")")});
    out += "\n## Sources\n\n" + writers::md_table({"value", "as of", "basis", "source"}, body);
  }
  return out;
}

void append_cell(std::string& out, std::string_view key, const Cell& c) {
  if (const auto* q = std::get_if<Quantity>(&c)) {
    const writers::MachineQuantity m = writers::machine_quantity(key, *q);
    out += "\"value\": " + format_machine(m.value) + ", \"unit\": ";
    append_json_string(out, m.unit);
  } else {
    out += "\"value\": ";
    append_json_string(out, std::get<std::string>(c));
  }
}


}  // namespace

std::string plan_json(const Worksheet& w) {
  std::string out = "{\"schema_version\": 1, \"kind\": \"plan\", \"name\": ";
  append_json_string(out, plan_title(w));
  out += ", \"file\": ";
  append_json_string(out, w.spec.file);
  out += ", \"workload\": ";
  append_json_string(out, w.program.mode);
  out += ", \"lines\": {";
  bool first = true;
  for (std::size_t i = 0; i < w.program.lines.size(); ++i) {
    const Line& l = w.program.lines[i];
    const auto& v = w.sheet.values[i];
    if (!v && l.kind == LineKind::input) continue;
    out += first ? "" : ", ";
    first = false;
    append_json_string(out, l.key);
    out += ": {";
    if (v) append_cell(out, l.key, *v);
    else out += "\"value\": null";
    out += ", \"sheet\": ";
    append_json_string(out, l.sheet);
    out += ", \"kind\": ";
    append_json_string(out, kind_name(l.kind));
    out += ", \"how\": ";
    append_json_string(out, line_how(w, static_cast<int>(i)));
    out += ", \"label\": ";
    append_json_string(out, l.label);
    if (l.kind == LineKind::expression) {
      out += ", \"formula\": ";
      append_json_string(out, l.formula);
    }
    if (l.kind == LineKind::step) {
      const Step& s = w.program.steps[static_cast<std::size_t>(l.step)];
      out += ", \"plugin\": ";
      append_json_string(out, s.plugin + " " + s.calculator);
      out += ", \"step\": ";
      append_json_string(out, s.key);
      out += ", \"output\": ";
      append_json_string(out, l.output);
    }
    if (!v && !w.sheet.why[i].empty()) {
      out += ", \"missing\": ";
      append_json_string(out, w.sheet.why[i]);
    }
    if (!w.sheet.cites[i].empty()) {
      out += ", \"sources\": [";
      for (std::size_t k = 0; k < w.sheet.cites[i].size(); ++k) {
        out += k ? ", " : "";
        writers::append_provenance_json(out, w.sheet.cites[i][k]);
      }
      out += "]";
    }
    out += "}";
  }
  out += "}, \"checks\": {";
  first = true;
  for (std::size_t c = 0; c < w.program.checks.size(); ++c) {
    if (!w.sheet.checks[c]) continue;
    out += first ? "" : ", ";
    first = false;
    append_json_string(out, w.program.checks[c].key);
    out += std::string(": {\"ok\": ") + (w.sheet.checks[c]->first ? "true" : "false") + ", \"text\": ";
    append_json_string(out, w.sheet.checks[c]->second);
    out += "}";
  }
  out += "}, \"cross_checks\": [";
  for (std::size_t k = 0; k < w.sheet.crosses.size(); ++k) {
    const auto& x = w.sheet.crosses[k];
    out += k ? ", {\"line\": " : "{\"line\": ";
    append_json_string(out, w.program.lines[static_cast<std::size_t>(x.line)].key);
    out += ", \"step\": ";
    append_json_string(out, w.program.steps[static_cast<std::size_t>(x.step)].key);
    out += ", \"output\": ";
    append_json_string(out, x.output);
    out += ", \"plugin_value\": " + format_machine(x.plugin.value) + ", \"line_value\": " + format_machine(x.value.value) +
           ", \"ok\": " + (x.ok ? "true" : "false") + "}";
  }
  out += "], \"steps\": {";
  for (std::size_t s = 0; s < w.program.steps.size(); ++s) {
    const Step& st = w.program.steps[s];
    out += s ? ", " : "";
    append_json_string(out, st.key);
    out += ": {\"plugin\": ";
    append_json_string(out, st.plugin);
    out += ", \"calculator\": ";
    append_json_string(out, st.calculator);
    out += ", \"purpose\": ";
    append_json_string(out, st.purpose);
    out += ", \"cross_check\": ";
    out += st.cross_check ? "true" : "false";
    const auto& run = w.sheet.runs[s];
    if (!run) {
      out += ", \"status\": \"skipped\", \"reason\": ";
      append_json_string(out, w.sheet.skipped[s]);
    } else if (run->error) {
      out += ", \"status\": \"failed\", \"error\": ";
      append_json_string(out, run->error->message);
      out += ", \"hint\": ";
      append_json_string(out, run->error->hint);
    } else {
      out += ", \"status\": \"ran\", \"result\": " + writers::result_json(*run->result);
    }
    out += "}";
  }
  out += "}, \"notes\": [";
  const auto notes = all_notes(w);
  for (std::size_t k = 0; k < notes.size(); ++k) {
    out += k ? ", " : "";
    append_json_string(out, notes[k]);
  }
  out += "], \"errors\": [";
  for (std::size_t k = 0; k < w.sheet.errors.size(); ++k) {
    out += k ? ", " : "";
    append_json_string(out, w.sheet.errors[k]);
  }
  out += "], \"provenance\": [";
  const auto sources = all_sources(w);
  for (std::size_t k = 0; k < sources.size(); ++k) {
    out += k ? ", " : "";
    writers::append_provenance_json(out, sources[k]);
  }
  out += "]}";
  return out;
}

std::string render_plan(const Worksheet& w, const writers::OutputOptions& opt) {
  switch (opt.format) {
    case writers::OutputFormat::json: return plan_json(w) + "\n";
    case writers::OutputFormat::csv: return printable(render_csv(w), Keep::lines);
    case writers::OutputFormat::md: return printable(render_md(w, opt), Keep::lines);
    case writers::OutputFormat::table: break;
  }
  return render_table(w, opt);
}

}  // namespace infracalc::plan
