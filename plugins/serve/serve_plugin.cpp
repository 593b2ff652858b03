#include "plugins/serve/serve_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/serve/serve_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "serve";
constexpr std::string_view kDoc = "docs/serve.md";

// The calculators in the order `infracalc serve --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 6> kCalculators = {{
    {"simulate", &serve::simulate_calculator},
    {"capacity", &serve::capacity_calculator},
    {"latency", &serve::latency_calculator},
    {"multimodal", &serve::multimodal_calculator},
    {"disaggregate", &serve::disaggregate_calculator},
    {"diffusion", &serve::diffusion_calculator},
}};

}  // namespace

const Plugin& serve_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, serve_kernels());
  return p;
}

const Plugin* serve_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
