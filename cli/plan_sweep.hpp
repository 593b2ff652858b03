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
  /// Per value: the prices that follow the hardware it sets ("money.purchase" = "b200-purchase"; an empty
  /// text removes the key), so that a swept system is never priced as the plan's own (see follow_prices).
  std::vector<std::vector<std::pair<std::string, std::string>>> prices;
};

/// A sweep's grid and what to report.
struct SweepPlan {
  /// Axes, outermost first (the last varies fastest).
  std::vector<Axis> axes;
  /// Line keys to report for every point.
  std::vector<std::string> columns;
  /// Pareto objectives: line keys, minimised unless they end in ":max".
  std::vector<std::string> pareto;
  /// Which catalog prices the swept hardware takes, for stderr.
  std::vector<std::string> notes;
};

/// Parses "key=v1,v2,...", "key=LOW..HIGH:N" (N points, linear) or "key=LOW..HIGH:N:log" into an axis.
[[nodiscard]] Axis parse_axis(const std::string& text, const std::string& mode, const PlanSpec& spec, Problems& problems);
/// Builds the sweep from the file's [sweep] and [report] and the command line's --sweep, --columns and --pareto.
[[nodiscard]] SweepPlan make_sweep(const PlanSpec& spec, const Program& program, const std::vector<std::string>& cli_axes,
                                   const std::string& columns, const std::string& pareto, Problems& problems);
/// Prices follow swept hardware. An axis (or a variant) that changes the accelerator, or the system a system
/// price is for, while leaving the plan's prices alone would price every row with the plan's own accelerator.
/// Each such value instead takes the catalog's purchase entry for its system or accelerator (instead of
/// money.capex_per_gpu or money.purchase) and, when the plan compares with renting, the catalog's rental entry
/// for its accelerator with the same tier (the same provider first). A price the catalog lacks is a problem
/// naming it and how to give it. Prices the sweep sets itself (an axis, or the same variant) are left alone.
void follow_prices(const PlanSpec& spec, SweepPlan& sweep, Problems& problems);
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
/// What failed across a sweep's rows, for stderr: "3 of 4 sweep points failed checks (ttft_target in 3, tpot_target
/// in 1)" and "; 1 failed a step (...)"; empty when every point passed.
[[nodiscard]] std::string sweep_failures(const Program& program, const std::vector<SweepRow>& rows);
/// Writes rows: CSV (machine units in the header), JSON Lines, a table or Markdown.
[[nodiscard]] std::string render_sweep(const Program& program, const SweepPlan& sweep, const std::vector<SweepRow>& rows,
                                       const cli::OutputOptions& opt);

}  // namespace infracalc::plan
