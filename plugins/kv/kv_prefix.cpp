#include "plugins/kv/kv_prefix.hpp"

#include <cmath>

#include "units/counts.hpp"
#include "plugins/kv/kv_blocks.hpp"

namespace infracalc::kv {

// Copy-on-write at block granularity follows vLLM's block manager (Kwon et al. 2023, section 4.4): blocks
// are shared by reference count and a block is copied when a sequence writes into it while others still
// reference it; the last writer keeps the original.
PrefixBlocks prefix_blocks(const PrefixShape& s) {
  PrefixBlocks out;
  const std::int64_t b = s.block_size;
  out.unshared = s.requests * blocks_for(s.prefix + s.tail, b);
  const std::int64_t full = s.prefix / b;
  const std::int64_t r = s.prefix % b;
  out.shared_prefix_blocks = full;
  if (r == 0) {
    out.shared = full + s.requests * blocks_for(s.tail, b);
  } else if (s.tail == 0) {
    out.shared = full + 1;
    out.shared_prefix_blocks = full + 1;
  } else {
    out.shared = full + s.requests * blocks_for(r + s.tail, b);
    out.copies = s.requests - 1;
  }
  return out;
}

double break_even_hit_rate(const CachePricing& p) {
  if (p.write <= 1.0) return 0.0;
  return (p.write - 1.0) / (p.write - p.read);
}

std::int64_t break_even_requests(const CachePricing& p) {
  if (p.write <= 1.0) return 1;
  // write + (n - 1)·read <= n  <=>  n >= (write - read) / (1 - read); whole_count's slack absorbs rounding in
  // multipliers typed as decimals (1.25, 0.1).
  return whole_count((p.write - p.read) / (1.0 - p.read), Rounding::up,
                     {"--cache-write", "requests per cache write to break even", "a write multiplier near the provider's (1.25 to 2)"});
}

double cost_multiplier(const CachePricing& p, double hit_rate) { return hit_rate * p.read + (1.0 - hit_rate) * p.write; }

}  // namespace infracalc::kv
