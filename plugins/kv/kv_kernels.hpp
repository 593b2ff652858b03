// The kv reference kernels, one file each; kv_kernels.cpp lists them.
#pragma once

#include <vector>

#include "host/plugin.hpp"

namespace infracalc::kv {

/// Real per-layer K/V (or MLA latent) buffers, sliding windows as ring buffers, quantized elements with
/// their scales, split over tensor- and pipeline-parallel devices, counted against kv::cache_size.
[[nodiscard]] std::vector<KernelCheck> run_buffers_kernel(const KernelOptions& opt);

/// The paged block allocator and scheduler on request streams with closed-form block counts.
[[nodiscard]] std::vector<KernelCheck> run_paged_kernel(const KernelOptions& opt);

/// Copy-on-write prefix sharing on the real allocator against kv::prefix_blocks.
[[nodiscard]] std::vector<KernelCheck> run_prefix_kernel(const KernelOptions& opt);

/// Attention decode reading K/V through a block table against the same decode on a contiguous cache.
[[nodiscard]] std::vector<KernelCheck> run_attention_kernel(const KernelOptions& opt);

/// Live eviction (StreamingLLM, H2O, SnapKV) on a decoding cache against kv::retained_positions.
[[nodiscard]] std::vector<KernelCheck> run_evict_kernel(const KernelOptions& opt);

/// A decode loop with and without a cache, counting projections and reads, against kv::projection_work.
[[nodiscard]] std::vector<KernelCheck> run_work_kernel(const KernelOptions& opt);

/// A scaled-down hybrid decodes with real per-sequence Mamba conv and SSM state buffers: the state stays the
/// same size however many tokens pass, and equals cache_size's ssm_state_per_sequence.
[[nodiscard]] std::vector<KernelCheck> run_ssm_kernel(const KernelOptions& opt);

}  // namespace infracalc::kv
