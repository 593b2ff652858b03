// Declaring a chain: lines and steps are added in reading order by key; finish() resolves references,
// adds the user's [[line]]s and sorts everything into dependency order.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "plan/plan_model.hpp"

namespace infracalc::plan {

/// One output of a step and the line it becomes.
struct OutputSpec {
  /// The calculator's output key.
  std::string output;
  /// The line key (defaults to the output key).
  std::string key;
  /// What it is, worded for the worksheet; empty: the output's own help.
  std::string label{};
  /// Display unit; empty: the output's own unit hint.
  std::string unit{};
  /// In the summary.
  bool headline = false;
};

/// Adds lines and steps to a Program by key.
class ChainBuilder {
 public:
  /// Builds into `p`; problems in user lines go to `problems`.
  ChainBuilder(Program& p, Problems& problems) : p_(p), problems_(problems) {}

  /// Lines added from now on go to this sheet.
  void sheet(const std::string& name);
  /// An input line for a plan key; the line key defaults to the key's name.
  int input(std::string_view path, std::string key = {}, bool headline = false);
  /// A catalog quantity: field `field` of the entry named by line `id_key`.
  int catalog(std::string key, const std::string& id_key, std::string field, Dim dim, std::string label, std::string unit = {},
              bool dated = false, bool point = false);
  /// A catalog text field.
  int catalog_text(std::string key, const std::string& id_key, std::string field, std::string label);
  /// An expression line.
  int expr(std::string key, std::string formula, std::string label, std::string unit = {}, bool headline = false);
  /// The first of `options` with a value, else `fallback` (text; "" for none).
  int choice(std::string key, const std::vector<std::string>& options, std::string fallback, std::string label, std::string unit = {},
             bool headline = false);
  /// A planner rule over `deps`.
  int rule(std::string key, std::string description, const std::vector<std::string>& deps,
           std::function<std::optional<Cell>(RuleContext&)> fn, std::string label, std::string unit = {}, bool headline = false);
  /// A step: inputs are (input name, "@line" or literal text); outputs become lines of the step's sheet.
  /// `enable` names a line that must have a value (not "none") for the step to run.
  int step(std::string key, std::string plugin, std::string calculator, std::string purpose,
           const std::vector<std::pair<std::string, std::string>>& inputs, const std::vector<OutputSpec>& outputs,
           const std::string& enable = {});
  /// A cross-check: runs a plugin on lines and compares its outputs with lines computed by expressions.
  void cross_check(std::string key, std::string plugin, std::string calculator, std::string purpose,
                   const std::vector<std::pair<std::string, std::string>>& inputs,
                   const std::vector<std::pair<std::string, std::string>>& compare, const std::string& enable = {});
  /// A check.
  void check(std::string key, std::string label, const std::vector<std::string>& deps,
             std::function<std::optional<std::pair<bool, std::string>>(RuleContext&)> fn);
  /// Makes a rule also depend on the inputs of a step it runs itself (other than `except`).
  void uses_step(const std::string& rule_key, const std::string& step_key, const std::string& except);
  /// Marks a step as a helper run whose notes are not repeated in the report.
  void quiet(const std::string& step_key);
  /// Leaves out of the report the step's notes that begin with one of `prefixes`: they describe an input the
  /// planner passes only nominally, not the plan's values.
  void nominal_notes(const std::string& step_key, std::vector<std::string> prefixes);
  /// A note that holds for every evaluation.
  void note(std::string text) { p_.notes.push_back(std::move(text)); }
  /// True when this build has the plugin and calculator.
  [[nodiscard]] static bool available(std::string_view plugin, std::string_view calculator);
  /// The line index of a key (it must exist).
  [[nodiscard]] int line(const std::string& key) const;
  /// Adds the user's [[line]]s, resolves expression references and orders the program.
  void finish(const std::vector<UserLine>& user_lines);

 private:
  int add_line(Line l);
  int add_node_seq();

  Program& p_;
  Problems& problems_;
  std::string sheet_ = "inputs";
  std::vector<int> line_seq_, step_seq_;
  int seq_ = 0;
};

}  // namespace infracalc::plan
