#include "plugins/cost/cost_plugin.hpp"

#include "plugins/cost/cost_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_cost_plugin() {
  Plugin p;
  p.name = "cost";
  p.doc = "docs/cost.md";
  p.calculators.push_back(cost::token_calculator());
  p.calculators.push_back(cost::answer_calculator());
  p.calculators.push_back(cost::task_calculator());
  p.calculators.push_back(cost::cache_calculator());
  p.calculators.push_back(cost::train_calculator());
  p.kernels = cost_kernels();
  return p;
}

}  // namespace

const Plugin& cost_plugin() {
  static const Plugin p = make_cost_plugin();
  return p;
}

}  // namespace infracalc
