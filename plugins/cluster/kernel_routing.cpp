// Reference kernel cluster-routing: routes tokens to experts with the seeded RNG and compares the share of
// assignments dropped at the capacity limit with the binomial closed form for uniform routing.
#include <cstdio>
#include <fmt/format.h>

#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/experts.hpp"
#include "plugins/kernels/thread_team.hpp"

namespace infracalc::cluster {

std::vector<KernelCheck> run_routing_kernel(const KernelOptions& opt) {
  struct Case {
    std::int64_t tokens;
    int experts, k;
    double cf;
  };
  static constexpr Case kCases[] = {{8192, 64, 2, 1.0}, {4096, 8, 2, 1.0}, {16384, 256, 8, 1.0}};
  kernels::ThreadTeam team;
  // The cases are independent simulations, each with its own seeded generator: one per core at a time.
  return kernels::map_items(team, std::size(kCases), [&](std::size_t i) {
    const Case& c = kCases[i];
    RoutingSetup s;
    s.tokens = c.tokens;
    s.experts = c.experts;
    s.k = c.k;
    s.capacity = expert_capacity(c.tokens, c.experts, c.k, c.cf);
    s.trials = opt.quick ? 24 : 200;
    s.seed = 3;
    const RoutingStats st = simulate_routing(s);
    const double expected = expected_drop_rate_uniform(c.tokens, c.experts, c.k, s.capacity);
    if (opt.trace)
      std::fprintf(stderr, "  E=%d k=%d: dropped %.4f (expected %.4f), busiest expert %.1f x the mean\n", c.experts, c.k, st.drop_rate,
                   expected, st.imbalance);
    return KernelCheck{fmt::format("{} tokens, top-{} of {} experts, capacity factor {:g} ({} slots): share dropped", c.tokens, c.k,
                                   c.experts, c.cf, s.capacity),
                       Quantity::number(expected), Quantity::number(st.drop_rate), 0.05};
  });
}

}  // namespace infracalc::cluster
