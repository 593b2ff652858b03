// The fit plugin descriptor.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The fit plugin: will a model fit, and on how many devices (inference, training, RLHF).
[[nodiscard]] const Plugin& fit_plugin();
/// The fit plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* fit_plugin_with_only(std::string_view calculator);

/// The fit reference kernels (defined in fit_kernels.cpp).
[[nodiscard]] std::vector<Kernel> fit_kernels();

}  // namespace infracalc
