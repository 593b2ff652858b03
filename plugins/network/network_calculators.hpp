// The calculators of the network plugin, one factory per file.
#pragma once

#include "host/plugin.hpp"

namespace infracalc::net {

/// `network link`: lane, link and device rates, bits and bytes, directions, encodings, SerDes; --compare.
[[nodiscard]] Calculator make_link_calculator();
/// `network energy`: pJ/bit and watts, optics technologies, fabric optics and switch watts, wire energy.
[[nodiscard]] Calculator make_energy_calculator();
/// `network fabric`: fat-tree / Clos and rail-optimised switch, link, cable and transceiver counts.
[[nodiscard]] Calculator make_fabric_calculator();
/// `network su`: NVIDIA-style scalable units and halls with their network.
[[nodiscard]] Calculator make_su_calculator();
/// `network topology`: bisection, diameter and average hops of ring, torus, mesh, fat-tree, dragonfly, ...
[[nodiscard]] Calculator make_topology_calculator();
/// `network nics`: NIC bandwidth per node against the scale-up domain, packet and crypto budgets.
[[nodiscard]] Calculator make_nics_calculator();
/// `network scaleup`: a switched scale-up domain (NVL72): switch chips, trays, links and bandwidth.
[[nodiscard]] Calculator make_scaleup_calculator();
/// `network switch`: switch ASIC capacity, radix at a port speed, SerDes lanes, --compare.
[[nodiscard]] Calculator make_switch_calculator();
/// `network optics`: WDM and photonic I/O arithmetic, ring-modulator thermal budget.
[[nodiscard]] Calculator make_optics_calculator();
/// `network reach`: copper or optics for a lane rate and a distance.
[[nodiscard]] Calculator make_reach_calculator();
/// `network allreduce`: a real ring all-reduce over given values, wire bytes of ring, tree and in-network.
[[nodiscard]] Calculator make_allreduce_calculator();

}  // namespace infracalc::net
