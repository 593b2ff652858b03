#include "plugins/fit/fit_plugin.hpp"

#include "plugins/fit/fit_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_fit_plugin() {
  Plugin p;
  p.name = "fit";
  p.doc = "docs/fit.md";
  p.calculators = {fit::weights_calculator(), fit::inference_calculator(), fit::train_calculator(), fit::rlhf_calculator(), fit::finetune_calculator()};
  p.kernels = fit_kernels();
  return p;
}

}  // namespace

const Plugin& fit_plugin() {
  static const Plugin p = make_fit_plugin();
  return p;
}

}  // namespace infracalc
