// The formats plugin descriptor.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The formats plugin: number formats, their codes, storage cost and quantization error.
[[nodiscard]] const Plugin& formats_plugin();

/// The formats reference kernels (defined in formats_kernels.cpp).
[[nodiscard]] std::vector<Kernel> formats_kernels();

}  // namespace infracalc
