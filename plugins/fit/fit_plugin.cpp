#include "plugins/fit/fit_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/fit/fit_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "fit";
constexpr std::string_view kDoc = "docs/fit.md";

// The calculators in the order `infracalc fit --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 5> kCalculators = {{
    {"weights", &fit::weights_calculator},
    {"inference", &fit::inference_calculator},
    {"train", &fit::train_calculator},
    {"rlhf", &fit::rlhf_calculator},
    {"finetune", &fit::finetune_calculator},
}};

}  // namespace

const Plugin& fit_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, fit_kernels());
  return p;
}

const Plugin* fit_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
