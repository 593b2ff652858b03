#include "plugins/formats/formats_plugin.hpp"

#include <array>
#include <optional>

#include "plugins/formats/formats_calculators.hpp"

namespace infracalc {

namespace {

constexpr std::string_view kName = "formats";
constexpr std::string_view kDoc = "docs/formats.md";

// The calculators in the order `infracalc formats --help` lists them, each with the name its descriptor declares (a unit
// test builds each alone and compares it with the whole plugin's).
constexpr std::array<CalculatorFactory, 5> kCalculators = {{
    {"info", &formats::info_calculator},
    {"decode", &formats::decode_calculator},
    {"encode", &formats::encode_calculator},
    {"bits", &formats::bits_calculator},
    {"error", &formats::error_calculator},
}};

}  // namespace

const Plugin& formats_plugin() {
  static const Plugin p = assemble_plugin(kName, kDoc, kCalculators, formats_kernels());
  return p;
}

const Plugin* formats_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  return plugin_with_only(kName, kDoc, kCalculators, built, calculator);
}

}  // namespace infracalc
