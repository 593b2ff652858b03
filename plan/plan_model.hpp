// The worksheet model: a plan is a list of lines (inputs, catalog values, plugin outputs, expressions,
// choices and planner rules) and of steps (plugin calculators fed by lines). The chain (plan_chain.cpp)
// declares them; the evaluator (plan_eval.*) computes a Sheet of values from them.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "plan/plan_file.hpp"
#include "plan/plan_schema.hpp"
#include "host/context.hpp"
#include "host/plugin.hpp"
#include "units/expr.hpp"
#include "units/parse.hpp"

namespace infracalc::plan {

/// How a line gets its value.
enum class LineKind : unsigned char {
  input,       ///< a plan key: given in the file, with --set, or its default
  catalog,     ///< a field of the catalog entry another line names
  step,        ///< an output of a plugin calculator
  expression,  ///< a unit-checked expression over other lines (a live formula in the workbook)
  choice,      ///< the first available of other lines, else a default (given value, else catalog, else default)
  rule,        ///< computed by the planner: a search or a rounding rule, described in words
};

class RuleContext;

/// One worksheet line.
struct Line {
  /// Key in snake_case, referenced as @key.
  std::string key;
  /// The sheet it belongs to ("inputs", or a step's sheet such as "fit").
  std::string sheet;
  /// What it is, in words.
  std::string label;
  /// How it is computed.
  LineKind kind = LineKind::input;
  /// Display unit ("kW", "L/min", "$/Mtok", "req/s"); empty for the dimension's preferred unit.
  std::string unit;
  /// True when shown in the summary.
  bool headline = false;
  /// input: the plan key.
  const KeyDef* def = nullptr;
  /// catalog: the line holding the entry id, the field path, the expected dimension, dated series, text field.
  int id_line = -1;
  /// catalog: field path.
  std::string field;
  /// catalog: what the field must be.
  Expectation want{};
  /// catalog: a dated series (tariffs, prices): the entry --as-of picks.
  bool dated = false;
  /// catalog: a text field.
  bool text = false;
  /// step: the step and its output key.
  int step = -1;
  /// step: output key.
  std::string output;
  /// expression: its text and parsed tree; rule: a description of the rule.
  std::string formula;
  /// expression: the parsed expression.
  std::optional<Expression> expr;
  /// choice: candidate lines in order; rule and expression: the lines it reads.
  std::vector<int> deps;
  /// choice: default text when no candidate has a value (parsed like the candidates' dimension).
  std::string fallback;
  /// choice: the default as a value.
  std::optional<Cell> fallback_value;
  /// rule: the computation; returns nullopt when its inputs are missing.
  std::function<std::optional<Cell>(RuleContext&)> rule;
  /// Written by the user in [[line]] (its position, for errors).
  std::string where;
};

/// A step input fed from a line or a literal.
struct Binding {
  /// The calculator's input (or catalog reference) name.
  std::string input;
  /// The line that feeds it (-1 for a literal).
  int line = -1;
  /// The literal text when line is -1.
  std::string literal;
  /// True when the line is a plan key whose default is this input's own: while the key is not given, the input is
  /// left to the calculator, which then reports it as its default rather than as given.
  bool calculator_default = false;
};

/// One plugin calculator run in the chain.
struct Step {
  /// Key, e.g. "fit", "decode", "fabric".
  std::string key;
  /// The sheet its lines go to.
  std::string sheet;
  /// What it is for, one line.
  std::string purpose;
  /// Plugin and calculator names.
  std::string plugin, calculator;
  /// Resolved at build time; null when this build lacks them.
  const Plugin* p = nullptr;
  /// Resolved at build time; null when this build lacks them.
  const Calculator* c = nullptr;
  /// Inputs.
  std::vector<Binding> inputs;
  /// Lines that take its outputs.
  std::vector<int> outputs;
  /// Why the step cannot run in this build ("" when it can).
  std::string unavailable;
  /// Runs only when this line has a value (and, for text, is not "none"); -1 always runs.
  int enable_line = -1;
  /// A helper run (a probe the planner uses to choose something): its notes are not repeated in the report.
  bool quiet = false;
  /// Beginnings of notes about an input the planner passes only nominally (a placeholder rate, not the plan's):
  /// such notes describe numbers the plan does not use and are not repeated in the report.
  std::vector<std::string> nominal_notes;
  /// A cross-check: its outputs are compared with lines computed another way instead of becoming lines.
  /// Sweeps skip cross-checks.
  bool cross_check = false;
  /// Cross-check: (output key, line) pairs that must agree.
  std::vector<std::pair<std::string, int>> compare;
};

/// One comparison made by a cross-check step.
struct CrossCheck {
  /// The step.
  int step = 0;
  /// The plugin's output key.
  std::string output;
  /// The line it is compared with.
  int line = 0;
  /// The plugin's value.
  Quantity plugin;
  /// The line's value.
  Quantity value;
  /// True when they agree to 1e-9 (relative).
  bool ok = false;
};

/// A check the plan makes (fits, targets met, within the power budget, cooling can take the rack).
struct CheckDef {
  /// Key in snake_case.
  std::string key;
  /// What it checks.
  std::string label;
  /// Lines it reads (for ordering and for sweeps' columns).
  std::vector<int> deps;
  /// The verdict: nullopt when it does not apply; ok and an explanation otherwise.
  std::function<std::optional<std::pair<bool, std::string>>(RuleContext&)> eval;
};

/// Work items in evaluation order.
struct Op {
  /// True for a step, false for a line.
  bool is_step = false;
  /// The line or step index.
  int index = 0;
};

/// A built plan: every line and step of the chain for its workload, in dependency order.
struct Program {
  /// "serve", "train" or "finetune".
  std::string mode;
  /// Lines.
  std::vector<Line> lines;
  /// Steps.
  std::vector<Step> steps;
  /// Checks.
  std::vector<CheckDef> checks;
  /// Evaluation order.
  std::vector<Op> order;
  /// Key (and input path) → line.
  std::unordered_map<std::string, int> index;
  /// Sheet names in display order.
  std::vector<std::string> sheets;
  /// Notes that hold for every evaluation (the static serving model, steps waiting for a plugin).
  std::vector<std::string> notes;

