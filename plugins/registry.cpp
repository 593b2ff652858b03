#include "plugins/registry.hpp"

#include <array>

#include "plugins/kv/kv_plugin.hpp"

namespace infracalc {

namespace {
constexpr std::array kPlugins = {
    PluginEntry{"kv", "KV cache: every layout per device, capacity, paging, prefix sharing, compression, offload", &kv_plugin},
};
}  // namespace

std::span<const PluginEntry> plugin_table() { return kPlugins; }

const Plugin* find_plugin(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return &p.get();
  return nullptr;
}

}  // namespace infracalc
