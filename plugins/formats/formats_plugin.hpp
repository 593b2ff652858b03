// The formats plugin descriptor.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The formats plugin: number formats, their codes, storage cost and quantization error.
[[nodiscard]] const Plugin& formats_plugin();
/// The formats plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* formats_plugin_with_only(std::string_view calculator);

/// The formats reference kernels (defined in formats_kernels.cpp).
[[nodiscard]] std::vector<Kernel> formats_kernels();

}  // namespace infracalc
