// Helpers for the planner's unit tests: load a plan (a file or TOML text) and evaluate it.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "plan/plan_eval.hpp"
#include "plan/plan_file.hpp"
#include "plan/plan_model.hpp"

namespace plan_test {

/// The repository root (from this file's path, as the other tests find their fixtures).
inline std::filesystem::path root() { return std::filesystem::path(__FILE__).parent_path().parent_path().parent_path(); }

/// A plan loaded, validated, built and evaluated.
struct Loaded {
  infracalc::plan::PlanSpec spec;
  infracalc::plan::Problems problems;
  std::unique_ptr<infracalc::plan::Program> program;
  std::unique_ptr<infracalc::plan::Evaluator> ev;
  infracalc::plan::InputSet in;
  infracalc::plan::Sheet sheet;

  /// A line's quantity (fails the test when it has none).
  [[nodiscard]] double q(const std::string& key) const;
  /// True when a line has a value.
  [[nodiscard]] bool has(const std::string& key) const;
  /// A line's text.
  [[nodiscard]] std::string text(const std::string& key) const;
};

/// Loads TOML text (sets and validation included); evaluates when there are no problems.
std::unique_ptr<Loaded> load_text(const std::string& toml, const std::vector<std::string>& sets = {});
/// Loads an example file by name ("llama3-70b-h100.toml").
std::unique_ptr<Loaded> load_example(const std::string& name, const std::vector<std::string>& sets = {});

}  // namespace plan_test
