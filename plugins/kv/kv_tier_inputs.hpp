// The inputs of the memory and storage tiers (HBM, host DRAM, CXL memory, NVMe): capacity, bandwidth and latency of
// each, with the defaults docs/kv.md sources. `kv offload` and `kv ladder` take the same flags.
#pragma once

#include <vector>

#include "host/plugin.hpp"

namespace infracalc::kv {

/// hbm_capacity, hbm_reserved, hbm_bandwidth, hbm_latency, then capacity, bandwidth and latency of dram, cxl and nvme.
[[nodiscard]] std::vector<Input> tier_inputs();

}  // namespace infracalc::kv
