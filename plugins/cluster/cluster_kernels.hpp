// The cluster reference kernels, one kernel_<name>.cpp each; cluster_kernels.cpp lists them.
#pragma once

#include <vector>

#include "host/plugin.hpp"

namespace infracalc::cluster {

/// Ring, binomial-tree and in-network all-reduce among threads on real buffers: steps, bytes and the sums.
[[nodiscard]] std::vector<KernelCheck> run_allreduce_kernel(const KernelOptions& opt);

/// GPipe, 1F1B and interleaved schedules executed step by step: bubble and activations in flight.
[[nodiscard]] std::vector<KernelCheck> run_pipeline_kernel(const KernelOptions& opt);

/// Monte Carlo of failures at scale: fleet MTBF from individual accelerators, and a checkpoint-restart run
/// against Daly's expected wall time and the expected loss per failure.
[[nodiscard]] std::vector<KernelCheck> run_failures_kernel(const KernelOptions& opt);

/// √n activation checkpointing on a real chain of layers: kept inputs, peak, recomputation, gradients.
[[nodiscard]] std::vector<KernelCheck> run_recompute_kernel(const KernelOptions& opt);

/// Seeded MoE routing against the binomial closed form for the share of tokens dropped.
[[nodiscard]] std::vector<KernelCheck> run_routing_kernel(const KernelOptions& opt);

}  // namespace infracalc::cluster
