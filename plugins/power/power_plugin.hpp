// The power plugin descriptor: rack and row power, supply current and loss, energy and its bill,
// energy per token, and grid load swings.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The power plugin.
[[nodiscard]] const Plugin& power_plugin();
/// The power plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* power_plugin_with_only(std::string_view calculator);

/// The power reference kernels (defined in power_kernels.cpp).
[[nodiscard]] std::vector<Kernel> power_kernels();

}  // namespace infracalc
