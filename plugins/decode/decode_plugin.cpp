#include "plugins/decode/decode_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/decode/decode_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "decode";
constexpr std::string_view kDoc = "docs/decode.md";

// The calculators in the order `infracalc decode --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 11> kCalculators = {{
    {"roofline", &decode::roofline_calculator},
    {"ceiling", &decode::ceiling_calculator},
    {"prefill", &decode::prefill_calculator},
    {"tp", &decode::tp_calculator},
    {"attention", &decode::attention_calculator},
    {"speculative", &decode::speculative_calculator},
    {"moe", &decode::moe_calculator},
    {"breakdown", &decode::breakdown_calculator},
    {"timeline", &decode::timeline_calculator},
    {"sample", &decode::sample_calculator},
    {"offload", &decode::offload_calculator},
}};

}  // namespace

const Plugin& decode_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, decode_kernels());
  return p;
}

const Plugin* decode_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
