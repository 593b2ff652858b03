#include "plugins/registry.hpp"

#include <array>

#include "plugins/decode/decode_plugin.hpp"
#include "plugins/kv/kv_plugin.hpp"

namespace infracalc {

namespace {
constexpr std::array kPlugins = {
    PluginEntry{"kv", "KV cache: bytes per token and totals for MHA, GQA and MQA", &kv_plugin},
    PluginEntry{"decode", "decode speed: roofline, ceilings, prefill/TTFT, tensor parallelism, attention, speculative decoding, MoE", &decode_plugin},
};
}  // namespace

std::span<const PluginEntry> plugin_table() { return kPlugins; }

const Plugin* find_plugin(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return &p.get();
  return nullptr;
}

}  // namespace infracalc
