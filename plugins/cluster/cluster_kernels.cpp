// The cluster plugin's reference kernels, one kernel_<name>.cpp each, listed for its descriptor.
#include "plugins/cluster/cluster_kernels.hpp"
#include "plugins/cluster/cluster_plugin.hpp"

namespace infracalc {

std::vector<Kernel> cluster_kernels() {
  return {
      {"cluster-allreduce",
       "ring, binomial-tree and in-network all-reduce among threads on real buffers: counts steps and bytes per rank and checks "
       "the sums",
       cluster::run_allreduce_kernel},
      {"cluster-pipeline", "executes GPipe, 1F1B and interleaved 1F1B step by step and measures the bubble and activations in flight",
       cluster::run_pipeline_kernel},
      {"cluster-failures",
       "Monte Carlo of failures: fleet MTBF from individual accelerators; a checkpoint-restart run against Daly's wall time and "
       "the loss per failure",
       cluster::run_failures_kernel},
      {"cluster-recompute", "√n activation checkpointing on a real chain of layers: inputs kept, recomputed, identical gradients",
       cluster::run_recompute_kernel},
      {"cluster-routing", "seeded MoE routing under a capacity factor against the binomial closed form for dropped tokens",
       cluster::run_routing_kernel},
  };
}

}  // namespace infracalc
