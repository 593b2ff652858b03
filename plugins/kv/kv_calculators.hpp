// The kv calculators, one per file; kv_plugin.cpp assembles them into the plugin.
#pragma once

#include "host/plugin.hpp"

namespace infracalc::kv {

/// `kv size`: bytes per token and totals for any layout, per device under TP/PP.
[[nodiscard]] Calculator size_calculator();
/// `kv compare`: one model's cache under MHA, GQA, MQA and MLA side by side.
[[nodiscard]] Calculator compare_calculator();
/// `kv capacity`: tokens, batch and context that fit beside the weights.
[[nodiscard]] Calculator capacity_calculator();
/// `kv paged`: a PagedAttention block-allocator simulation of a request stream.
[[nodiscard]] Calculator paged_calculator();
/// `kv prefix`: shared-prefix blocks and prompt-cache break-even.
[[nodiscard]] Calculator prefix_calculator();
/// `kv compress`: quantized, evicting and encoded caches and their growth.
[[nodiscard]] Calculator compress_calculator();
/// `kv offload`: HBM, DRAM, CXL and NVMe tiers and the cost of moving a cache.
[[nodiscard]] Calculator offload_calculator();
/// `kv ladder`: SRAM, HBM, DRAM, CXL, NVMe and network storage against each other, and the CXL latency budget.
[[nodiscard]] Calculator ladder_calculator();
/// `kv work`: projections with and without a cache, reads per step.
[[nodiscard]] Calculator work_calculator();

}  // namespace infracalc::kv
