#include "plugins/cooling/cooling_plugin.hpp"

#include "plugins/cooling/cooling_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_cooling_plugin() {
  Plugin p;
  p.name = "cooling";
  p.doc = "docs/cooling.md";
  p.calculators.push_back(cooling_flux_calculator());
  p.calculators.push_back(cooling_choose_calculator());
  p.calculators.push_back(cooling_flow_calculator());
  p.calculators.push_back(cooling_pressure_calculator());
  p.calculators.push_back(cooling_cdu_calculator());
  p.calculators.push_back(cooling_loop_calculator());
  p.calculators.push_back(cooling_facility_calculator());
  p.calculators.push_back(cooling_fleet_calculator());
  p.calculators.push_back(cooling_carbon_calculator());
  p.calculators.push_back(cooling_climate_calculator());
  p.kernels = cooling_kernels();
  return p;
}

}  // namespace

const Plugin& cooling_plugin() {
  static const Plugin p = make_cooling_plugin();
  return p;
}

}  // namespace infracalc
