#include "plugins/registry.hpp"

#include <array>

#include "plugins/cooling/cooling_plugin.hpp"
#include "plugins/kv/kv_plugin.hpp"
#include "plugins/power/power_plugin.hpp"

namespace infracalc {

namespace {
constexpr std::array kPlugins = {
    PluginEntry{"kv", "KV cache: bytes per token and totals for MHA, GQA and MQA", &kv_plugin},
    PluginEntry{"power", "rack and row power, supply current and loss, energy and its bill, energy per token, grid swings", &power_plugin},
    PluginEntry{"cooling", "heat flux, cooling technology, coolant flow and pressure drop, CDUs, PUE/WUE/CUE/ERE and carbon", &cooling_plugin},
};
}  // namespace

std::span<const PluginEntry> plugin_table() { return kPlugins; }

const Plugin* find_plugin(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return &p.get();
  return nullptr;
}

}  // namespace infracalc
