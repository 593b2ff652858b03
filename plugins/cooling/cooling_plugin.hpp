// The cooling plugin descriptor: heat flux at the die, technology by rack density, coolant flow and
// rise, pressure drop and pumping, CDU sizing, facility metrics (PUE, WUE, CUE, ERE) and carbon.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The cooling plugin.
[[nodiscard]] const Plugin& cooling_plugin();
/// The cooling plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* cooling_plugin_with_only(std::string_view calculator);

/// The cooling reference kernels (cooling_kernels.cpp).
[[nodiscard]] std::vector<Kernel> cooling_kernels();

}  // namespace infracalc
