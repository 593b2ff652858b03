// Reference kernel cluster-recompute: √n activation checkpointing on a real chain of layers. The run that
// keeps only checkpoints must produce the same gradients as the run that keeps every layer input, while
// holding and recomputing what the closed forms say.
#include <cmath>
#include <cstdio>
#include <fmt/format.h>

#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/recompute.hpp"

namespace infracalc::cluster {

std::vector<KernelCheck> run_recompute_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  auto n = [](double v) { return Quantity::number(v); };
  struct Case {
    int layers, interval;
  };
  std::vector<Case> cases = {{9, 0}, {16, 0}, {10, 3}, {100, 0}, {12, 5}};
  if (!opt.quick) {
    cases.push_back({1000, 0});
    cases.push_back({126, 0});
  }
  for (const auto& c : cases) {
    const int k = c.interval > 0 ? c.interval : sqrt_interval(c.layers);
    const bool trace = opt.trace && c.layers == 9;
    const ChainRun sparse = run_chain(c.layers, 16, k, trace);
    const ChainRun dense = run_chain(c.layers, 16, 1, false);
    const std::string label = fmt::format("{} layers, a checkpoint every {}", c.layers, k);
    out.push_back({label + ": inputs kept by the forward pass", n(checkpoints_kept(c.layers, k)), n(sparse.kept), 0.0});
    out.push_back({label + ": peak inputs held", n(peak_activations(c.layers, k)), n(sparse.peak_held), 0.0});
    out.push_back({label + ": layer forwards recomputed", n(recomputed_layers(c.layers, k)), n(sparse.recomputed), 0.0});
    out.push_back({label + ": peak without checkpointing", n(c.layers), n(dense.peak_held), 0.0});
    double diff = 0;
    for (std::size_t i = 0; i < dense.input_grad.size(); ++i) diff = std::max(diff, std::fabs(dense.input_grad[i] - sparse.input_grad[i]));
    for (std::size_t i = 0; i < dense.param_grad.size(); ++i) diff = std::max(diff, std::fabs(dense.param_grad[i] - sparse.param_grad[i]));
    out.push_back({label + ": largest gradient difference", n(0), n(diff), 0.0, 1e-12});
    if (trace)
      for (const auto& e : sparse.events) std::fprintf(stderr, "  %-9s layer %d, inputs held %d\n", e.what.c_str(), e.layer, e.held);
  }
  return out;
}

}  // namespace infracalc::cluster
