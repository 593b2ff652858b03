// libFuzzer target: a plan file evaluated over a sweep, end to end. The file goes through the loader and
// validator; a plan without problems is evaluated at every point of the file's [sweep] (or of one axis the
// fuzzer's bytes choose) through the same streaming path as `infracalc plan --sweep`, with the grid capped at
// kMaxPoints so that one execution stays within a second (a serving step runs the simulator). fuzz_plan covers
// the loader alone at full speed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli/plan_eval.hpp"
#include "cli/plan_file.hpp"
#include "cli/plan_sweep.hpp"
#include "units/expected.hpp"

namespace {
constexpr double kMaxPoints = 8;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  using namespace infracalc::plan;
  const std::string text(reinterpret_cast<const char*>(data), size);
  Problems problems;
  PlanSpec spec = parse_plan_text(text, "fuzz.toml", problems);
  if (spec.syntax_error) return 0;
  validate(spec, problems);
  if (!problems.empty()) return 0;
  const Program program = build_program(spec, problems);
  if (!problems.empty()) return 0;
  Evaluator ev(program, {});
  const InputSet in = ev.inputs(spec, problems);
  const SweepPlan sweep = make_sweep(spec, program, {}, "", "", problems);
  if (!problems.empty()) return 0;
  double points = 1;
  for (const auto& a : sweep.axes) points *= static_cast<double>(a.size());
  if (points > kMaxPoints) return 0;
  try {
    SweepStats stats;
    SweepTally tally(program);
    ParetoFront front(sweep);
    std::vector<SweepRow> rows;
    run_sweep(ev, spec, in, sweep, stats, [&](SweepRow&& r) {
      tally.add(r);
      rows.push_back(r);
      front.add(std::move(r));
    });
    (void)front.take_rows();
    (void)tally.text();
    (void)render_sweep(program, sweep, rows, {});
  } catch (const infracalc::UserError&) {
    // Bad input reported as an error is the intended outcome; only crashes and sanitizer reports count.
  }
  return 0;
}
