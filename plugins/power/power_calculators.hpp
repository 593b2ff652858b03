// The power plugin's calculators, one calc_<name>.cpp each (internal to the plugin: the descriptor lists them).
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// `power rack` (calc_rack.cpp).
[[nodiscard]] Calculator power_rack_calculator();
/// `power distribution` (calc_distribution.cpp).
[[nodiscard]] Calculator power_distribution_calculator();
/// `power energy` (calc_energy.cpp).
[[nodiscard]] Calculator power_energy_calculator();
/// `power grid` (calc_grid.cpp).
[[nodiscard]] Calculator power_grid_calculator();

}  // namespace infracalc
