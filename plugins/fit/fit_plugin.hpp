// The fit plugin descriptor.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The fit plugin: will a model fit, and on how many devices (inference, training, RLHF).
[[nodiscard]] const Plugin& fit_plugin();

/// The fit reference kernels (defined in fit_kernels.cpp).
[[nodiscard]] std::vector<Kernel> fit_kernels();

}  // namespace infracalc
