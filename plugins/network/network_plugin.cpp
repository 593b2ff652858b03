#include "plugins/network/network_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/network/network_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "network";
constexpr std::string_view kDoc = "docs/network.md";

// The calculators in the order `infracalc network --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 11> kCalculators = {{
    {"link", &net::make_link_calculator},
    {"energy", &net::make_energy_calculator},
    {"fabric", &net::make_fabric_calculator},
    {"su", &net::make_su_calculator},
    {"topology", &net::make_topology_calculator},
    {"nics", &net::make_nics_calculator},
    {"scaleup", &net::make_scaleup_calculator},
    {"switch", &net::make_switch_calculator},
    {"optics", &net::make_optics_calculator},
    {"reach", &net::make_reach_calculator},
    {"allreduce", &net::make_allreduce_calculator},
}};

}  // namespace

const Plugin& network_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, network_kernels());
  return p;
}

const Plugin* network_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
