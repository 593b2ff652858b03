// The network plugin descriptor.
#pragma once

#include <vector>

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The network plugin: links, energy per bit, fabrics, scalable units, topologies, NICs, switches, optics.
[[nodiscard]] const Plugin& network_plugin();
/// The network plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* network_plugin_with_only(std::string_view calculator);

/// The network reference kernels (defined in network_kernels.cpp).
[[nodiscard]] std::vector<Kernel> network_kernels();

}  // namespace infracalc
