// Sweeps: a plan evaluated over a grid of input values, one row per point, written as CSV, JSON Lines, a
// table or Markdown; --pareto keeps the points no other point beats on every named column.
#pragma once

#include <string>
#include <vector>

#include "cli/output.hpp"
#include "cli/plan_eval.hpp"

namespace infracalc::plan {

/// One axis: a plan key (or the variants) and its values, parsed once.
struct Axis {
  /// "section.key", or "variant".
  std::string key;
  /// The key (null for variants).
  const KeyDef* def = nullptr;
  /// The values as written (column text).
  std::vector<std::string> labels;
  /// The parsed values (plan keys).
  std::vector<Cell> cells;
  /// Variant indices (the variant axis).
  std::vector<std::size_t> variants;
};

/// A sweep's grid and what to report.
struct SweepPlan {
  /// Axes, outermost first (the last varies fastest).
  std::vector<Axis> axes;
  /// Line keys to report for every point.
  std::vector<std::string> columns;
  /// Pareto objectives: line keys, minimised unless they end in ":max".
  std::vector<std::string> pareto;
};

/// Parses "key=v1,v2,...", "key=LOW..HIGH:N" (N points, linear) or "key=LOW..HIGH:N:log" into an axis.
[[nodiscard]] Axis parse_axis(const std::string& text, const std::string& mode, const PlanSpec& spec, Problems& problems);
/// Builds the sweep from the file's [sweep] and [report] and the command line's --sweep, --columns and --pareto.
[[nodiscard]] SweepPlan make_sweep(const PlanSpec& spec, const Program& program, const std::vector<std::string>& cli_axes,
                                   const std::string& columns, const std::string& pareto, Problems& problems);
/// The default columns of a sweep: the summary (headline) lines.
[[nodiscard]] std::vector<std::string> default_columns(const Program& program);

/// One evaluated point.
struct SweepRow {
  /// Axis values as written.
  std::vector<std::string> labels;
  /// Column values (nullopt when the line has no value at this point).
  std::vector<std::optional<Cell>> values;
  /// Failed checks, "key; key".
  std::string failed;
  /// Errors at this point ("" when none).
  std::string error;
};

/// Statistics of a sweep run.
struct SweepStats {
  /// Points evaluated.
  std::size_t points = 0;
  /// Wall time in seconds.
  double seconds = 0;
  /// Plugin runs (cache misses) and memo hits.
  std::size_t runs = 0, hits = 0;
};

/// Evaluates every point; rows come back in grid order.
[[nodiscard]] std::vector<SweepRow> run_sweep(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep,
                                              SweepStats& stats);
/// The inputs of the sweep's first point (every axis at its first value), for the workbook and charts.
[[nodiscard]] InputSet first_point(const Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep);
/// Keeps the rows on the Pareto front of the objectives (rows without a value in an objective are dropped).
[[nodiscard]] std::vector<SweepRow> pareto_front(const std::vector<SweepRow>& rows, const SweepPlan& sweep);
/// Writes rows: CSV (machine units in the header), JSON Lines, a table or Markdown.
[[nodiscard]] std::string render_sweep(const Program& program, const SweepPlan& sweep, const std::vector<SweepRow>& rows,
                                       const cli::OutputOptions& opt);

}  // namespace infracalc::plan
