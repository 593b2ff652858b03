// Sweeps: a plan evaluated over a grid of input values, one row per point, written as CSV, JSON Lines, a
// table or Markdown; --pareto keeps the points no other point beats on every named column.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "plan/output.hpp"
#include "plan/plan_eval.hpp"

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
  /// A range of a quantity key (LOW..HIGH:N), whose values are computed when asked for rather than held: a
  /// ten-million-point range held as text and values took over a gigabyte. labels and cells stay empty.
  struct Range {
    /// The ends.
    Quantity low, high;
    /// Number of points (at least 2).
    std::size_t points = 0;
    /// Geometric rather than linear spacing.
    bool log = false;
  };
  /// Set for a quantity range.
  std::optional<Range> range;
  /// Per value: the prices that follow the hardware it sets ("money.purchase" = "b200-purchase"; an empty
  /// text removes the key), so that a swept system is never priced as the plan's own (see follow_prices).
  std::vector<std::vector<std::pair<std::string, std::string>>> prices;

  /// Number of values.
  [[nodiscard]] std::size_t size() const;
  /// Value i as written (the column text).
  [[nodiscard]] std::string label(std::size_t i) const;
  /// Value i parsed.
  [[nodiscard]] Cell cell(std::size_t i) const;
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
  /// Its position in the grid (0 for the first point).
  std::size_t point = 0;
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

/// The number of points of the grid; a UserError past the limit of 20 million.
[[nodiscard]] std::size_t sweep_points(const SweepPlan& sweep);
/// Evaluates every point and hands each row to `sink` in grid order; nothing is kept, so memory stays flat in
/// the number of points.
void run_sweep(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep, SweepStats& stats,
               const std::function<void(SweepRow&&)>& sink);
/// Evaluates the points first..end-1 of the grid (a shard, or a worker's block) in grid order, as run_sweep does
/// for the whole grid: the first point is evaluated in full, the rest incrementally.
void run_sweep_range(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep, std::size_t first, std::size_t end,
                     SweepStats& stats, const std::function<void(SweepRow&&)>& sink);
/// The inputs of the sweep's first point (every axis at its first value), for the workbook and charts.
[[nodiscard]] InputSet first_point(const Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep);

/// The Pareto front of the objectives, kept as rows arrive (rows without a value in an objective, or with an
/// error, are dropped). Rows with equal scores share one entry, so ties cost one comparison.
class ParetoFront {
 public:
  /// Reads the objectives (columns, minimised unless ":max") from the sweep.
  explicit ParetoFront(const SweepPlan& sweep);
  /// Offers one row.
  void add(SweepRow&& row);
  /// The rows on the front, in grid order; the front is empty afterwards.
  [[nodiscard]] std::vector<SweepRow> take_rows();

 private:
  struct Objective {
    std::size_t column;
    double sign;
  };
  struct Group {
    std::vector<double> score;
    std::vector<SweepRow> rows;
  };
  std::vector<Objective> objectives_;
  std::vector<Group> groups_;
};

/// What failed across some sweep points: the counts a tally keeps, and a sweep part carries in its trailer.
struct SweepCounts {
  /// Points counted.
  std::size_t points = 0;
  /// Points that failed a check.
  std::size_t checked = 0;
  /// Points where a step or a line failed.
  std::size_t errored = 0;
  /// The first such error, in grid order.
  std::string first_error;
  /// Per check (the program's order): points that failed it.
  std::vector<std::pair<std::string, std::size_t>> by_check;
};

/// What failed across a sweep's rows, counted as they arrive.
class SweepTally {
 public:
  /// Counts per check of `program`.
  explicit SweepTally(const Program& program);
  /// Counts one row.
  void add(const SweepRow& r);
  /// Adds the counts of later points (a sweep part's, in grid order); checks are matched by key.
  void add(const SweepCounts& later);
  /// The counts so far.
  [[nodiscard]] const SweepCounts& counts() const { return c_; }
  /// For stderr: "3 of 4 sweep points failed checks (ttft_target in 3, tpot_target in 1)" and "; 1 failed a step
  /// (...)"; empty when every point passed.
  [[nodiscard]] std::string text() const;

 private:
  SweepCounts c_;
};

/// Whether rows in this format are written as they come (CSV and JSON Lines; tables need every row's width).
[[nodiscard]] bool streams(const writers::OutputOptions& opt);

/// Writes CSV or JSON Lines rows as they arrive, through `write`, in pieces of about 64 kB.
class SweepStreamer {
 public:
  /// For the columns of `sweep`; `write` receives whole rows.
  SweepStreamer(const Program& program, const SweepPlan& sweep, const writers::OutputOptions& opt, std::function<void(std::string_view)> write);
  /// Adds one row.
  void add(const SweepRow& r);
  /// Writes what is left (and the header, for a sweep with no rows).
  void finish();

 private:
  static constexpr std::size_t kHeld = 256;
  void start();
  void append(const SweepRow& r);
  const SweepPlan& sweep_;
  writers::OutputOptions opt_;
  std::function<void(std::string_view)> write_;
  std::vector<const Line*> lines_;
  std::vector<std::string> units_;
  std::vector<char> known_;
  std::vector<SweepRow> held_;
  std::string buf_;
  bool started_ = false;
};

/// Writes rows: CSV (machine units in the header), JSON Lines, a table or Markdown.
[[nodiscard]] std::string render_sweep(const Program& program, const SweepPlan& sweep, const std::vector<SweepRow>& rows,
                                       const writers::OutputOptions& opt);

}  // namespace infracalc::plan
