#include "plugins/serve/serve_plugin.hpp"

#include "plugins/serve/serve_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_serve_plugin() {
  Plugin p;
  p.name = "serve";
  p.doc = "docs/serve.md";
  p.calculators.push_back(serve::simulate_calculator());
  p.calculators.push_back(serve::capacity_calculator());
  p.calculators.push_back(serve::latency_calculator());
  p.calculators.push_back(serve::multimodal_calculator());
  p.calculators.push_back(serve::disaggregate_calculator());
  p.calculators.push_back(serve::diffusion_calculator());
  p.kernels = serve_kernels();
  return p;
}

}  // namespace

const Plugin& serve_plugin() {
  static const Plugin p = make_serve_plugin();
  return p;
}

}  // namespace infracalc
