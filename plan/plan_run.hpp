// A plan from its text to what `infracalc plan` computes: read, checked, built and evaluated once. The command line
// (cli/plan_command.cpp, batch's plan records) and the WebAssembly engine (web/engine.cpp) run plans through here,
// so a plan gives the same worksheet wherever it runs.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan_eval.hpp"
#include "plan/plan_file.hpp"
#include "plan/plan_sweep.hpp"

namespace infracalc::plan {

/// What a plan runs with besides its text: the command line's --set overrides and, for a sweep, --sweep,
/// --columns and --pareto.
struct PlanRequest {
  /// --set section.key=VALUE overrides, in order ("section.key=" removes a value).
  std::vector<std::string> sets;
  /// --sweep axes, added to the file's [sweep].
  std::vector<std::string> sweeps;
  /// --columns: line keys reported for each sweep point (comma list).
  std::string columns;
  /// --pareto: objectives (comma list; key:max to maximise).
  std::string pareto;
  /// False for a batch record: the file's [sweep] and [[variant]] tables are not built into a sweep.
  bool sweep = true;
  /// Step runs of earlier requests to answer from and add to (the engine's what-if re-runs); nullptr for none.
  std::shared_ptr<RunCache> runs;
};

/// A plan read, checked and built once: its spec with the overrides, its chain, an evaluator, the inputs and
/// the sweep. The constructor lists the problems of every part together (as --check does) in the UserError it
/// throws.
struct PreparedPlan {
  /// The plan's text as read.
  std::string text;
  /// Problems found while preparing (empty once constructed).
  Problems problems;
  /// The scenario with the request's overrides.
  PlanSpec spec;
  /// The chain.
  Program program;
  /// The evaluator of the plan's points.
  Evaluator ev;
  /// The inputs before any sweep axis.
  InputSet in;
  /// The sweep (no axes for a single plan).
  SweepPlan sweep;
  /// The request's step runs shared with earlier requests (nullptr for none).
  std::shared_ptr<RunCache> runs;

  /// Prepares the plan `plan_text` (TOML), named `source` in positions and output (a path, or "(stdin)").
  PreparedPlan(std::string_view plan_text, const std::string& source, const PlanRequest& request, const RunOptions& ro);
  PreparedPlan(const PreparedPlan&) = delete;
  PreparedPlan& operator=(const PreparedPlan&) = delete;
};

/// The values of a single plan, or of a sweep's first point (every axis at its first value: what --html and
/// --xlsx show after a sweep), with cross-checks, on an evaluator of its own.
[[nodiscard]] Sheet worksheet_sheet(const PreparedPlan& p, const RunOptions& ro);
/// Throws the UserError of a sheet whose steps or lines failed, naming the first and how many more; a sheet
/// without errors (a failed check is no error) returns.
void throw_if_failed(const Sheet& sheet);

/// What `infracalc plan FILE --json` prints for `p` (without its last newline): the worksheet of a single plan
/// (plan_json), or the JSON Lines of every sweep point (its Pareto front with --pareto), evaluated in this
/// process. A failed step of a single plan throws UserError; a failed check is in the JSON.
[[nodiscard]] std::string plan_json_text(PreparedPlan& p, const RunOptions& ro);

}  // namespace infracalc::plan
