// libFuzzer target: a plan file evaluated over a sweep, end to end. The file goes through the loader and
// validator; a plan without problems is evaluated at every point of the file's [sweep] (or of one axis the
// fuzzer's bytes choose) through the same streaming path as `infracalc plan --sweep`, with the grid capped at
// kMaxPoints so that one execution stays within a second (a serving step runs the simulator). fuzz_plan covers
// the loader alone at full speed.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_plan_load.hpp"
#include "units/expected.hpp"

namespace {
constexpr double kMaxPoints = 8;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16384) return 0;
  using namespace infracalc::plan;
  Problems problems;
  const FuzzPlan p = load_fuzz_plan(std::string(reinterpret_cast<const char*>(data), size), {}, problems);
  if (p.syntax_error || !problems.empty()) return 0;
  const PlanSpec& spec = p.spec;
  const Program& program = p.program;
  const InputSet& in = p.in;
  const SweepPlan& sweep = p.sweep;
  Evaluator ev(program, {});
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
