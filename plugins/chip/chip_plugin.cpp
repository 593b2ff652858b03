#include "plugins/chip/chip_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/chip/chip_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "chip";
constexpr std::string_view kDoc = "docs/chip.md";

// The calculators in the order `infracalc chip --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 3> kCalculators = {{
    {"peak", &chip_peak_calculator},
    {"sram", &chip_sram_calculator},
    {"wafer", &chip_wafer_calculator},
}};

}  // namespace

const Plugin& chip_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, chip_kernels());
  return p;
}

const Plugin* chip_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
