// The kv plugin descriptor.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The kv plugin: KV-cache sizes, capacity, paging, prefix sharing, compression, offload and work.
[[nodiscard]] const Plugin& kv_plugin();
/// The kv plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* kv_plugin_with_only(std::string_view calculator);

/// The kv reference kernels (listed in kv_kernels.cpp).
[[nodiscard]] std::vector<Kernel> kv_kernels();

}  // namespace infracalc
