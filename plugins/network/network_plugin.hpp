// The network plugin descriptor.
#pragma once

#include <vector>

#include "host/plugin.hpp"

namespace infracalc {

/// The network plugin: links, energy per bit, fabrics, scalable units, topologies, NICs, switches, optics.
[[nodiscard]] const Plugin& network_plugin();

/// The network reference kernels (defined in network_kernels.cpp).
[[nodiscard]] std::vector<Kernel> network_kernels();

}  // namespace infracalc
