#include "plugins/cost/cost_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/cost/cost_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "cost";
constexpr std::string_view kDoc = "docs/cost.md";

// The calculators in the order `infracalc cost --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 5> kCalculators = {{
    {"token", &cost::token_calculator},
    {"answer", &cost::answer_calculator},
    {"task", &cost::task_calculator},
    {"cache", &cost::cache_calculator},
    {"train", &cost::train_calculator},
}};

}  // namespace

const Plugin& cost_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, cost_kernels());
  return p;
}

const Plugin* cost_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
