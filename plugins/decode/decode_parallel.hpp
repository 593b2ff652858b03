// Communication of a split model: tensor-parallel all-reduces (Shoeybi et al., "Megatron-LM", 2019:
// one after the attention output projection and one after the MLP down projection in every layer) and
// the expert-parallel all-to-all of a mixture-of-experts layer (Lepikhin et al., "GShard", 2020).
#pragma once

#include "plugins/decode/efficiency.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// A device's link to its peers.
struct Link {
  /// Bandwidth each device sends at, one direction.
  BytesPerSecond bandwidth;
  /// Fixed cost of each message step (software and hardware latency).
  Seconds latency;
};

/// Ring all-reduce of a `message`-byte buffer over `ranks` devices (the α-β model; Thakur, Rabenseifner
/// and Gropp 2005): 2(p − 1) steps, each one latency plus message/p bytes:
/// 2(p − 1)·α + 2·(p − 1)/p · message / bandwidth. Zero for one rank.
[[nodiscard]] Seconds ring_allreduce_time(Bytes message, int ranks, const Link& link);

/// Tensor-parallel communication of one decode step.
struct TpCommunication {
  /// All-reduces per step: 2 per layer, however many tokens the step carries.
  int allreduces = 0;
  /// Bytes each all-reduce reduces: tokens × hidden × activation bytes.
  Bytes message;
  /// Time of one all-reduce.
  Seconds each;
  /// Time of all of them (not overlapped with compute).
  Seconds total;
};

/// Communication of one step carrying `tokens` tokens over `tp` ranks.
[[nodiscard]] TpCommunication tp_communication(int layers, int hidden, double tokens, Bytes activation, int tp, const Link& link);

/// The same all-reduces as real collectives run them (efficiency.hpp: latency per step, bus bandwidth
/// below the link's for small messages): 2 × layers ring all-reduces of tokens × hidden × activation bytes.
[[nodiscard]] Seconds tp_communication_expected(const Efficiency& e, int layers, int hidden, double tokens, Bytes activation,
                                                int tp, BytesPerSecond bandwidth);

/// Expert-parallel all-to-all of one step.
struct AllToAll {
  /// Bytes one device sends per MoE layer: its tokens' hidden vectors to the experts on other devices
  /// (dispatch) and the results back (combine): 2 × tokens/ep × k × hidden × bytes × (ep − 1)/ep.
  Bytes per_device_per_layer;
  /// The same over every MoE layer.
  Bytes per_device_per_step;
  /// Bytes the whole group moves per token over every MoE layer.
  Bytes per_token;
  /// Time per step: per MoE layer, dispatch and combine each take (ep − 1) latencies plus their bytes
  /// over the link; zero when no link is given.
  Seconds time;
};

/// All-to-all of a step carrying `tokens` tokens spread evenly over `ep` devices, with uniform routing.
[[nodiscard]] AllToAll expert_all_to_all(int moe_layers, int hidden, int k, double tokens, Bytes activation, int ep,
                                         const Link* link);

}  // namespace infracalc::decode
