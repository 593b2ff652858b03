// Fat-tree (folded Clos) sizing in closed form: leaves, spines, cores, links and bisection for a switch radix.
#pragma once

#include <cstdint>

namespace infracalc::net {

/// How hosts attach to leaves.
enum class FabricDesign : std::uint8_t {
  fat_tree,        ///< hosts fill leaves in order
  rail_optimised,  ///< NIC q of every node in a group goes to the group's rail-q leaf
};

/// What a fabric must connect and with what switch.
struct FabricInput {
  /// NIC ports to connect (GPUs x NICs per GPU).
  std::int64_t endpoints = 0;
  /// Switch ports at the link speed (after breakout).
  std::int64_t radix = 0;
  /// Leaf down:up port ratio asked for (1 = non-blocking).
  double oversubscription = 1.0;
  /// Tiers: 1, 2 or 3; 0 picks the fewest that fit.
  int tiers = 0;
  /// Host attachment.
  FabricDesign design = FabricDesign::fat_tree;
  /// NIC ports per node, one rail each (rail-optimised only).
  std::int64_t rails = 1;
};

/// Ports of a leaf split into host (down) and uplink (up) ports for an oversubscription r: up = ceil(k / (1 + r)),
/// down = k - up, so the achieved ratio never exceeds r.
struct LeafPorts {
  /// Host-facing ports.
  std::int64_t down = 0;
  /// Uplink ports.
  std::int64_t up = 0;
};

/// The leaf port split for radix k and oversubscription r (r >= 1).
[[nodiscard]] LeafPorts leaf_ports(std::int64_t radix, double oversubscription);

/// The largest number of endpoints a fabric of `tiers` tiers holds: k, k x down, or k x (k/2) x down (k³/4 when
/// non-blocking: Al-Fares et al., SIGCOMM 2008).
[[nodiscard]] std::int64_t max_endpoints(std::int64_t radix, std::int64_t leaf_down, int tiers);

/// A sized fabric. In three tiers the middle switches are the pods' aggregation switches ("spines") and the top
/// ones the cores (super-spines).
struct FabricPlan {
  /// Tiers used.
  int tiers = 0;
  /// Switch radix at link speed.
  std::int64_t radix = 0;
  /// Endpoints connected.
  std::int64_t endpoints = 0;
  /// Host ports per leaf.
  std::int64_t leaf_down = 0;
  /// Uplink ports per leaf.
  std::int64_t leaf_up = 0;
  /// Leaf (edge) switches.
  std::int64_t leaves = 0;
  /// Spine switches (aggregation in three tiers).
  std::int64_t spines = 0;
  /// Core (super-spine) switches, three tiers only.
  std::int64_t cores = 0;
  /// Pods (three tiers), each with leaves_per_pod leaves and leaf_up aggregation switches.
  std::int64_t pods = 0;
  /// Leaves in a full pod.
  std::int64_t leaves_per_pod = 0;
  /// Core switches serving one aggregation plane.
  std::int64_t cores_per_plane = 0;
  /// Rail groups (rail-optimised): sets of nodes sharing one leaf per rail.
  std::int64_t rail_groups = 0;
  /// Host-to-leaf links.
  std::int64_t host_links = 0;
  /// Leaf-to-spine links.
  std::int64_t leaf_spine_links = 0;
  /// Spine-to-core links.
  std::int64_t spine_core_links = 0;
  /// The largest fabric of this tier count and radix.
  std::int64_t max_endpoints = 0;
  /// Bisection in links, one direction: endpoints / 2 x min(1, up / down) (full leaves, even split).
  double bisection_links = 0;

  /// All switches.
  [[nodiscard]] std::int64_t switches() const { return leaves + spines + cores; }
  /// All links.
  [[nodiscard]] std::int64_t links() const { return host_links + leaf_spine_links + spine_core_links; }
  /// Achieved leaf down:up ratio (0 when leaves have no uplinks).
  [[nodiscard]] double oversubscription() const {
    return leaf_up > 0 ? static_cast<double>(leaf_down) / static_cast<double>(leaf_up) : 0.0;
  }
};

/// Sizes a fabric; throws UserError when it cannot be built (radix too small, too many endpoints for the tiers).
[[nodiscard]] FabricPlan plan_fabric(const FabricInput& in);

/// Pluggable transceiver modules of a fabric, per tier of links.
struct ModuleCounts {
  /// NIC side: one single-port module per optical NIC port.
  std::int64_t nic = 0;
  /// Leaf ports facing the NICs.
  std::int64_t leaf_host = 0;
  /// Both ends of the leaf-spine links.
  std::int64_t leaf_spine = 0;
  /// Both ends of the spine-core links.
  std::int64_t spine_core = 0;
  /// All modules.
  [[nodiscard]] std::int64_t total() const { return nic + leaf_host + leaf_spine + spine_core; }
};

/// Modules counted switch by switch: a switch-side module serves `ports_per_module` ports of one switch facing
/// one way (a twin-port 800G OSFP cage takes two 400G links, never shared between switches), so each switch needs
/// ceil(ports down / m) + ceil(ports up / m); no switch-side modules when the switch optics are co-packaged, no
/// NIC-side or leaf host-facing modules when the host links are copper.
[[nodiscard]] ModuleCounts count_modules(const FabricPlan& p, std::int64_t ports_per_module, bool host_optical, bool co_packaged);

}  // namespace infracalc::net
