#include "plugins/power/power_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/power/power_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "power";
constexpr std::string_view kDoc = "docs/power.md";

// The calculators in the order `infracalc power --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 4> kCalculators = {{
    {"rack", &power_rack_calculator},
    {"distribution", &power_distribution_calculator},
    {"energy", &power_energy_calculator},
    {"grid", &power_grid_calculator},
}};

}  // namespace

const Plugin& power_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, power_kernels());
  return p;
}

const Plugin* power_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
