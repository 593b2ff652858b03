// Evaluating a program: inputs from the spec, catalog values, plugin steps (memoized on their inputs, so
// sweep points that do not change a step reuse its result), expressions from their parsed trees.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plan/plan_model.hpp"

namespace infracalc::plan {

/// The input lines' values for one evaluation.
struct InputSet {
  /// Per line (only input lines are used): the value, when given or defaulted.
  std::vector<std::optional<Cell>> values;
  /// Per line: where the value came from ("plan.toml:3:7", "--set ...", "default", "sweep").
  std::vector<std::string> where;
};

/// Step runs kept beyond one evaluator, keyed by plugin, calculator and inputs: the WebAssembly engine prepares the
/// plan again for every what-if move, and a step whose inputs did not move (the serving search when only a price
/// did) is answered from here. Keyed by the run options too; valid for one catalog; bounded in size.
class RunCache {
 public:
  /// The key of a run of `plugin` `calculator` with `raw` and `options`.
  [[nodiscard]] static std::string key(std::string_view plugin, std::string_view calculator, const RawInputs& raw,
                                       const RunOptions& options);
  /// The run of `calculator` of `plugin` with `raw` and `options` from this cache, else run now and kept; a refused
  /// run keeps its error. `ran`, when given, tells which.
  [[nodiscard]] std::shared_ptr<const StepRun> run(const Plugin& plugin, const Calculator& calculator, RawInputs raw,
                                                   const RunOptions& options = {}, bool* ran = nullptr);

 private:
  // The run of `key`, or nullptr.
  [[nodiscard]] std::shared_ptr<const StepRun> find(const std::string& key) const;
  // Keeps `run` under `key` (forgetting every run when the cache is full).
  void add(std::string key, std::shared_ptr<const StepRun> run);
  std::unordered_map<std::string, std::shared_ptr<const StepRun>> runs_;
};

/// Computes sheets from a program.
class Evaluator {
 public:
  /// Evaluates `program` with run options (--as-of) shared by every step.
  Evaluator(const Program& program, RunOptions options);

  /// Input values from a spec: given values, else defaults; values that do not parse go to `problems`.
  [[nodiscard]] InputSet inputs(const PlanSpec& spec, Problems& problems) const;
  /// Sets one input (a plan path or line key) from text; returns the error when it does not parse.
  [[nodiscard]] std::optional<Error> set_input(InputSet& in, const KeyDef& key, const std::string& text, const std::string& where) const;
  /// Evaluates every line, step and check.
  [[nodiscard]] Sheet evaluate(const InputSet& in);
  /// Re-evaluates `sheet` (a previous evaluation of this program) after the inputs in `changed` changed:
  /// only lines, steps and checks downstream of a value that actually changed are computed again.
  void update(const InputSet& in, const std::vector<int>& changed, Sheet& sheet);
  /// Runs a step with the sheet's current values and some inputs replaced; memoized like evaluate's runs.
  [[nodiscard]] std::shared_ptr<const StepRun> run_step(int step, const Sheet& sheet,
                                                        const std::vector<std::pair<std::string, std::string>>& overrides);
  /// The program.
  [[nodiscard]] const Program& program() const { return program_; }
  /// Answers step runs from `cache` too, and keeps this evaluator's runs there (nullptr: its own memo only).
  void share_runs(std::shared_ptr<RunCache> cache) { shared_ = std::move(cache); }
  /// Whether cross-check steps run (single plans: yes; sweeps: no).
  void set_cross_checks(bool on) { cross_checks_ = on; }
  /// Plugin runs so far (cache misses), for the benchmark and tests.
  [[nodiscard]] std::size_t runs() const { return runs_; }
  /// Plugin runs answered from the memo.
  [[nodiscard]] std::size_t hits() const { return hits_; }

 private:
  /// Why a failed formula's divisor is zero: the zero line and the plan keys nearest upstream of it.
  [[nodiscard]] std::string zero_trace(const Line& l, const Sheet& sheet) const;
  void eval_line(int i, const InputSet& in, Sheet& sheet);
  void eval_step(int s, Sheet& sheet);
  /// Lists the steps' and lines' errors in sheet.errors, in the program's order.
  void gather_errors(Sheet& sheet) const;
  std::shared_ptr<const StepRun> run_raw(int s, RawInputs raw);
  void eval_check(std::size_t c, Sheet& sheet);
  /// Adds a problem for each given choice that a calculator input it feeds does not take.
  void refuse_choices_a_step_refuses(const InputSet& in, Problems& problems) const;

  const Program& program_;
  RunOptions options_;
  std::vector<std::unordered_map<std::string, std::shared_ptr<const StepRun>>> memo_;
  std::unordered_map<std::string, std::pair<std::optional<Cell>, std::vector<Provenance>>> catalog_memo_;
  std::shared_ptr<RunCache> shared_;
  std::vector<std::vector<int>> line_deps_;  // per line: the lines it reads
  std::vector<std::vector<int>> step_deps_;  // per step: the lines it reads
  bool cross_checks_ = true;
  std::size_t runs_ = 0;
  std::size_t hits_ = 0;
};

/// What a rule or a check sees: the sheet so far, and the evaluator to run steps with other inputs.
class RuleContext {
 public:
  /// A context over a sheet being evaluated.
  RuleContext(Evaluator& ev, Sheet& sheet) : ev_(ev), sheet_(sheet) {}
  /// A line's quantity, when it has one.
  [[nodiscard]] std::optional<Quantity> q(std::string_view key) const;
  /// A line's text, when it has text.
  [[nodiscard]] std::optional<std::string> text(std::string_view key) const;
  /// The run of a step in this sheet (null when it did not run).
  [[nodiscard]] std::shared_ptr<const StepRun> run(std::string_view step) const;
  /// Runs a step with some inputs replaced.
  [[nodiscard]] std::shared_ptr<const StepRun> run_with(std::string_view step, const std::vector<std::pair<std::string, std::string>>& overrides);
  /// Adds an error to the sheet (the plan is then incomplete).
  void error(std::string text) { sheet_.errors.push_back(std::move(text)); }
  /// The sheet.
  [[nodiscard]] Sheet& sheet() { return sheet_; }

 private:
  Evaluator& ev_;
  Sheet& sheet_;
};

}  // namespace infracalc::plan
