// Reference kernel cluster-routing: routes tokens to experts with the seeded RNG and compares the share of
// assignments dropped at the capacity limit with the binomial closed form for uniform routing.
#include <cstdio>
#include <fmt/format.h>

#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/experts.hpp"

namespace infracalc::cluster {

std::vector<KernelCheck> run_routing_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  struct Case {
    std::int64_t tokens;
    int experts, k;
    double cf;
  };
  for (const Case& c : {Case{8192, 64, 2, 1.0}, Case{4096, 8, 2, 1.0}, Case{16384, 256, 8, 1.0}}) {
    RoutingSetup s;
    s.tokens = c.tokens;
    s.experts = c.experts;
    s.k = c.k;
    s.capacity = expert_capacity(c.tokens, c.experts, c.k, c.cf);
    s.trials = opt.quick ? 24 : 200;
    s.seed = 3;
    const RoutingStats st = simulate_routing(s);
    const double expected = expected_drop_rate_uniform(c.tokens, c.experts, c.k, s.capacity);
    out.push_back({fmt::format("{} tokens, top-{} of {} experts, capacity factor {:g} ({} slots): share dropped", c.tokens, c.k, c.experts,
                               c.cf, s.capacity),
                   Quantity::number(expected), Quantity::number(st.drop_rate), 0.05});
    if (opt.trace)
      std::fprintf(stderr, "  E=%d k=%d: dropped %.4f (expected %.4f), busiest expert %.1f x the mean\n", c.experts, c.k, st.drop_rate,
                   expected, st.imbalance);
  }
  return out;
}

}  // namespace infracalc::cluster
