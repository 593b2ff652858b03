// Reference kernel cluster-pipeline: executes GPipe, 1F1B and interleaved 1F1B step by step and measures
// the bubble and the activations each device holds, against the closed forms.
#include <cstdio>
#include <fmt/format.h>

#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/pipeline.hpp"

namespace infracalc::cluster {

namespace {

Quantity count_q(double v) { return Quantity::number(v); }

void trace(const PipeSimResult& r, Schedule s, int p, int m, int v) {
  std::fprintf(stderr, "  %s P=%d M=%d v=%d: makespan %.3g, bubble %.4f\n", schedule_name(s), p, m, v, r.makespan, r.bubble);
  for (int d = 0; d < p; ++d) {
    std::string line;
    for (const auto& op : r.ops)
      if (op.device == d)
        line += fmt::format(" {}{}{}@{:g}", op.backward ? 'B' : 'F', op.microbatch, v > 1 ? fmt::format(".{}", op.chunk) : std::string(), op.start);
    std::fprintf(stderr, "    device %d:%s\n", d, line.c_str());
  }
}

}  // namespace

std::vector<KernelCheck> run_pipeline_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  struct Case {
    Schedule s;
    int p, m, v;
  };
  std::vector<Case> cases = {{Schedule::gpipe, 4, 8, 1},       {Schedule::one_f_one_b, 4, 8, 1}, {Schedule::one_f_one_b, 8, 3, 1},
                             {Schedule::interleaved, 4, 8, 2}, {Schedule::interleaved, 4, 4, 3}, {Schedule::one_f_one_b, 1, 5, 1}};
  if (!opt.quick) {
    cases.push_back({Schedule::gpipe, 16, 64, 1});
    cases.push_back({Schedule::one_f_one_b, 16, 128, 1});
    cases.push_back({Schedule::interleaved, 16, 64, 4});
    cases.push_back({Schedule::interleaved, 8, 32, 8});
  }
  for (const auto& c : cases) {
    const PipeSimResult r = simulate_pipeline(c.s, c.p, c.m, c.v, 1.0, 2.0);
    const std::string label = fmt::format("{} P={} M={}{}", schedule_name(c.s), c.p, c.m, c.v > 1 ? fmt::format(" v={}", c.v) : std::string());
    out.push_back({label + ": bubble", count_q(bubble_fraction(c.p, c.m, c.v)), count_q(r.bubble), 1e-12, 1e-12});
    out.push_back({label + ": first stage's micro-batches in flight", count_q(stage_activations_in_flight(c.s, c.p, c.m, c.v)),
                   count_q(static_cast<double>(r.peak_in_flight[0]) / c.v), 1e-12});
    if (c.s == Schedule::one_f_one_b && c.p > 1) {
      // Every stage d of 1F1B holds min(P - d, M).
      double worst = 0;
      for (int d = 0; d < c.p; ++d)
        worst = std::max(worst, std::abs(static_cast<double>(r.peak_in_flight[static_cast<std::size_t>(d)]) - std::min(c.p - d, c.m)));
      out.push_back({label + ": largest per-stage difference from min(P - d, M)", count_q(0), count_q(worst), 0.0, 0.0});
    }
    if (opt.trace && c.p <= 4) trace(r, c.s, c.p, c.m, c.v);
  }
  return out;
}

}  // namespace infracalc::cluster
