// What a serving engine keeps out of device memory before weights and KV cache: one definition for
// `kv capacity` and `fit inference` (and through fit, `serve` and `plan`). Planning defaults, not measurements;
// docs/fit.md gives their sources.
#pragma once

#include <string_view>

namespace infracalc::kv {

/// Share of device memory the engine may use: vLLM's gpu_memory_utilization default.
inline constexpr std::string_view kMemoryUtilization = "0.9";
/// CUDA context (about 0.5 GB on Hopper), cuBLAS/cuDNN workspaces, CUDA-graph pools and allocator slack per device.
inline constexpr std::string_view kFrameworkReserve = "1.5GB";
/// NCCL and all-reduce buffers per device when the model spans more than one device.
inline constexpr std::string_view kCommBuffers = "0.5GB";

}  // namespace infracalc::kv
