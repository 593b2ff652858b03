// Shared-prefix pages: N requests that start with the same prefix (a system prompt) share its KV blocks;
// the partly filled last prefix block is copied when a request first writes past the prefix. And the
// prompt-cache pricing that decides whether caching the prefix pays.
#pragma once

#include <cstdint>

namespace infracalc::kv {

/// The shape of a shared-prefix workload (token counts).
struct PrefixShape {
  /// Tokens every request shares at its start.
  std::int64_t prefix = 0;
  /// Tokens each request adds after the prefix (its own prompt suffix plus its output).
  std::int64_t tail = 0;
  /// Requests sharing the prefix.
  std::int64_t requests = 1;
  /// Tokens per KV block.
  std::int64_t block_size = 16;
};

/// Block counts with and without sharing.
struct PrefixBlocks {
  /// Every request holds its own copy: requests × ceil((prefix + tail) / block_size).
  std::int64_t unshared = 0;
  /// Full prefix blocks once, plus each request's own blocks (its copy of a partial prefix block included).
  std::int64_t shared = 0;
  /// Copy-on-write copies of the partial last prefix block (requests − 1 when it is partial and written).
  std::int64_t copies = 0;
  /// Prefix blocks held once for everybody.
  std::int64_t shared_prefix_blocks = 0;
};

/// Closed form: with r = prefix mod block_size, shared = floor(prefix / B) + requests × ceil((r + tail) / B)
/// when r > 0 and tail > 0 (each writer but the last copies the partial block), floor(prefix / B) + 1 when
/// r > 0 and nobody writes, and prefix / B + requests × ceil(tail / B) when r = 0.
[[nodiscard]] PrefixBlocks prefix_blocks(const PrefixShape& s);

/// Provider prompt-cache prices as multiples of the base input-token price.
struct CachePricing {
  /// A cached (hit) prefix token costs this multiple of a base input token (e.g. 0.1).
  double read = 0.1;
  /// Writing a prefix token into the cache (on a miss) costs this multiple (e.g. 1.25).
  double write = 1.25;
};

/// Hit rate h at which caching costs the same as not caching: h·read + (1−h)·write = 1, so
/// h = (write − 1) / (write − read); 0 when writes cost no premium. Requires read < 1.
[[nodiscard]] double break_even_hit_rate(const CachePricing& p);

/// The fewest requests (one write, then hits) for which caching a prefix costs no more than sending it
/// uncached every time: the smallest n with write + (n − 1)·read ≤ n.
[[nodiscard]] std::int64_t break_even_requests(const CachePricing& p);

/// Expected price of a prefix token relative to the base input price at hit rate h.
[[nodiscard]] double cost_multiplier(const CachePricing& p, double hit_rate);

}  // namespace infracalc::kv
