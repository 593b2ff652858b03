// The fabric builder: wires a fat tree port by port (hosts, leaves, spines, cores) and counts what it used, so
// that the closed forms of fabric_math can be checked against a real graph.
#pragma once

#include <cstdint>
#include <vector>

#include "plugins/network/fabric_math.hpp"

namespace infracalc::net {

/// A wired fabric: vertices with roles and the links between them.
struct FabricGraph {
  /// What a vertex is.
  enum class Role : std::uint8_t { host, leaf, spine, core };
  /// One cable: its two ends and its tier (0 host-leaf, 1 leaf-spine, 2 spine-core).
  struct Link {
    /// One end.
    int a;
    /// The other end.
    int b;
    /// Tier of the link.
    int tier;
  };
  /// Role of each vertex.
  std::vector<Role> role;
  /// Every link.
  std::vector<Link> links;
  /// Host vertices in endpoint order (node-major for rail-optimised).
  std::vector<int> hosts;
  /// Ports of each switch.
  std::int64_t radix = 0;

  /// Vertices of a role.
  [[nodiscard]] std::int64_t count(Role r) const;
  /// Links in a tier.
  [[nodiscard]] std::int64_t links_in_tier(int tier) const;
  /// The most ports any one switch uses (must not exceed the radix).
  [[nodiscard]] std::int64_t busiest_switch_ports() const;
};

/// Wires the fabric for `in` with in.tiers tiers (1-3): hosts fill leaf ports in order (or per rail), leaf
/// uplinks go round-robin over the fewest spines whose ports suffice and that every leaf reaches equally often,
/// found by trying; in three tiers leaves form pods of k/2 with one aggregation switch per leaf uplink, and
/// aggregation uplinks go round-robin over the fewest core switches per plane found the same way.
[[nodiscard]] FabricGraph build_fabric_graph(const FabricInput& in);

/// The bisection in links, one direction: the maximum flow from the first half of the hosts (endpoint order)
/// to the second half over the wired graph, every link carrying one unit each way.
[[nodiscard]] std::int64_t bisection_max_flow(const FabricGraph& g);

}  // namespace infracalc::net
