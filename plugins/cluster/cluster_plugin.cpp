#include "plugins/cluster/cluster_plugin.hpp"

#include "plugins/cluster/cluster_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_cluster_plugin() {
  Plugin p;
  p.name = "cluster";
  p.doc = "docs/cluster.md";
  p.calculators.push_back(cluster::train_calculator());
  p.calculators.push_back(cluster::layout_calculator());
  p.calculators.push_back(cluster::collective_calculator());
  p.calculators.push_back(cluster::pipeline_calculator());
  p.calculators.push_back(cluster::experts_calculator());
  p.calculators.push_back(cluster::failures_calculator());
  p.calculators.push_back(cluster::checkpoint_calculator());
  p.calculators.push_back(cluster::recompute_calculator());
  p.calculators.push_back(cluster::fleet_calculator());
  p.kernels = cluster_kernels();
  return p;
}

}  // namespace

const Plugin& cluster_plugin() {
  static const Plugin p = make_cluster_plugin();
  return p;
}

}  // namespace infracalc
