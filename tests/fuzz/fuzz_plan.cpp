// libFuzzer target: a plan file through the TOML reader, the plan loader and validator, the chain builder
// (with the file's [[line]] expressions), the input set and the sweep and report parser. The chain is not
// evaluated here: a valid serving plan runs the serve simulator (tens of milliseconds), which would hold the
// fuzzer to a few executions a second; the calculators behind each step get arbitrary inputs from
// fuzz_batch, and tests/plan runs every example plan end to end.
#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fuzz/fuzz_plan_load.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 65536) return 0;
  using namespace infracalc::plan;
  Problems problems;
  const FuzzPlan p = load_fuzz_plan(std::string(reinterpret_cast<const char*>(data), size), {"workload.rate=20/s"}, problems);
  (void)p;
  (void)problems.text();
  return 0;
}
