#include "plugins/registry.hpp"

#include <algorithm>
#include <array>

#include "plugins/chip/chip_plugin.hpp"
#include "plugins/cluster/cluster_plugin.hpp"
#include "plugins/cooling/cooling_plugin.hpp"
#include "plugins/cost/cost_plugin.hpp"
#include "plugins/decode/decode_plugin.hpp"
#include "plugins/fit/fit_plugin.hpp"
#include "plugins/formats/formats_plugin.hpp"
#include "plugins/kv/kv_plugin.hpp"
#include "plugins/network/network_plugin.hpp"
#include "plugins/power/power_plugin.hpp"
#include "plugins/serve/serve_plugin.hpp"
#include "plugins/tco/tco_plugin.hpp"

namespace infracalc {

namespace {
// In the architecture's plugin order: each plugin may use the math of those above it.
constexpr std::array kPlugins = {
    PluginEntry{"formats", "number formats: FP8/FP6/FP4, MX and NVFP4 codes, range, bits per value, quantization error", &formats_plugin, &formats_plugin_with_only},
    PluginEntry{"kv", "KV cache: size for every layout, capacity, paging, prefix sharing, compression, offload tiers", &kv_plugin, &kv_plugin_with_only},
    PluginEntry{"fit", "memory fit: weights, KV, activations and overhead per device; training, fine-tuning and RLHF state", &fit_plugin, &fit_plugin_with_only},
    PluginEntry{"decode", "decode speed: roofline, ceilings, prefill/TTFT, tensor parallelism, attention, speculative decoding, MoE", &decode_plugin,
                &decode_plugin_with_only},
    PluginEntry{"serve", "serving capacity: batching simulator, pod and rack capacity, latency budgets, multimodal prompts, disaggregation", &serve_plugin, &serve_plugin_with_only},
    PluginEntry{"cluster", "cluster sizing: training runs, parallel layouts, collectives, pipelines, experts, failures and checkpoints", &cluster_plugin, &cluster_plugin_with_only},
    PluginEntry{"network", "links, energy per bit, fat-tree fabrics and their parts, scalable units, topologies, NICs, switches, optics", &network_plugin, &network_plugin_with_only},
    PluginEntry{"power", "rack and row power, supply current and loss, energy and its bill, energy per token, grid swings", &power_plugin, &power_plugin_with_only},
    PluginEntry{"cooling", "heat flux, cooling technology, coolant flow and pressure drop, CDUs, PUE/WUE/CUE/ERE and carbon", &cooling_plugin, &cooling_plugin_with_only},
    PluginEntry{"tco", "cost of ownership: owner cost per sold accelerator-hour, facility TCO, energy bills, siting, cash-flow ledger", &tco_plugin, &tco_plugin_with_only},
    PluginEntry{"cost", "cost per token, per answer, per agent task, prompt caching and training rent", &cost_plugin, &cost_plugin_with_only},
    PluginEntry{"chip", "chip anatomy: peak rate from matrix units and clock, models held in on-chip SRAM, wafer-scale cores and yield", &chip_plugin, &chip_plugin_with_only},
};
}  // namespace

std::span<const PluginEntry> plugin_table() { return kPlugins; }

std::string_view plugin_summary(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return p.summary;
  return {};
}

const Plugin* find_plugin(std::string_view name) {
  for (const auto& p : kPlugins)
    if (p.name == name) return &p.get();
  return nullptr;
}

const Plugin* find_plugin_for(std::string_view name, std::string_view calculator) {
  for (const auto& p : kPlugins)
    if (p.name == name) {
      if (p.with_only != nullptr)
        if (const Plugin* one = p.with_only(calculator)) return one;
      return &p.get();
    }
  return nullptr;
}

bool is_plugin(std::string_view name) {
  return std::any_of(kPlugins.begin(), kPlugins.end(), [&](const PluginEntry& p) { return p.name == name; });
}

}  // namespace infracalc
