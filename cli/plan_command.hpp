// `infracalc plan FILE.toml`: load, validate, evaluate and write a plan (or a sweep of it).
#pragma once

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "host/context.hpp"

namespace infracalc::cli {

/// The options of `infracalc plan`.
struct PlanOptions {
  /// The plan file.
  std::string file;
  /// --set section.key=value overrides.
  std::vector<std::string> sets;
  /// --sweep key=values axes.
  std::vector<std::string> sweeps;
  /// --columns: line keys reported for each sweep point (comma list).
  std::string columns;
  /// --pareto: objectives (comma list; key:max to maximise).
  std::string pareto;
  /// --xlsx FILE: write a workbook.
  std::string xlsx;
  /// --plot DIR: write SVG charts.
  std::string plot_dir;
  /// --html FILE: write the worksheet, its sources and charts as one self-contained page.
  std::string html;
  /// --force: replace existing output files.
  bool force = false;
  /// --check: validate only, print nothing on success.
  bool check_only = false;
  /// --stats: sweep timing and memo figures on stderr.
  bool stats = false;
  /// --keys: print every plan key and exit.
  bool keys = false;
  /// --shard K/N: evaluate part K of N of the sweep and write it as a part file for `plan merge`.
  std::string shard;
  /// --jobs N: worker processes for a sweep (0: every core this process may use).
  unsigned jobs = 0;
};

/// Runs `infracalc plan`.
ExitStatus run_plan(const PlanOptions& o, const GlobalOptions& g);
/// Runs `infracalc plan merge PART...`: joins the part files of a sharded sweep into the table (and Pareto
/// front, workbook, charts, exit status) the unsharded sweep gives; `o` carries the merge's own options (--xlsx,
/// --plot, --force, --stats), the rest comes from the parts.
ExitStatus run_plan_merge(const std::vector<std::string>& paths, const PlanOptions& o, const GlobalOptions& g);
/// Parses --jobs N (1 to 1024 worker processes); a UserError naming --jobs otherwise.
[[nodiscard]] unsigned parse_jobs(const std::string& text);
/// A plan as a batch record evaluates it: `file` (already confined by the caller) with the `sets` overrides
/// (section.key=VALUE), no sweep, as the one-line JSON `plan --json` prints. An invalid plan or a failed step
/// throws UserError; a failed check is in the JSON (`checks`), not an error.
[[nodiscard]] std::string plan_record_json(const std::string& file, const std::vector<std::string>& sets, const RunOptions& ro);
/// The help text of `infracalc plan`, with every plan key.
[[nodiscard]] std::string plan_help();

}  // namespace infracalc::cli
