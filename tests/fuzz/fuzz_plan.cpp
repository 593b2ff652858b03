// libFuzzer target: a plan file through the TOML reader, the plan loader and validator, the chain builder
// (with the file's [[line]] expressions), the input set and the sweep and report parser. The chain is not
// evaluated here: a valid serving plan runs the serve simulator (tens of milliseconds), which would hold the
// fuzzer to a few executions a second; the calculators behind each step get arbitrary inputs from
// fuzz_batch, and tests/plan runs every example plan end to end.
#include <cstddef>
#include <cstdint>
#include <string>

#include "cli/plan_eval.hpp"
#include "cli/plan_file.hpp"
#include "cli/plan_sweep.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  using namespace infracalc::plan;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Problems problems;
  PlanSpec spec = parse_plan_text(text, "fuzz.toml", problems);
  if (spec.syntax_error) return 0;
  apply_sets(spec, {"workload.rate=20/s"}, problems);
  validate(spec, problems);
  const Program program = build_program(spec, problems);
  Evaluator ev(program, {});
  const InputSet in = ev.inputs(spec, problems);
  const SweepPlan sweep = make_sweep(spec, program, {}, "", "", problems);
  (void)sweep;
  (void)in;
  (void)problems.text();
  return 0;
}
