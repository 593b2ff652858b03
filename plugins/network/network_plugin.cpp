#include "plugins/network/network_plugin.hpp"

#include "plugins/network/network_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_network_plugin() {
  Plugin p;
  p.name = "network";
  p.doc = "docs/network.md";
  p.calculators = {net::make_link_calculator(), net::make_energy_calculator(), net::make_fabric_calculator(), net::make_su_calculator(), net::make_topology_calculator(),
                   net::make_nics_calculator(),   net::make_scaleup_calculator(), net::make_switch_calculator(),
                   net::make_optics_calculator(), net::make_reach_calculator(),   net::make_allreduce_calculator()};
  p.kernels = network_kernels();
  return p;
}

}  // namespace

const Plugin& network_plugin() {
  static const Plugin p = make_network_plugin();
  return p;
}

}  // namespace infracalc
