#include "plugins/tco/tco_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/tco/tco_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "tco";
constexpr std::string_view kDoc = "docs/tco.md";

// The calculators in the order `infracalc tco --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 5> kCalculators = {{
    {"hour", &tco::hour_calculator},
    {"facility", &tco::facility_calculator},
    {"energy", &tco::energy_calculator},
    {"siting", &tco::siting_calculator},
    {"ledger", &tco::ledger_calculator},
}};

}  // namespace

const Plugin& tco_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, tco_kernels());
  return p;
}

const Plugin* tco_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
