#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/machine_units.hpp"
#include "plugins/core/context.hpp"
#include "plugins/core/input_aliases.hpp"
#include "units/dim.hpp"
#include "units/format.hpp"

namespace infracalc::cli {

std::string value_word(const Input& in) {
  switch (in.kind) {
    case InputKind::integer: return "N";
    case InputKind::choice: return "CHOICE";
    case InputKind::text: return "TEXT";
    case InputKind::flag: return "";
    case InputKind::quantity: break;
  }
  return in.point ? "TEMP" : "VALUE";
}

std::string details(const Input& in) {
  std::vector<std::string> parts;
  if (in.kind == InputKind::quantity)
    parts.push_back(in.point ? "a temperature in degC" : dim_words(in.dim) + (in.dim.dimensionless() ? "" : ", " + machine_quantity(in.name, Quantity{1, in.dim}).unit));
  if (in.kind == InputKind::integer)
    parts.push_back(fmt::format("whole number, {} to {}", in.bound == Bound::any ? format_count(-static_cast<double>(in.most), 15)
                                                        : in.bound == Bound::positive ? std::string("1") : std::string("0"),
                                format_count(static_cast<double>(in.most), 15)));
  if (in.kind == InputKind::choice) {
    std::string c;
    for (auto x : in.choices) c += (c.empty() ? "" : "|") + std::string(x);
    parts.push_back(c);
  }
  if (!in.default_value.empty()) parts.push_back("default " + std::string(in.default_value));
  if (!in.catalog.empty()) parts.push_back("from " + std::string(in.catalog));
  if (!in.example.empty() && in.kind != InputKind::choice) parts.push_back("e.g. " + std::string(in.example));
  if (in.optional && in.default_value.empty()) parts.push_back("optional");
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return "[" + out + "]";
}

std::string output_options_help() {
  return "output options\n"
         "  --format table|json|csv|md   output format (--json and --csv are shorthands)\n"
         "  --digits N                   significant digits in human output (default 4)\n"
         "  --binary                     binary prefixes (KiB, GiB) for data sizes\n"
         "  --color auto|always|never    colour; auto honours NO_COLOR and a non-terminal stdout\n"
         "  --as-of DATE                 use the newest dated price or tariff not after DATE\n"
         "  --data-dir DIR               overlay data files from DIR (also $INFRACALC_DATA)\n"
         "  --table NAME                 with --csv: write the named result table\n"
         "  --fields A,B                 calculators and batch: only the named results (no result tables)\n"
         "  output options go anywhere on the line, before the command too; given twice, the last one wins\n";
}

std::string calculator_help(const Plugin& p, const Calculator& c) {
  std::string out = fmt::format("infracalc {} {}: {}\n", p.name, c.name, c.summary);
  if (!c.description.empty()) out += "\n  " + std::string(c.description) + "\n";
  out += fmt::format("\nusage: infracalc {} {}", p.name, c.name);
  for (const auto& r : c.refs) out += " [--" + std::string(r.name) + " ID]";
  out += " [inputs] [output options]\n";
  if (!c.refs.empty()) {
    out += "\ncatalog references\n";
    for (const auto& r : c.refs) out += fmt::format("  --{:<22} {}\n", std::string(r.name) + " ID", r.help);
  }
  out += "\ninputs\n";
  for (const auto& in : c.inputs) {
    const std::string flag = Context::flag_name(in.name) + (value_word(in).empty() ? "" : " " + value_word(in));
    std::string also;
    for (auto a : input_aliases(c, in)) also += (also.empty() ? "" : ", ") + Context::flag_name(a);
    out += fmt::format("  {:<24} {}\n  {:<24} {}\n", flag, in.help, "", details(in));
    if (!also.empty()) out += fmt::format("  {:<24} also {}\n", "", also);
  }
  out += "\noutputs (JSON key, unit in JSON, meaning)\n";
  for (const auto& o : c.outputs)
    out += fmt::format("  {:<26} {:<10} {}\n", o.name, machine_quantity(o.name, Quantity{1, o.dim, o.point}).unit, o.help);
  if (!p.doc.empty()) out += "\nformulas and sources: " + std::string(p.doc) + "\n";
  out += "\n" + output_options_help();
  return out;
}

std::string plugin_help(const Plugin& p) {
  std::string out = fmt::format("infracalc {}: {}\n\ncalculators\n", p.name, p.summary);
  for (const auto& c : p.calculators) out += fmt::format("  {:<14} {}\n", c.name, c.summary);
  out += fmt::format("\nrun `infracalc {} CALCULATOR --help` for its inputs and outputs", p.name);
  if (!p.kernels.empty()) out += fmt::format("; `infracalc verify {}` runs its reference kernels", p.name);
  out += "\n";
  return out;
}

}  // namespace infracalc::cli
