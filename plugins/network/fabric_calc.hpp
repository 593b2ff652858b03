// Shared by `network fabric` and `network su`: the switch, link speed, optics and the sized fabric with its parts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/context.hpp"
#include "plugins/network/fabric_math.hpp"
#include "plugins/network/network_common.hpp"

namespace infracalc::net {

/// Parses "2:1", "1:1", "1.5:1" or "3" into a down:up ratio; throws UserError naming `flag`.
[[nodiscard]] double parse_ratio(const std::string& text, std::string_view flag);

/// Everything a fabric costs in parts and watts, with the plan it came from.
struct FabricParts {
  /// The sized fabric.
  FabricPlan plan;
  /// Link speed (NIC speed), when known.
  std::optional<BytesPerSecond> link_speed;
  /// Pluggable transceiver modules (NIC side and switch side).
  std::int64_t transceivers = 0;
  /// NIC-side modules: one single-port module per optical NIC port.
  std::int64_t nic_modules = 0;
  /// Switch-side modules on the host links (leaf ports facing the NICs).
  std::int64_t leaf_host_modules = 0;
  /// Modules on the leaf-spine links, both ends.
  std::int64_t leaf_spine_modules = 0;
  /// Modules on the spine-core links, both ends.
  std::int64_t spine_core_modules = 0;
  /// Switch ports one switch-side module serves (2 for a twin-port 800G OSFP at 400G links).
  std::int64_t ports_per_module = 1;
  /// Optical port ends (a module or a co-packaged engine each).
  std::int64_t optical_ends = 0;
  /// Cables (one per link).
  std::int64_t cables = 0;
  /// Power of one switch, when known.
  std::optional<Watts> switch_each;
  /// All switches' power.
  std::optional<Watts> switch_power;
  /// All optics' power.
  std::optional<Watts> optics_power;
  /// Switch-side optics are co-packaged (no switch-side modules).
  bool co_packaged = false;
};

/// The common fabric inputs of a calculator (switch, radix, speeds, optics, prices), declared once.
[[nodiscard]] std::vector<Input> fabric_inputs();

/// Reads the switch, radix and link speed, sizes the fabric for `endpoints` NIC ports (rails per node for
/// rail-optimised) and counts parts and watts. Notes go to `notes`.
[[nodiscard]] FabricParts size_fabric(Context& ctx, std::int64_t endpoints, FabricDesign design, std::int64_t rails,
                                      std::vector<std::string>& notes);

}  // namespace infracalc::net
