#include "plugins/tco/tco_plugin.hpp"

#include "plugins/tco/tco_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_tco_plugin() {
  Plugin p;
  p.name = "tco";
  p.doc = "docs/tco.md";
  p.calculators.push_back(tco::hour_calculator());
  p.calculators.push_back(tco::facility_calculator());
  p.calculators.push_back(tco::energy_calculator());
  p.calculators.push_back(tco::siting_calculator());
  p.calculators.push_back(tco::ledger_calculator());
  p.kernels = tco_kernels();
  return p;
}

}  // namespace

const Plugin& tco_plugin() {
  static const Plugin p = make_tco_plugin();
  return p;
}

}  // namespace infracalc
