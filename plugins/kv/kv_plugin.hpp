// The kv plugin descriptor.
#pragma once

#include "plugins/plugin.hpp"

namespace infracalc {

/// The kv plugin: KV-cache sizes.
[[nodiscard]] const Plugin& kv_plugin();

/// The kv reference kernels (defined in kv_kernels.cpp).
[[nodiscard]] std::vector<Kernel> kv_kernels();

}  // namespace infracalc
