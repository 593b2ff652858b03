#include "plugins/kv/kv_offload.hpp"

namespace infracalc::kv {

// A latency-bandwidth (alpha-beta) model of a transfer: the fixed access cost plus the streaming time
// (Hockney 1994, "The communication challenge for MPP: Intel Paragon and Meiko CS-2").
Seconds transfer_time(const Tier& t, Bytes bytes) { return t.latency + bytes / t.bandwidth; }

Seconds transfer_time(const Tier& t, Bytes bytes, double transfers) { return transfers * t.latency + bytes / t.bandwidth; }

int first_fit(const std::vector<Tier>& tiers, Bytes bytes) {
  for (std::size_t i = 0; i < tiers.size(); ++i)
    if (bytes <= tiers[i].capacity) return static_cast<int>(i);
  return -1;
}

}  // namespace infracalc::kv
