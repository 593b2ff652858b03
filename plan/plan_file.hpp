// Loading a plan file: the TOML scenario as text values with their positions, --set overrides, and
// validation that reports every problem at once (unknown keys, missing inputs, unit mistakes, unknown ids).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "plan/plan_schema.hpp"
#include "host/plugin.hpp"
#include "units/expected.hpp"

namespace infracalc::plan {

/// A value as written, with where it was written ("plan.toml:12:9", "--set", "default").
struct SpecValue {
  /// The text (numbers and booleans from TOML are turned into text).
  std::string text;
  /// Where it came from.
  std::string where;
};

/// A [[line]]: a worksheet line the user computes from other lines.
struct UserLine {
  /// Key (snake_case), referenced by others as @name.
  std::string name;
  /// The expression.
  std::string expr;
  /// Description.
  std::string label;
  /// Display unit ("kW"); empty for the default.
  std::string unit;
  /// Where it was written.
  std::string where;
};

/// One axis of a sweep: a key and its values (the key "variant" sweeps the [[variant]] tables).
struct SweepAxis {
  /// "section.key", or "variant".
  std::string key;
  /// The values in order.
  std::vector<SpecValue> values;
  /// Where the axis was given.
  std::string where;
};

/// A [[variant]]: a named set of overrides.
struct Variant {
  /// Its name (a sweep value of the "variant" axis).
  std::string name;
  /// The overrides, "section.key" to value.
  std::vector<std::pair<std::string, SpecValue>> sets;
  /// Where it was written.
  std::string where;
};

/// A scenario as loaded: values by path, extra lines, sweeps and report settings.
struct PlanSpec {
  /// The file it came from ("" for a plan built in memory).
  std::string file;
  /// "section.key" → value, in file order (a later entry for the same key replaces it).
  std::vector<std::pair<std::string, SpecValue>> values;
  /// [[line]] tables.
  std::vector<UserLine> lines;
  /// [sweep] axes (the command line adds more).
  std::vector<SweepAxis> sweeps;
  /// [[variant]] tables.
  std::vector<Variant> variants;
  /// [report] columns for sweep rows.
  std::vector<std::string> columns;
  /// [report] pareto keys.
  std::vector<std::string> pareto;
  /// True when the file is not valid TOML (nothing else is checked then).
  bool syntax_error = false;

  /// The value at a path, or nullptr.
  [[nodiscard]] const SpecValue* get(std::string_view path) const;
  /// Sets (or replaces) the value at a path.
  void set(const std::string& path, SpecValue v);
  /// Removes the value at a path.
  void erase(std::string_view path);
  /// The workload type ("serve", "train"), or "" when missing or invalid.
  [[nodiscard]] std::string mode() const;
};

/// One problem found while loading or validating.
struct Problem {
  /// "file:line:col", "--set key", or the file name alone.
  std::string where;
  /// What is wrong and how to fix it.
  Error error;
};

/// Several problems of one plan at once: `error` holds them joined by line breaks (a batch record's message),
/// `lines` one problem each, so the terminal writer escapes each line's text and keeps the breaks between them.
struct PlanProblems : UserError {
  /// One problem per entry, "where: message; hint: ...", then the count.
  std::vector<std::string> lines;
};

/// Problems collected during validation; reported together.
class Problems {
 public:
  /// Adds a problem.
  void add(std::string where, std::string message, std::string hint = {});
  /// True when there are none.
  [[nodiscard]] bool empty() const { return list_.empty(); }
  /// The problems in order.
  [[nodiscard]] const std::vector<Problem>& list() const { return list_; }
  /// All problems as text, one per line: "where: message; hint: ...".
  [[nodiscard]] std::string text() const;
  /// Throws a UserError that carries every problem (one per line) when there are any.
  void throw_if_any() const;

 private:
  std::vector<Problem> list_;
};

/// Parses TOML text into a spec; structural problems (unknown sections and keys, wrong value types) go to
/// `problems`. A TOML syntax error is a single problem.
[[nodiscard]] PlanSpec parse_plan_text(std::string_view text, const std::string& source, Problems& problems);
/// A plan file's text and the name its positions and output give it.
struct PlanText {
  /// The TOML text.
  std::string text;
  /// The path, or "(stdin)" for "-".
  std::string source;
};
/// Reads a plan file ("-": standard input); an unreadable file is a UserError.
[[nodiscard]] PlanText read_plan_text(const std::string& path);
/// Reads and parses a file; an unreadable file is a UserError.
[[nodiscard]] PlanSpec load_plan_file(const std::string& path, Problems& problems);
/// Applies "--set section.key=value" overrides (short keys accepted when unique); "section.key=" removes a value.
void apply_sets(PlanSpec& spec, const std::vector<std::string>& sets, Problems& problems);

/// A plan value parsed for its key: a Quantity, or text for ids, choices, text and "auto". Errors name `label`.
[[nodiscard]] Expected<Cell> parse_value(const KeyDef& key, const std::string& text, const std::string& label);
/// Checks that a catalog id exists with one of the key's kinds (and facility type); problems go to `problems`.
void check_catalog_id(const KeyDef& key, const std::string& id, const std::string& where, Problems& problems);

/// The catalog ids an id key accepts, each once in catalog order: the entries of its kinds, of its facility type where
/// it names one, and "auto" first where the key takes it (the what-if panel's list).
[[nodiscard]] std::vector<std::string> catalog_ids(const KeyDef& key);
/// Checks every value's type, unit, range and catalog id, and that what the workload needs is given (a key
/// swept on the command line, named in `swept`, or in the file's [sweep] or set by every [[variant]] counts as given).
void validate(const PlanSpec& spec, Problems& problems, const std::vector<std::string>& swept = {});

}  // namespace infracalc::plan
