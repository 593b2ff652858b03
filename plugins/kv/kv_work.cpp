#include "plugins/kv/kv_work.hpp"

namespace infracalc::kv {

ProjectionWork projection_work(std::int64_t prompt, std::int64_t steps) {
  const auto p = static_cast<double>(prompt);
  const auto n = static_cast<double>(steps);
  ProjectionWork w;
  w.without_cache = n * p + n * (n + 1.0) / 2.0;
  w.with_cache = p + n;
  w.reads = n * p + n * (n - 1.0) / 2.0;
  return w;
}

std::int64_t reads_at_step(std::int64_t prompt, std::int64_t t) { return prompt + t - 1; }

std::int64_t positions_after_step(std::int64_t prompt, std::int64_t t) { return prompt + t; }

}  // namespace infracalc::kv
