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
};

/// The one-line summary of the plugin called `name` (empty when there is none).
[[nodiscard]] std::string_view plugin_summary(std::string_view name);

/// Every plugin, in the order `infracalc list` shows them.
[[nodiscard]] std::span<const PluginEntry> plugin_table();
/// The plugin with this name, or nullptr.
[[nodiscard]] const Plugin* find_plugin(std::string_view name);

}  // namespace infracalc
