// The power plugin descriptor: rack and row power, supply current and loss, energy and its bill,
// energy per token, and grid load swings.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The power plugin.
[[nodiscard]] const Plugin& power_plugin();

/// The power reference kernels (defined in power_kernels.cpp).
[[nodiscard]] std::vector<Kernel> power_kernels();

/// `power rack` (power_rack.cpp).
[[nodiscard]] Calculator power_rack_calculator();
/// `power distribution` (power_distribution.cpp).
[[nodiscard]] Calculator power_distribution_calculator();
/// `power energy` (power_energy.cpp).
[[nodiscard]] Calculator power_energy_calculator();
/// `power grid` (power_grid.cpp).
[[nodiscard]] Calculator power_grid_calculator();

}  // namespace infracalc
