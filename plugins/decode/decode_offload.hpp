// Decode with part of the weights (and optionally of the KV cache) in host memory: what stays on the device,
// what crosses the host link every step, and how the two times combine.
#pragma once

#include <optional>

#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_math.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// Where one device's weights and KV cache live.
struct OffloadPlacement {
  /// Weight bytes held in device memory.
  Bytes weights_resident;
  /// Weight bytes held in host memory.
  Bytes weights_offloaded;
  /// KV-cache bytes held in device memory.
  Bytes kv_resident;
  /// KV-cache bytes held in host memory.
  Bytes kv_offloaded;

  /// Everything in host memory.
  [[nodiscard]] Bytes offloaded() const { return weights_offloaded + kv_offloaded; }
};

/// Places `weights` and `kv` in `budget` (device memory left after the reserve): the cache stays on the device
/// and the weights that do not fit go to host memory; with `offload_kv`, once every weight is on the host the
/// cache spills too. nullopt when the cache alone passes the budget and may not spill.
[[nodiscard]] std::optional<OffloadPlacement> place_offload(Bytes budget, Bytes weights, Bytes kv, bool offload_kv);

/// Bytes one step reads from host memory over the link: every offloaded weight (the router has not run when the
/// transfer must start, so no expert can be skipped) and the offloaded share of the step's KV reads.
[[nodiscard]] Bytes streamed_bytes(const OffloadPlacement& p, const StepDetail& d);

/// The step's device-memory traffic without what comes over the link: weight reads in proportion to the share of
/// the weights offloaded, and the offloaded share of the KV reads. The operations are unchanged.
[[nodiscard]] StepCost resident_cost(const OffloadPlacement& p, const StepDetail& d);

/// A decode step split between device memory and the host link.
struct OffloadStep {
  /// The step as the device runs it on what is resident (the decode ceiling's step time of that traffic).
  Seconds device;
  /// Streamed bytes / host-link bandwidth.
  Seconds link;
  /// max(device, link) with prefetch (the next layer's transfer overlaps this layer's compute), else their sum.
  Seconds total;
};

/// Combines the device's time with the link's: max with `prefetch`, sum without.
[[nodiscard]] OffloadStep offload_step(Seconds device, Bytes streamed, BytesPerSecond host_bandwidth, bool prefetch);

}  // namespace infracalc::decode
