// Shared by the plan fuzz targets: a plan text through the loader, validator, chain builder, input set and
// sweep parser, as `infracalc plan` does before it evaluates anything.
#pragma once

#include <string>
#include <vector>

#include "plan/plan_eval.hpp"
#include "plan/plan_file.hpp"
#include "plan/plan_sweep.hpp"

namespace infracalc::plan {

/// A plan as far as the loader takes it; `problems` says what it found.
struct FuzzPlan {
  /// The parsed file.
  PlanSpec spec;
  /// The chain built from it.
  Program program;
  /// The input values.
  InputSet in;
  /// The file's sweep.
  SweepPlan sweep;
  /// Whether the TOML did not parse (nothing else was built).
  bool syntax_error = false;
};

/// Loads `text` as a plan, with `sets` applied as --set would, collecting problems.
inline FuzzPlan load_fuzz_plan(const std::string& text, const std::vector<std::string>& sets, Problems& problems) {
  FuzzPlan p;
  p.spec = parse_plan_text(text, "fuzz.toml", problems);
  if (p.spec.syntax_error) {
    p.syntax_error = true;
    return p;
  }
  apply_sets(p.spec, sets, problems);
  validate(p.spec, problems);
  p.program = build_program(p.spec, problems);
  Evaluator ev(p.program, {});
  p.in = ev.inputs(p.spec, problems);
  p.sweep = make_sweep(p.spec, p.program, {}, "", "", problems);
  return p;
}

}  // namespace infracalc::plan
