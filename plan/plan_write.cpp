// The worksheet as a document (plan/document.hpp): its lines, checks, cross-checks, steps with their calculators'
// results, notes and sources for programs; its summary and sheets for people. The document's writers give the text,
// JSON, CSV and Markdown.
#include "plan/document.hpp"
#include "plan/plan_output.hpp"
#include "units/format.hpp"

namespace infracalc::plan {

namespace {

using writers::Field;
using writers::Member;
using writers::Record;
using writers::Section;
using writers::SectionKind;

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

// What a worksheet's document views: it is built whole before any section takes a view of it.
struct PlanParts {
  std::vector<Field> lines;
  std::vector<Field> summary;
  std::vector<std::pair<std::string, std::vector<Field>>> sheets;
  std::vector<Verdict> checks;
  std::vector<Verdict> crossed;
  std::vector<Record> cross_records;
  std::vector<writers::Document> results;
  std::vector<Record> steps;
  std::vector<std::string> notes;
  std::vector<Provenance> sources;
  writers::Document doc;
};

// Each line as programs read it: every line but an input without a value.
std::vector<Field> line_fields(const Worksheet& w) {
  std::vector<Field> out;
  for (std::size_t i = 0; i < w.program.lines.size(); ++i) {
    const Line& l = w.program.lines[i];
    const auto& v = w.sheet.values[i];
    if (!v && l.kind == LineKind::input) continue;
    Field f{.key = l.key, .value = v};
    f.members = {{"sheet", l.sheet}, {"kind", std::string(kind_name(l.kind))}, {"how", line_how(w, static_cast<int>(i))}, {"label", l.label}};
    if (l.kind == LineKind::expression) f.members.push_back({"formula", l.formula});
    if (l.kind == LineKind::step) {
      const Step& s = w.program.steps[static_cast<std::size_t>(l.step)];
      f.members.push_back({"plugin", s.plugin + " " + s.calculator});
      f.members.push_back({"step", s.key});
      f.members.push_back({"output", l.output});
    }
    if (!v && !w.sheet.why[i].empty()) f.members.push_back({"missing", w.sheet.why[i]});
    if (!w.sheet.cites[i].empty()) f.members.push_back({"sources", w.sheet.cites[i]});
    out.push_back(std::move(f));
  }
  return out;
}

// Each step: what ran it and why, and the calculator's result as its own document.
void step_records(const Worksheet& w, PlanParts& p) {
  p.results.reserve(w.program.steps.size());
  for (std::size_t s = 0; s < w.program.steps.size(); ++s) {
    const Step& st = w.program.steps[s];
    Record r{.key = st.key};
    r.members = {{"plugin", st.plugin}, {"calculator", st.calculator}, {"purpose", st.purpose}, {"cross_check", st.cross_check}};
    const auto& run = w.sheet.runs[s];
    if (!run) {
      r.members.push_back({"status", std::string("skipped")});
      r.members.push_back({"reason", w.sheet.skipped[s]});
    } else if (run->error) {
      r.members.push_back({"status", std::string("failed")});
      r.members.push_back({"error", run->error->message});
      r.members.push_back({"hint", run->error->hint});
    } else {
      r.members.push_back({"status", std::string("ran")});
      r.nested_key = "result";
      r.nested = &p.results.emplace_back(writers::result_document(*run->result));
    }
    p.steps.push_back(std::move(r));
  }
}

void cross_checks(const Worksheet& w, PlanParts& p) {
  for (const auto& x : w.sheet.crosses) {
    const Step& s = w.program.steps[static_cast<std::size_t>(x.step)];
    const std::string& line = w.program.lines[static_cast<std::size_t>(x.line)].key;
    p.cross_records.push_back({.members = {{"line", line}, {"step", s.key}, {"output", x.output}, {"plugin_value", x.plugin.value},
                                           {"line_value", x.value.value}, {"ok", x.ok}}});
    p.crossed.push_back({line, x.ok, (x.ok ? "equal to " : "different from ") + s.plugin + " " + s.calculator + " " + x.output +
                                          (x.ok ? "" : " (" + machine_text(x.plugin) + ")")});
  }
}

// The summary and the sheets, as people read them.
void human_fields(const Worksheet& w, const FormatOptions& nf, PlanParts& p) {
  for (int i : headline_lines(w)) {
    const Line& l = w.program.lines[static_cast<std::size_t>(i)];
    p.summary.push_back({.key = l.key, .shown = show_value(l, w.sheet.values[static_cast<std::size_t>(i)], nf), .columns = {l.label}});
  }
  for (const auto& sheet : w.program.sheets) {
    std::vector<Field> rows;
    for (int i : shown_lines(w, sheet)) {
      const Line& l = w.program.lines[static_cast<std::size_t>(i)];
      rows.push_back({.key = l.key, .shown = show_value(l, w.sheet.values[static_cast<std::size_t>(i)], nf), .columns = {line_how(w, i), l.label}});
    }
    if (!rows.empty()) p.sheets.emplace_back(sheet_title(sheet), std::move(rows));
  }
}

void build(const Worksheet& w, const FormatOptions& nf, PlanParts& p) {
  p.lines = line_fields(w);
  human_fields(w, nf, p);
  for (std::size_t c = 0; c < w.program.checks.size(); ++c)
    if (w.sheet.checks[c]) p.checks.push_back({w.program.checks[c].key, w.sheet.checks[c]->first, w.sheet.checks[c]->second});
  cross_checks(w, p);
  step_records(w, p);
  p.notes = all_notes(w);
  p.sources = all_sources(w);

  writers::Document& d = p.doc;
  d.title = plan_title(w);
  d.subtitle = "(" + w.program.mode + " plan" + (w.spec.file.empty() ? "" : ", " + w.spec.file) + ")";
  if (const SpecValue* desc = w.spec.get("plan.description")) d.about.push_back(desc->text);
  d.about.push_back("A " + w.program.mode + " plan" + (w.spec.file.empty() ? "" : " (`" + w.spec.file + "`)") +
                    ", computed by infracalc. Units: GB = 10^9 B, GiB = 2^30 B; a year is 365.25 days.");
  d.head = {{"schema_version", std::int64_t{1}}, {"kind", std::string("plan")}, {"name", d.title}, {"file", w.spec.file}, {"workload", w.program.mode}};

  Section lines{.kind = SectionKind::fields, .key = "lines", .human = false, .csv_members = {"sheet", "kind", "how"}};
  lines.fields = p.lines;
  Section summary{.kind = SectionKind::fields, .key = "summary", .title = "summary", .json = false, .csv = false, .widest = 44,
                  .head = {"line", "value", "meaning"}};
  summary.fields = p.summary;
  Section checks{.kind = SectionKind::verdicts, .key = "checks", .title = "checks"};
  checks.verdicts = p.checks;
  d.sections = {lines, summary, checks};
  for (const auto& [title, rows] : p.sheets) {
    Section sheet{.kind = SectionKind::fields, .key = "sheet", .title = title, .json = false, .csv = false, .widest = 44, .terminal_columns = 1,
                  .head = {"line", "value", "how", "meaning"}};
    sheet.fields = rows;
    d.sections.push_back(std::move(sheet));
  }
  Section crossed{.kind = SectionKind::verdicts, .key = "cross_checks", .title = "cross-checks", .json = false, .csv = false};
  crossed.verdicts = p.crossed;
  Section cross_records{.kind = SectionKind::records, .key = "cross_checks", .human = false, .csv = false};
  cross_records.records = p.cross_records;
  Section steps{.kind = SectionKind::records, .key = "steps", .human = false, .csv = false, .keyed = true};
  steps.records = p.steps;
  Section notes{.kind = SectionKind::notes, .key = "notes", .title = "notes"};
  notes.notes = p.notes;
  Section errors{.kind = SectionKind::notes, .key = "errors", .human = false};
  errors.notes = w.sheet.errors;
  Section sources{.kind = SectionKind::sources, .key = "provenance", .title = "sources", .widest = 44};
  sources.sources = p.sources;
  for (auto* s : {&crossed, &cross_records, &steps, &notes, &errors, &sources}) d.sections.push_back(std::move(*s));
}

}  // namespace

std::string plan_json(const Worksheet& w) {
  PlanParts p;
  build(w, {}, p);
  std::string out;
  writers::write_json(out, p.doc);
  return out;
}

std::string render_plan(const Worksheet& w, const writers::OutputOptions& opt) {
  PlanParts p;
  build(w, opt.number, p);
  return writers::render(p.doc, opt);
}

}  // namespace infracalc::plan
