#include "plugins/cluster/cluster_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/cluster/cluster_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "cluster";
constexpr std::string_view kDoc = "docs/cluster.md";

// The calculators in the order `infracalc cluster --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 9> kCalculators = {{
    {"train", &cluster::train_calculator},
    {"layout", &cluster::layout_calculator},
    {"collective", &cluster::collective_calculator},
    {"pipeline", &cluster::pipeline_calculator},
    {"experts", &cluster::experts_calculator},
    {"failures", &cluster::failures_calculator},
    {"checkpoint", &cluster::checkpoint_calculator},
    {"recompute", &cluster::recompute_calculator},
    {"fleet", &cluster::fleet_calculator},
}};

}  // namespace

const Plugin& cluster_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, cluster_kernels());
  return p;
}

const Plugin* cluster_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
