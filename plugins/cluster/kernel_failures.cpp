// Reference kernel cluster-failures: a Monte Carlo of failures at scale. First, N accelerators fail and are
// replaced independently, and the fleet's failures are counted: their mean interval must be the per-device
// MTBF / N. Second, a run checkpoints and restarts through a Poisson stream of failures: its wall time, loss
// per failure and mean interval must match Daly's expectation and the truncated-exponential mean within 5%.
#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <random>

#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/reliability.hpp"

namespace infracalc::cluster {

namespace {

Quantity t(double v) { return Quantity{v, dims::time}; }

}  // namespace

std::vector<KernelCheck> run_failures_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const double hour = 3600.0;
  // 1. Superposition: every accelerator runs a renewal process of exponential lifetimes.
  {
    const int gpus = opt.quick ? 2000 : 16384;
    const double per_gpu = 50000 * hour;
    const double horizon = 4 * per_gpu;  // about four failures per device
    std::mt19937_64 rng(7);
    std::exponential_distribution<double> life(1.0 / per_gpu);
    std::vector<double> times;
    for (int g = 0; g < gpus; ++g)
      for (double clock = life(rng); clock < horizon; clock += life(rng)) times.push_back(clock);
    std::sort(times.begin(), times.end());
    double gaps = 0;
    for (std::size_t i = 1; i < times.size(); ++i) gaps += times[i] - times[i - 1];
    const double mean = gaps / static_cast<double>(times.size() - 1);
    out.push_back({fmt::format("{} accelerators of 50,000 h: mean interval between fleet failures ({} failures)", gpus, times.size()),
                   t(fleet_mtbf(from_base<Seconds>(per_gpu), gpus).value()), t(mean), 0.05});
    if (opt.trace)
      for (std::size_t i = 0; i < std::min<std::size_t>(times.size(), 10); ++i)
        std::fprintf(stderr, "  fleet failure %zu at %.3f h\n", i + 1, times[i] / hour);
  }
  // 2. A checkpointing run through the fleet's failures.
  struct Case {
    double mtbf, delta, restart;
  };
  for (const Case& c : {Case{3.09 * hour, 300.0, 600.0}, Case{0.5 * hour, 60.0, 300.0}}) {
    const Seconds m = from_base<Seconds>(c.mtbf), d = from_base<Seconds>(c.delta), r = from_base<Seconds>(c.restart);
    const double tau = daly_interval(d, m).value();
    const double segments = opt.quick ? 20000 : 200000;
    const double work = segments * tau;
    const FailureSimResult sim = simulate_failures(work, tau, c.delta, c.restart, c.mtbf, 11);
    const std::string label = fmt::format("MTBF {:.3g} h, checkpoint {:g} s, restart {:g} s, Daly interval {:.3g} min", c.mtbf / hour,
                                          c.delta, c.restart, tau / 60);
    out.push_back({label + ": wall time", t(expected_wall_time(from_base<Seconds>(work), from_base<Seconds>(tau), d, r, m).value()),
                   t(sim.wall), 0.05});
    out.push_back({label + ": mean interval between failures", t(c.mtbf), t(sim.mean_interval), 0.05});
    out.push_back({label + ": work and checkpoint time lost per failure",
                   t(expected_loss_per_failure(from_base<Seconds>(tau + c.delta), m).value()),
                   t(sim.lost / static_cast<double>(std::max<std::int64_t>(1, sim.segment_failures))), 0.05});
    if (opt.trace)
      std::fprintf(stderr, "  %s: %lld failures, wall %.4g h, lost %.4g h, restarting %.4g h, checkpointing %.4g h\n", label.c_str(),
                   static_cast<long long>(sim.failures), sim.wall / hour, sim.lost / hour, sim.restarting / hour, sim.checkpointing / hour);
  }
  return out;
}

}  // namespace infracalc::cluster
