#include "plugins/decode/decode_plugin.hpp"

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "plugins/decode/decode_calculators.hpp"

namespace infracalc {

namespace {

// The calculators in the order `infracalc decode --help` lists them, each with the name its descriptor declares (the
// registry test builds both ways and compares).
constexpr std::array<std::pair<std::string_view, Calculator (*)()>, 11> kCalculators = {{
    {"roofline", &decode::roofline_calculator},
    {"ceiling", &decode::ceiling_calculator},
    {"prefill", &decode::prefill_calculator},
    {"tp", &decode::tp_calculator},
    {"attention", &decode::attention_calculator},
    {"speculative", &decode::speculative_calculator},
    {"moe", &decode::moe_calculator},
    {"breakdown", &decode::breakdown_calculator},
    {"timeline", &decode::timeline_calculator},
    {"sample", &decode::sample_calculator},
    {"offload", &decode::offload_calculator},
}};

Plugin empty_decode_plugin() {
  Plugin p;
  p.name = "decode";
  p.doc = "docs/decode.md";
  return p;
}

Plugin make_decode_plugin() {
  Plugin p = empty_decode_plugin();
  for (const auto& [name, build] : kCalculators) p.calculators.push_back(build());
  p.kernels = decode_kernels();
  return p;
}

}  // namespace

const Plugin& decode_plugin() {
  static const Plugin p = make_decode_plugin();
  return p;
}

const Plugin* decode_plugin_with_only(std::string_view calculator) {
  static std::array<std::optional<Plugin>, kCalculators.size()> built;
  for (std::size_t i = 0; i < kCalculators.size(); ++i) {
    if (kCalculators[i].first != calculator) continue;
    if (!built[i]) {
      Plugin p = empty_decode_plugin();
      p.calculators.push_back(kCalculators[i].second());
      if (p.calculators.front().name != calculator)
        throw std::logic_error("decode: the table names '" + std::string(calculator) + "' a calculator that calls itself '" +
                               std::string(p.calculators.front().name) + "'");
      built[i] = std::move(p);
    }
    return &*built[i];
  }
  return nullptr;
}

}  // namespace infracalc
