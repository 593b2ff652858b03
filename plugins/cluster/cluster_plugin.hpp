// The cluster plugin descriptor.
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// The cluster plugin: training compute, parallel layouts, collectives, pipelines, experts, failures,
/// checkpoints and fleet arithmetic.
[[nodiscard]] const Plugin& cluster_plugin();

/// The cluster reference kernels.
[[nodiscard]] std::vector<Kernel> cluster_kernels();

}  // namespace infracalc
