// Work a KV cache saves: K/V projections with and without a cache over a generation, and the cached
// positions each decode step reads.
#pragma once

#include <cstdint>

namespace infracalc::kv {

/// Counts of K/V pair projections and reads for one layer and one KV head (token counts are exact
/// integers; doubles hold them without loss below 2^53).
struct ProjectionWork {
  /// Without a cache: step t re-projects every position it attends to, prompt + t, so the total is
  /// N·prompt + N(N+1)/2.
  double without_cache = 0;
  /// With a cache: the prompt once, then one new pair per step: prompt + N.
  double with_cache = 0;
  /// Cached pairs read over the N steps: Σ (prompt + t − 1) = N·prompt + N(N−1)/2.
  double reads = 0;
};

/// Work over `steps` generated tokens after a `prompt`-token prompt (prompt 0: the textbook Σ t).
[[nodiscard]] ProjectionWork projection_work(std::int64_t prompt, std::int64_t steps);

/// Earlier positions step t (1-based) reads from the cache: prompt + t − 1.
[[nodiscard]] std::int64_t reads_at_step(std::int64_t prompt, std::int64_t t);

/// Positions the cache holds after step t: prompt + t (it grows by one per decoded token).
[[nodiscard]] std::int64_t positions_after_step(std::int64_t prompt, std::int64_t t);

}  // namespace infracalc::kv
