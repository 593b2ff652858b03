#include "plan/plan_output.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>

#include "units/format.hpp"
#include "units/parse.hpp"

namespace infracalc::plan {

namespace {

bool same_source(const Provenance& a, const Provenance& b) {
  return a.id == b.id && a.field == b.field && a.as_of == b.as_of && a.source == b.source;
}

void add_source(std::vector<Provenance>& out, const Provenance& p) {
  for (const auto& x : out)
    if (same_source(x, p)) return;
  out.push_back(p);
}

}  // namespace

std::string display_unit(const Line& line, const Quantity& q) {
  // A line's declared unit converts its value only when it measures the same thing (the workbook divides by
  // the unit's factor); one of another dimension would scale the value by a stray factor, so it is ignored.
  if (!line.unit.empty() && unit_fits(line.unit, q)) return line.unit;
  if (q.dim.dimensionless() && !q.point) return {};
  if (q.dim == dims::currency) return "$";
  const std::string s = format_human(q);
  std::string unit;
  if (!s.empty() && s[0] == '$') {
    std::size_t i = 1;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) != 0 || s[i] == '.' || s[i] == ',' || s[i] == '-' ||
                            s[i] == 'e'))
      ++i;
    unit = "$" + s.substr(i);
  } else if (const auto sp = s.find(' '); sp != std::string::npos) {
    unit = s.substr(sp + 1);
  }
  auto u = parse_unit(unit);
  if (!unit.empty() && u && u->dim == q.dim && u->point == q.point) return unit;
  return q.point ? "degC" : base_unit_string(q.dim);
}

bool unit_fits(const std::string& unit, const Quantity& q) {
  if (unit == "req/s") return q.dim == dims::frequency && !q.point;
  auto u = parse_unit(unit);
  return u && u->dim == q.dim && u->point == q.point;
}

std::pair<double, double> unit_factor(const std::string& unit) {
  if (unit.empty() || unit == "req/s") return {1.0, 0.0};
  auto u = parse_unit(unit);
  if (!u) return {1.0, 0.0};
  return {u->factor, u->offset};
}

std::string show_value(const Line& line, const std::optional<Cell>& value, const FormatOptions& opt) {
  if (!value) return "\u2014";
  if (const auto* s = std::get_if<std::string>(&*value)) return *s;
  const Quantity& q = std::get<Quantity>(*value);
  if (line.unit == "req/s") return format_number(q.value, opt.digits) + " req/s";
  return format_human(q, opt, line.unit);
}

std::string line_how(const Worksheet& w, int i) {
  const Line& l = w.program.lines[static_cast<std::size_t>(i)];
  const auto ui = static_cast<std::size_t>(i);
  const bool has = w.sheet.values[ui].has_value();
  switch (l.kind) {
    case LineKind::input:
      if (!has) return "not given";
      return w.sheet.why[ui] == "default" ? "default" : "given (" + w.sheet.why[ui] + ")";
    case LineKind::catalog: {
      const auto& id = w.sheet.values[static_cast<std::size_t>(l.id_line)];
      const std::string entry = id && std::holds_alternative<std::string>(*id) ? std::get<std::string>(*id) : "?";
      if (!has) return w.sheet.why[ui];
      std::string out = "catalog " + entry + "." + l.field;
      if (!w.sheet.cites[ui].empty() && !w.sheet.cites[ui].front().as_of.empty()) out += " (as of " + w.sheet.cites[ui].front().as_of + ")";
      return out;
    }
    case LineKind::step: {
      const Step& s = w.program.steps[static_cast<std::size_t>(l.step)];
      std::string out = s.plugin + " " + s.calculator;
      if (s.key != s.calculator) out += " [" + s.key + "]";
      return has ? out : out + ": " + w.sheet.why[ui];
    }
    case LineKind::expression:
      return has ? "= " + l.formula : "= " + l.formula + "  (" + w.sheet.why[ui] + ")";
    case LineKind::choice: {
      const int c = w.sheet.chosen[ui];
      if (c >= 0) return "= @" + w.program.lines[static_cast<std::size_t>(c)].key;
      return has ? "default " + l.fallback : w.sheet.why[ui];
    }
    case LineKind::rule:
      return has ? "rule: " + l.formula : "rule: " + l.formula + "  (" + w.sheet.why[ui] + ")";
  }
  return {};
}

std::string sheet_title(const std::string& sheet) {
  static const std::pair<const char*, const char*> titles[] = {
      {"inputs", "Inputs"},     {"model", "Model"},          {"memory", "Memory per device"},
      {"kv", "KV cache"},       {"decode", "Decode"},        {"serve", "Serving"},
      {"fleet", "Fleet"},       {"network", "Network"},      {"power", "Power and energy"},
      {"cooling", "Cooling"},   {"tco", "Cost of ownership"}, {"cost", "Cost per token"},
      {"compute", "Training compute"}, {"finetune", "Fine-tuning"}, {"lines", "Your lines"}};
  for (const auto& [k, t] : titles)
    if (sheet == k) return t;
  return sheet;
}

std::vector<Provenance> all_sources(const Worksheet& w) {
  std::vector<Provenance> out;
  for (const auto& cites : w.sheet.cites)
    for (const auto& p : cites) add_source(out, p);
  for (const auto& run : w.sheet.runs)
    if (run && run->result)
      for (const auto& p : run->result->provenance) add_source(out, p);
  return out;
}

std::vector<std::string> all_notes(const Worksheet& w) {
  std::vector<std::string> out = w.program.notes;
  std::vector<std::string> seen;
  for (std::size_t s = 0; s < w.program.steps.size(); ++s) {
    const auto& run = w.sheet.runs[s];
    const Step& step = w.program.steps[s];
    if (!run || !run->result || step.cross_check || step.quiet) continue;
    for (const auto& n : run->result->notes) {
      if (std::find(seen.begin(), seen.end(), n) != seen.end()) continue;
      if (std::any_of(step.nominal_notes.begin(), step.nominal_notes.end(), [&](const std::string& p) { return n.starts_with(p); }))
        continue;
      seen.push_back(n);
      out.push_back(step.key + " (" + step.plugin + " " + step.calculator + "): " + n);
    }
  }
  return out;
}

std::string plan_title(const Worksheet& w) {
  const int i = w.program.find("name");
  if (i >= 0 && w.sheet.values[static_cast<std::size_t>(i)]) return cell_text(*w.sheet.values[static_cast<std::size_t>(i)]);
  return w.spec.file.empty() ? "plan" : w.spec.file;
}

std::vector<int> shown_lines(const Worksheet& w, const std::string& sheet) {
  std::vector<int> out;
  for (std::size_t i = 0; i < w.program.lines.size(); ++i) {
    const Line& l = w.program.lines[i];
    if (l.sheet != sheet) continue;
    const bool has = w.sheet.values[i].has_value();
    if (!has && (l.kind == LineKind::input || l.kind == LineKind::catalog || l.kind == LineKind::choice)) continue;
    out.push_back(static_cast<int>(i));
  }
  return out;
}

std::vector<int> headline_lines(const Worksheet& w) {
  std::vector<int> out;
  for (std::size_t i = 0; i < w.program.lines.size(); ++i)
    if (w.program.lines[i].headline) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace infracalc::plan
