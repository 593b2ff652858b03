#include "cli/commands.hpp"
#include "units/expr.hpp"
#include "units/format.hpp"
#include "units/unit_table.hpp"

namespace infracalc::cli {

ExitStatus run_calc(const std::string& expression, const GlobalOptions& g) {
  auto r = evaluate(expression);
  if (!r) throw UserError{{"calc: " + r.error().message, r.error().hint}};
  Result res;
  res.plugin = "calc";
  res.calculator = "calc";
  res.inputs.push_back({"expression", Origin::flag, expression, expression, "", ""});
  res.values.push_back({"result", r->value, ""});
  std::string human;
  if (r->target) {
    human = format_in_unit(r->value, *r->target, g.out.number.digits);
    res.notes.push_back("converted to " + r->target->text + ": " + human);
  } else {
    FormatOptions f = g.out.number;
    f.binary = f.binary || r->binary;
    human = format_human(r->value, f);
  }
  if (g.out.format == writers::OutputFormat::table) {
    emit(human + "\n");
  } else {
    emit(writers::render_result(res, g.out));
  }
  return ExitStatus::ok;
}

ExitStatus run_calc_units(const GlobalOptions& g) {
  // One row per symbol the parser knows, from its own table: what `calc` and every input accept.
  Result res;
  res.plugin = "calc";
  res.calculator = "units";
  Table t{"units", "units calc and every input accept", {{"symbol"}, {"name"}, {"dimension"}, {"in_base_units"}, {"prefixes"}}, {}};
  for (const auto& s : unit_symbols()) {
    const char* prefixes = s.prefixes == PrefixClass::si          ? "SI (a to E)"
                           : s.prefixes == PrefixClass::large     ? "k and larger"
                           : s.prefixes == PrefixClass::large_iec ? "k and larger, Ki Mi Gi..."
                                                                  : "none";
    std::string base = s.point ? fmt::format("{} K + {} K x value", format_machine(s.offset), format_machine(s.factor))
                               : format_machine(s.factor) + " " + base_unit_string(s.dim);
    t.rows.push_back({std::string(s.symbol), std::string(s.name), s.point ? "a temperature point" : dim_words(s.dim), base,
                      std::string(s.word ? "none (a word)" : prefixes)});
  }
  res.tables.push_back(std::move(t));
  res.notes.push_back("GB is 10^9 B and GiB 2^30 B; yr is the Julian year (365.25 d) and a month a twelfth of it; degC and "
                      "degF are points, K a difference");
  emit(writers::render_result(res, g.out));
  return ExitStatus::ok;
}

}  // namespace infracalc::cli
