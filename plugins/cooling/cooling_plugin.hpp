// The cooling plugin descriptor: heat flux at the die, technology by rack density, coolant flow and
// rise, pressure drop and pumping, CDU sizing, facility metrics (PUE, WUE, CUE, ERE) and carbon.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The cooling plugin.
[[nodiscard]] const Plugin& cooling_plugin();

/// The cooling reference kernels (cooling_kernels.cpp).
[[nodiscard]] std::vector<Kernel> cooling_kernels();

}  // namespace infracalc
