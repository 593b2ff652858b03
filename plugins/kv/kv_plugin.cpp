#include "plugins/kv/kv_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/kv/kv_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "kv";
constexpr std::string_view kDoc = "docs/kv.md";

// The calculators in the order `infracalc kv --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 9> kCalculators = {{
    {"size", &kv::size_calculator},
    {"compare", &kv::compare_calculator},
    {"capacity", &kv::capacity_calculator},
    {"paged", &kv::paged_calculator},
    {"prefix", &kv::prefix_calculator},
    {"compress", &kv::compress_calculator},
    {"offload", &kv::offload_calculator},
    {"ladder", &kv::ladder_calculator},
    {"work", &kv::work_calculator},
}};

}  // namespace

const Plugin& kv_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, kv_kernels());
  return p;
}

const Plugin* kv_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
