// Expert parallelism: expert capacity under a capacity factor, the tokens an overflowing expert drops
// (closed form for uniform routing, simulated with a seeded RNG for any router skew), and the all-to-all
// bytes of dispatch and combine.
#pragma once

#include <cstdint>
#include <vector>

#include "units/system.hpp"

namespace infracalc::cluster {

/// Slots per expert: ceil(capacity_factor x tokens x k / experts) (GShard, Lepikhin et al. 2020; Switch
/// Transformer, Fedus et al. 2022, section 2.2).
[[nodiscard]] std::int64_t expert_capacity(std::int64_t tokens, int experts, int k, double capacity_factor);

/// Expected share of token-expert assignments dropped when every token picks k distinct experts uniformly at
/// random: each expert's load is Binomial(tokens, k/experts), and it drops what exceeds `capacity`.
[[nodiscard]] double expected_drop_rate_uniform(std::int64_t tokens, int experts, int k, std::int64_t capacity);

/// Routing to simulate.
struct RoutingSetup {
  /// Tokens routed in one step (the whole expert-parallel group).
  std::int64_t tokens = 0;
  /// Routed experts.
  int experts = 0;
  /// Experts per token.
  int k = 1;
  /// Slots per expert.
  std::int64_t capacity = 0;
  /// Router skew: expert e (1-based popularity rank) is picked with weight e^-skew; 0 is uniform.
  double skew = 0;
  /// Independent steps to average.
  int trials = 1;
  /// RNG seed.
  std::uint64_t seed = 1;
};

/// What the routing simulation measured (means over trials).
struct RoutingStats {
  /// Share of assignments dropped.
  double drop_rate = 0;
  /// Assignments dropped per step.
  double dropped = 0;
  /// Busiest expert's load.
  double max_load = 0;
  /// Busiest expert's load / mean load.
  double imbalance = 0;
  /// Coefficient of variation of the loads.
  double cv = 0;
  /// Share of experts that received no token.
  double idle_experts = 0;
  /// Per-expert loads of the last trial (for traces and histograms).
  std::vector<std::int64_t> last_loads;
};

/// Routes `tokens` tokens to k distinct experts each (successive sampling without replacement from the
/// skewed weights, which is Plackett-Luce top-k routing), counts loads and drops.
[[nodiscard]] RoutingStats simulate_routing(const RoutingSetup& s);

/// Bytes one device sends in one all-to-all of `tokens_per_device` tokens x k copies of `bytes_per_token`
/// when the destinations are spread evenly over `ep` devices: the (ep - 1)/ep share that leaves the device.
[[nodiscard]] Bytes all_to_all_bytes(double tokens_per_device, int k, Bytes bytes_per_token, int ep);

}  // namespace infracalc::cluster