  /// The line with this key or input path, or -1.
  [[nodiscard]] int find(std::string_view key) const {
    const auto it = index.find(std::string(key));
    return it == index.end() ? -1 : it->second;
  }
  /// The line keys and input paths, for did-you-mean.
  [[nodiscard]] std::vector<std::string_view> keys() const;
};

/// The result of running one step.
struct StepRun {
  /// The inputs it was given.
  RawInputs raw;
  /// The result when it ran.
  std::optional<Result> result;
  /// The error when it failed.
  std::optional<Error> error;
};

/// One evaluation of a program.
struct Sheet {
  /// Per line: the value, when it has one.
  std::vector<std::optional<Cell>> values;
  /// Per line: why it has no value, or for choices which candidate was used ("" for the default).
  std::vector<std::string> why;
  /// Per line: for choices, the candidate line used (-1 for the default); for inputs, 1 when given, 0 for a default.
  std::vector<int> chosen;
  /// Per line: the catalog values it came from.
  std::vector<std::vector<Provenance>> cites;
  /// Per line: 1 when it has no value because something upstream failed or waits for a plugin (as opposed
  /// to not applying, e.g. an optional input not given); a choice never falls back to its default then.
  std::vector<char> failed;
  /// Per step: 1 when it did not run because something it needs failed or its plugin is not built in.
  std::vector<char> step_failed;
  /// Per step: the run (null when it did not run).
  std::vector<std::shared_ptr<const StepRun>> runs;
  /// Per step: why it did not run ("" when it ran).
  std::vector<std::string> skipped;
  /// Per check: the verdict.
  std::vector<std::optional<std::pair<bool, std::string>>> checks;
  /// Comparisons made by cross-check steps.
  std::vector<CrossCheck> crosses;
  /// Errors of steps and expressions (the plan is incomplete when there are any), in the program's order: those of
  /// step_errors and line_errors, gathered after every evaluation, so a sweep point updated from the last reads the
  /// same errors as one evaluated afresh.
  std::vector<std::string> errors;
  /// Per step: the errors of its run (its failure, a cross-check's disagreements).
  std::vector<std::vector<std::string>> step_errors;
  /// Per line: the error its evaluation gave ("" when none).
  std::vector<std::string> line_errors;
};

/// Builds the chain for the spec's workload; problems in [[line]] expressions go to `problems`.
[[nodiscard]] Program build_program(const PlanSpec& spec, Problems& problems);

/// A quantity as text the unit parser reads back exactly ("1.4e+11 B", "5/s", "30 degC").
[[nodiscard]] std::string machine_text(const Quantity& q);
/// A cell as text for a plugin input.
[[nodiscard]] std::string cell_text(const Cell& c);

}  // namespace infracalc::plan
