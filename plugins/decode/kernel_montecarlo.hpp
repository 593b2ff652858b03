// Monte Carlo kernels for `verify decode`: routing tokens to experts, accepting draft tokens, and
// building a draft tree, each simulated event by event with a seeded generator.
#pragma once

#include <cstdint>

namespace infracalc::decode {

/// Mean distinct experts hit when `tokens` tokens each pick `k` distinct experts of `experts` uniformly,
/// over `trials` simulated steps.
[[nodiscard]] double simulate_experts_touched(int experts, int k, int tokens, int trials, std::uint64_t seed);

/// Mean tokens per target pass when each of `k` draft tokens is accepted with probability `alpha` until
/// the first rejection, the target adding one token (its correction, or a bonus token after k accepts).
[[nodiscard]] double simulate_tokens_per_pass(double alpha, int k, int passes, std::uint64_t seed);

/// A draft tree built node by node: its leaves (candidate continuations) and all its nodes.
struct TreeCount {
  /// Leaves at full depth.
  double leaves = 0;
  /// Nodes below the root.
  double nodes = 0;
};

/// Builds a full tree of `depth` levels, `width` children per node, breadth first, and counts it.
[[nodiscard]] TreeCount build_tree(int width, int depth);

}  // namespace infracalc::decode
