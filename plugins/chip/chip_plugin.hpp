// The chip plugin descriptor: chip anatomy, the arithmetic from matrix units, SRAM and wafers to the
// figures on a datasheet.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The chip plugin.
[[nodiscard]] const Plugin& chip_plugin();
/// The chip plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* chip_plugin_with_only(std::string_view calculator);

/// The chip reference kernels (defined in chip_kernels.cpp).
[[nodiscard]] std::vector<Kernel> chip_kernels();

}  // namespace infracalc
