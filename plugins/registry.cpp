#include "plugins/registry.hpp"

#include <array>

#include "plugins/fit/fit_plugin.hpp"
#include "plugins/formats/formats_plugin.hpp"
#include "plugins/kv/kv_plugin.hpp"

namespace infracalc {

namespace {
constexpr std::array kPlugins = {
    PluginEntry{"formats", "number formats: FP8/FP6/FP4, MX and NVFP4 codes, range, bits per value, quantization error", &formats_plugin},
    PluginEntry{"kv", "KV cache: bytes per token and totals for MHA, GQA and MQA", &kv_plugin},
    PluginEntry{"fit", "memory fit: weights, KV, activations and overhead per device; training and RLHF state", &fit_plugin},
};
}  // namespace

std::span<const PluginEntry> plugin_table() { return kPlugins; }

const Plugin* find_plugin(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return &p.get();
  return nullptr;
}

}  // namespace infracalc
