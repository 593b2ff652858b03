// The explicit table of plugins (no static self-registration: a static library would drop them).
#pragma once

#include <span>
#include <string_view>

#include "host/plugin.hpp"

namespace infracalc {

/// One row of the plugin table: the descriptor is built on first use, so start-up does no work.
struct PluginEntry {
  /// Plugin name as typed on the command line.
  std::string_view name;
  /// One-line summary (available without building the descriptor).
  std::string_view summary;
  /// Builds (once) and returns the descriptor.
  const Plugin& (*get)();
  /// Builds (once) the plugin holding only the calculator called by its argument (name, doc, that calculator, no
  /// kernels), or returns nullptr when it has none by that name (plugin_with_only over the plugin's calculator table).
  const Plugin* (*with_only)(std::string_view calculator) = nullptr;
};

/// The one-line summary of the plugin called `name` (empty when there is none).
[[nodiscard]] std::string_view plugin_summary(std::string_view name);

/// Every plugin, in the order `infracalc list` shows them.
[[nodiscard]] std::span<const PluginEntry> plugin_table();
/// The plugin with this name, or nullptr.
[[nodiscard]] const Plugin* find_plugin(std::string_view name);
/// The plugin with this name holding only `calculator` where it can build one calculator alone (PluginEntry::
/// with_only), else the whole plugin (find_plugin: an unknown calculator is reported against all its names); nullptr
/// when no plugin has this name.
[[nodiscard]] const Plugin* find_plugin_for(std::string_view name, std::string_view calculator);
/// Whether a plugin has this name (nothing is built).
[[nodiscard]] bool is_plugin(std::string_view name);

}  // namespace infracalc
