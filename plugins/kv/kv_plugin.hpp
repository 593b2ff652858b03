// The kv plugin descriptor.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The kv plugin: KV-cache sizes, capacity, paging, prefix sharing, compression, offload and work.
[[nodiscard]] const Plugin& kv_plugin();

/// The kv reference kernels (listed in kv_kernels.cpp).
[[nodiscard]] std::vector<Kernel> kv_kernels();

}  // namespace infracalc
