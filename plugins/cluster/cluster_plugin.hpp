// The cluster plugin descriptor.
#pragma once

#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// The cluster plugin: training compute, parallel layouts, collectives, pipelines, experts, failures,
/// checkpoints and fleet arithmetic.
[[nodiscard]] const Plugin& cluster_plugin();
/// The cluster plugin holding only the calculator called `calculator`, or nullptr when it has none by that name.
[[nodiscard]] const Plugin* cluster_plugin_with_only(std::string_view calculator);

/// The cluster reference kernels.
[[nodiscard]] std::vector<Kernel> cluster_kernels();

}  // namespace infracalc
