// The chip plugin descriptor: chip anatomy, the arithmetic from matrix units, SRAM and wafers to the
// figures on a datasheet.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The chip plugin.
[[nodiscard]] const Plugin& chip_plugin();

/// The chip reference kernels (defined in chip_kernels.cpp).
[[nodiscard]] std::vector<Kernel> chip_kernels();

}  // namespace infracalc
