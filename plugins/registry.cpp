#include "plugins/registry.hpp"

#include <array>

#include "plugins/kv/kv_plugin.hpp"
#include "plugins/network/network_plugin.hpp"

namespace infracalc {

namespace {
constexpr std::array kPlugins = {
    PluginEntry{"kv", "KV cache: bytes per token and totals for MHA, GQA and MQA", &kv_plugin},
    PluginEntry{"network", "links, energy per bit, fat-tree fabrics and parts, scalable units, topologies, NICs", &network_plugin},
};
}  // namespace

std::span<const PluginEntry> plugin_table() { return kPlugins; }

const Plugin* find_plugin(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return &p.get();
  return nullptr;
}

}  // namespace infracalc
