// The topology zoo in closed form: ring, mesh, torus, fully connected, crossbar, k-ary fat tree and dragonfly.
// Hops are links on a shortest (for the dragonfly: minimal local-global-local) path between two endpoints;
// switched topologies count the two host links.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace infracalc::net {

/// Which topology.
enum class TopologyKind : std::uint8_t { ring, mesh, torus, full_mesh, crossbar, fat_tree, dragonfly };

/// Parameters of a topology.
struct TopologySpec {
  /// The kind.
  TopologyKind kind = TopologyKind::ring;
  /// Ring: {N}; mesh and torus: the side of each dimension; full mesh and crossbar: {N}.
  std::vector<std::int64_t> sides;
  /// Fat tree: switch radix k (even).
  std::int64_t k = 0;
  /// Dragonfly: routers per group (a), hosts per router (p), global links per router (h), groups (g).
  std::int64_t a = 0, p = 0, h = 0, g = 0;
};

/// Closed-form figures of a topology.
struct TopologyMetrics {
  /// Endpoints (nodes of a direct network, hosts of a switched one).
  double endpoints = 0;
  /// Switches or routers that are not endpoints (0 for direct networks).
  double switches = 0;
  /// Links between network nodes (host links excluded).
  double network_links = 0;
  /// Host-to-switch links (switched topologies).
  double host_links = 0;
  /// Network ports per node or router (its degree in the network, host ports excluded).
  double ports_per_router = 0;
  /// Longest shortest path, in links.
  double diameter = 0;
  /// Mean shortest path over ordered pairs of distinct endpoints, in links.
  double average_hops = 0;
  /// Links cut when the endpoints are split into two halves along the cheapest straight cut.
  double bisection_links = 0;
  /// Crosspoints (crossbar only): N^2.
  double crosspoints = 0;
  /// True when the halves of the cut differ in size (odd longest side, odd group count).
  bool uneven_cut = false;
};

/// The metrics of `s`; throws UserError for sizes that do not make the topology.
[[nodiscard]] TopologyMetrics topology_metrics(const TopologySpec& s);

/// Sum over ordered pairs (i, j) of |i - j| on a line of k nodes: k(k^2 - 1)/3.
[[nodiscard]] double line_distance_sum(std::int64_t k);

/// Sum over ordered pairs of ring distance min(|i - j|, k - |i - j|) on a ring of k nodes: k x floor(k^2/4).
[[nodiscard]] double ring_distance_sum(std::int64_t k);

/// The most-square factorisation a x b = n with a <= b.
[[nodiscard]] std::vector<std::int64_t> square_sides(std::int64_t n);

/// Parses "10x12" or "8x8x8"; throws UserError naming `flag`.
[[nodiscard]] std::vector<std::int64_t> parse_shape(const std::string& text, const std::string& flag);

}  // namespace infracalc::net
