// Writing a worksheet: the human table, JSON (everything, with provenance), a Markdown report and CSV;
// and the helpers the workbook and chart writers share (display units, how each line was made).
#pragma once

#include <string>
#include <vector>

#include "plan/output.hpp"
#include "plan/plan_model.hpp"

namespace infracalc::plan {

class RunCache;

/// A worksheet ready to write: the spec, the program and one evaluation.
struct Worksheet {
  /// The scenario.
  const PlanSpec& spec;
  /// The chain.
  const Program& program;
  /// The values.
  const Sheet& sheet;
  /// Where the charts' own calculator runs are kept and found (the request's cache: the engine's what-if re-runs, one
  /// command's several files); nullptr runs them afresh.
  RunCache* runs = nullptr;
};

/// The display unit of a line for fixed-unit output (workbooks, sweep headers): its hint, else the unit
/// format_human picks for its value. Empty for plain numbers and text.
[[nodiscard]] std::string display_unit(const Line& line, const Quantity& q);
/// True when `unit` (a line's declared display unit, "req/s" included) measures `q`: same dimension and kind
/// (temperature point or difference). Every line's declared unit must fit its value (a unit test checks them all).
[[nodiscard]] bool unit_fits(const std::string& unit, const Quantity& q);
/// The factor from the display unit to base units (1 for none), and its offset (degC).
[[nodiscard]] std::pair<double, double> unit_factor(const std::string& unit);
/// A line's value for people ("70.55 GB", "12 req/s", "yes"); "—" when it has none.
[[nodiscard]] std::string show_value(const Line& line, const std::optional<Cell>& value, const FormatOptions& opt);
/// How a line was made: the file position of an input, the catalog field, the plugin, the formula.
[[nodiscard]] std::string line_how(const Worksheet& w, int line);
/// Human title of a sheet.
[[nodiscard]] std::string sheet_title(const std::string& sheet);
/// Every catalog value used (lines and steps), without duplicates.
[[nodiscard]] std::vector<Provenance> all_sources(const Worksheet& w);
/// Every note: the program's, then each step's (prefixed with the step), without duplicates.
[[nodiscard]] std::vector<std::string> all_notes(const Worksheet& w);
/// The lines a sheet shows, by index: inputs, catalog values and choices only when they have a value; every other
/// line always (an empty one says why).
[[nodiscard]] std::vector<int> shown_lines(const Worksheet& w, const std::string& sheet);
/// The summary's lines, by index.
[[nodiscard]] std::vector<int> headline_lines(const Worksheet& w);
/// The plan's title.
[[nodiscard]] std::string plan_title(const Worksheet& w);

/// The worksheet in the chosen format (table, json, csv or md), ending in a newline.
[[nodiscard]] std::string render_plan(const Worksheet& w, const writers::OutputOptions& opt);
/// The whole plan as one JSON object: lines with units and provenance, steps with their full results.
[[nodiscard]] std::string plan_json(const Worksheet& w);

}  // namespace infracalc::plan
