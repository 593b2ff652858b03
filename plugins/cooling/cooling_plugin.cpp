#include "plugins/cooling/cooling_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/cooling/cooling_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "cooling";
constexpr std::string_view kDoc = "docs/cooling.md";

// The calculators in the order `infracalc cooling --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 10> kCalculators = {{
    {"flux", &cooling_flux_calculator},
    {"choose", &cooling_choose_calculator},
    {"flow", &cooling_flow_calculator},
    {"pressure", &cooling_pressure_calculator},
    {"cdu", &cooling_cdu_calculator},
    {"loop", &cooling_loop_calculator},
    {"facility", &cooling_facility_calculator},
    {"fleet", &cooling_fleet_calculator},
    {"carbon", &cooling_carbon_calculator},
    {"climate", &cooling_climate_calculator},
}};

}  // namespace

const Plugin& cooling_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, cooling_kernels());
  return p;
}

const Plugin* cooling_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
