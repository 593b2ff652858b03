#include <fmt/format.h>

#include "cli/commands.hpp"
#include "plan/machine_units.hpp"
#include "cli/wrap.hpp"
#include "host/context.hpp"
#include "host/input_aliases.hpp"
#include "plugins/registry.hpp"
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
    parts.push_back(in.point ? "a temperature in degC" : dim_words(in.dim) + (in.dim.dimensionless() ? "" : ", " + writers::machine_quantity(in.name, Quantity{1, in.dim}).unit));
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
  const std::size_t width = help_width();
  const std::pair<std::string_view, std::string_view> rows[] = {
      {"--format table|json|csv|md", "output format (--json and --csv are shorthands)"},
      {"--digits N", "significant digits in human output (default 4)"},
      {"--binary", "binary prefixes (KiB, GiB) for data sizes"},
      {"--color auto|always|never", "colour; auto honours NO_COLOR and a non-terminal stdout"},
      {"--as-of DATE", "use the newest dated price or tariff not after DATE"},
      {"--data-dir DIR", "overlay data files from DIR (also $INFRACALC_DATA)"},
      {"--table NAME", "with --csv: write the named result table"},
      {"--fields A,B", "calculators and batch: only the named results (no result tables)"},
  };
  std::string out = "output options\n";
  for (const auto& [flag, help] : rows) out += fmt::format("  {:<28} {}\n", flag, wrap(help, width, 31, 31));
  out += "  " + wrap("output options go anywhere on the line, before the command too; given twice, the last one wins", width, 2, 2) + "\n";
  return out;
}

std::string calculator_help(const Plugin& p, const Calculator& c) {
  // Paragraphs and the help columns wrap to the terminal (help_width); a flag or key longer than its column puts
  // its text on the next line rather than pushing the column out.
  const std::size_t width = help_width();
  auto column = [&](std::string_view name, std::size_t at, std::string_view text) {
    std::string line = "  " + std::string(name);
    if (line.size() + 1 > at) line += "\n" + std::string(at, ' ');
    else line += std::string(at - line.size(), ' ');
    return line + wrap(text, width, at, at) + "\n";
  };
  std::string out = wrap(fmt::format("infracalc {} {}: {}", p.name, c.name, c.summary), width, 2, 0) + "\n";
  if (!c.description.empty()) out += "\n  " + wrap(c.description, width, 2, 2) + "\n";
  std::string usage = fmt::format("usage: infracalc {} {}", p.name, c.name);
  for (const auto& r : c.refs) usage += " [" + Context::flag_name(r.name) + " ID]";
  out += "\n" + wrap(usage + " [inputs] [output options]", width, 7, 0) + "\n";
  if (!c.refs.empty()) {
    out += "\ncatalog references\n";
    for (const auto& r : c.refs) out += column(Context::flag_name(r.name) + " ID", 27, r.help);
  }
  out += "\ninputs\n";
  for (const auto& in : c.inputs) {
    const std::string flag = Context::flag_name(in.name) + (value_word(in).empty() ? "" : " " + value_word(in));
    std::string also;
    for (auto a : input_aliases(c, in)) also += (also.empty() ? "" : ", ") + Context::flag_name(a);
    out += column(flag, 27, in.help);
    out += column("", 27, details(in));
    if (!also.empty()) out += column("", 27, "also " + also);
  }
  out += "\noutputs (JSON key, unit in JSON, meaning)\n";
  for (const auto& o : c.outputs) {
    const std::string unit = writers::machine_quantity(o.name, Quantity{1, o.dim, o.point}).unit;
    std::string head = fmt::format("{:<26} {}", o.name, unit);
    out += column(head, 40, o.help);
  }
  if (!c.tables.empty()) {
    out += "\ntables (JSON keys; --csv --table NAME)\n";
    for (const auto& t : c.tables) out += column(t.name, 27, t.help);
  }
  if (!c.verdicts.empty()) {
    out += "\nverdicts (JSON keys; ok when)\n";
    for (const auto& v : c.verdicts) out += column(v.key, 27, v.help);
  }
  if (c.chart != Chart::none) {
    out += "\noutput file\n";
    out += column("--plot FILE.svg", 27, "write the result as an SVG chart (checked before the run; never replaces a file without --force)");
    out += column("--force", 27, "replace an existing --plot file");
  }
  if (!p.doc.empty()) out += "\n" + wrap("formulas and sources: " + std::string(p.doc), width, 2, 0) + "\n";
  if (!c.source.empty())
    out += wrap("code: " + std::string(c.source_file()) + " (its inputs, run function and outputs; the formulas it calls are in the headers it "
                "includes)",
                width, 2, 0) + "\n";
  out += "\n" + output_options_help();
  return out;
}

std::string plugin_help(const Plugin& p) {
  std::string out = fmt::format("infracalc {}: {}\n\ncalculators\n", p.name, plugin_summary(p.name));
  for (const auto& c : p.calculators) out += fmt::format("  {:<14} {}\n", c.name, c.summary);
  out += fmt::format("\nrun `infracalc {} CALCULATOR --help` for its inputs and outputs", p.name);
  if (!p.kernels.empty()) out += fmt::format("; `infracalc verify {}` runs its reference kernels", p.name);
  out += "\n";
  return out;
}

}  // namespace infracalc::cli
