#include "plugins/power/power_plugin.hpp"

#include "plugins/power/power_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_power_plugin() {
  Plugin p;
  p.name = "power";
  p.doc = "docs/power.md";
  p.calculators.push_back(power_rack_calculator());
  p.calculators.push_back(power_distribution_calculator());
  p.calculators.push_back(power_energy_calculator());
  p.calculators.push_back(power_grid_calculator());
  p.kernels = power_kernels();
  return p;
}

}  // namespace

const Plugin& power_plugin() {
  static const Plugin p = make_power_plugin();
  return p;
}

}  // namespace infracalc
