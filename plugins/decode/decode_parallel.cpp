#include "plugins/decode/decode_parallel.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::decode {

Seconds ring_allreduce_time(Bytes message, int ranks, const Link& link) {
  if (ranks <= 1) return Seconds{};
  const double p = ranks;
  // Reduce-scatter then all-gather: p − 1 steps each, every step moves message/p bytes per device.
  return 2.0 * (p - 1.0) * link.latency + 2.0 * (p - 1.0) / p * (message / link.bandwidth);
}

TpCommunication tp_communication(int layers, int hidden, double tokens, Bytes activation, int tp, const Link& link) {
  TpCommunication c;
  c.allreduces = tp > 1 ? 2 * layers : 0;
  c.message = tokens * static_cast<double>(hidden) * activation;
  c.each = ring_allreduce_time(c.message, tp, link);
  c.total = static_cast<double>(c.allreduces) * c.each;
  return c;
}

Seconds tp_communication_expected(const Efficiency& e, int layers, int hidden, double tokens, Bytes activation, int tp,
                                  BytesPerSecond bandwidth) {
  if (tp <= 1) return Seconds{};
  const double p = tp;
  const Bytes message = tokens * static_cast<double>(hidden) * activation;
  // Latency: NCCL (and the one-shot kernels of TensorRT-LLM and vLLM) use tree or direct algorithms for the
  // small messages of decode, 2 log2(p) steps rather than the ring's 2(p - 1); bytes: the ring's 2(p - 1)/p.
  const auto steps = static_cast<std::int64_t>(2 * std::ceil(std::log2(p)));
  const Seconds each = collective_time(e, message, 2.0 * (p - 1.0) / p * message, steps, bandwidth);
  return 2.0 * static_cast<double>(layers) * each;
}

AllToAll expert_all_to_all(int moe_layers, int hidden, int k, double tokens, Bytes activation, int ep, const Link* link) {
  AllToAll a;
  const double p = std::max(1, ep);
  const double remote = (p - 1.0) / p;  // share of a token's experts that live on another device
  const Bytes one_way = (tokens / p) * k * static_cast<double>(hidden) * activation * remote;
  a.per_device_per_layer = 2.0 * one_way;
  a.per_device_per_step = static_cast<double>(moe_layers) * a.per_device_per_layer;
  a.per_token = tokens > 0 ? a.per_device_per_step * p / tokens : Bytes{};
  if (link != nullptr && ep > 1)
    a.time = static_cast<double>(moe_layers) * 2.0 * ((p - 1.0) * link->latency + one_way / link->bandwidth);
  return a;
}

}  // namespace infracalc::decode
