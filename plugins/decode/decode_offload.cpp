#include "plugins/decode/decode_offload.hpp"

#include <algorithm>

namespace infracalc::decode {

namespace {

// The share of `part` in `whole`, 0 when there is nothing.
double part_share(Bytes part, Bytes whole) { return whole.value() > 0 ? part.value() / whole.value() : 0.0; }

}  // namespace

std::optional<OffloadPlacement> place_offload(Bytes budget, Bytes weights, Bytes kv, bool offload_kv) {
  const Bytes zero{};
  const Bytes room = std::max(budget, zero);
  if (kv > room && !offload_kv) return std::nullopt;
  OffloadPlacement p;
  p.kv_resident = std::min(kv, room);
  p.kv_offloaded = kv - p.kv_resident;
  p.weights_resident = std::min(weights, room - p.kv_resident);
  p.weights_offloaded = weights - p.weights_resident;
  return p;
}

Bytes streamed_bytes(const OffloadPlacement& p, const StepDetail& d) {
  return p.weights_offloaded + part_share(p.kv_offloaded, p.kv_resident + p.kv_offloaded) * d.kv_read;
}

StepCost resident_cost(const OffloadPlacement& p, const StepDetail& d) {
  const double weights_away = part_share(p.weights_offloaded, p.weights_resident + p.weights_offloaded);
  const double kv_away = part_share(p.kv_offloaded, p.kv_resident + p.kv_offloaded);
  const StepCost all = d.cost();
  return {all.flops, all.bytes - weights_away * d.weights - kv_away * d.kv_read};
}

OffloadStep offload_step(Seconds device, Bytes streamed, BytesPerSecond host_bandwidth, bool prefetch) {
  const Seconds link = streamed / host_bandwidth;
  return {device, link, prefetch ? std::max(device, link) : device + link};
}

}  // namespace infracalc::decode
