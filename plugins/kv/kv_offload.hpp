// Where a KV cache can live (HBM, host DRAM, CXL memory, NVMe) and what moving it costs.
#pragma once

#include <string>
#include <vector>

#include "units/system.hpp"

namespace infracalc::kv {

/// One memory or storage tier as the accelerator sees it.
struct Tier {
  /// Name ("hbm", "dram", "cxl", "nvme").
  std::string name;
  /// Capacity available for KV.
  Bytes capacity;
  /// Bandwidth between the tier and the accelerator.
  BytesPerSecond bandwidth;
  /// Access latency of the tier (paid once per transfer).
  Seconds latency;
};

/// Time to move `bytes` in one transfer: latency + bytes / bandwidth.
[[nodiscard]] Seconds transfer_time(const Tier& t, Bytes bytes);

/// Time to move `bytes` as `transfers` separate transfers that do not overlap (each pays the latency).
[[nodiscard]] Seconds transfer_time(const Tier& t, Bytes bytes, double transfers);

/// The first tier (in the given order, fastest first) whose capacity holds `bytes`, or -1.
[[nodiscard]] int first_fit(const std::vector<Tier>& tiers, Bytes bytes);

}  // namespace infracalc::kv
