// Topologies as real graphs: builders for the zoo, breadth-first search for hop counts, and cuts for bisection.
#pragma once

#include <cstdint>
#include <vector>

#include "plugins/network/topology_math.hpp"

namespace infracalc::net {

/// An undirected graph with endpoint vertices marked and links tagged local or global (dragonfly).
struct TopologyGraph {
  /// Adjacency: for each vertex, (neighbour, global link?) pairs; parallel links appear once per link.
  std::vector<std::vector<std::pair<int, bool>>> adj;
  /// Endpoint vertices in order (the first half of them forms one side of the canonical cut).
  std::vector<int> endpoints;
  /// Vertices on the "first" side of the canonical straight cut, as the closed form cuts it.
  std::vector<bool> first_side;

  /// Adds a vertex and returns its id.
  int add_vertex();
  /// Adds an undirected link.
  void link(int a, int b, bool global = false);
  /// Undirected links.
  [[nodiscard]] std::int64_t link_count() const;
};

/// Builds the graph of `s` (fat trees through the fabric builder, dragonflies with one global link per pair of
/// groups, port j of group i to group i + j + 1).
[[nodiscard]] TopologyGraph build_topology(const TopologySpec& s);

/// Hop statistics from breadth-first search out of every endpoint.
struct HopStats {
  /// Longest shortest path between endpoints, in links.
  std::int64_t diameter = 0;
  /// Mean over ordered pairs of distinct endpoints.
  double average = 0;
};

/// BFS from every endpoint; with `one_global`, paths may use at most one global link (dragonfly minimal routing).
[[nodiscard]] HopStats bfs_hops(const TopologyGraph& g, bool one_global = false);

/// Links crossing the canonical cut (first_side against the rest), counted as a maximum flow between the two
/// sides' endpoints over the whole graph.
[[nodiscard]] std::int64_t canonical_cut_max_flow(const TopologyGraph& g);

/// The smallest cut over every split of the endpoints into equal halves, by enumeration with a maximum flow per
/// split: exact, for an even number of at most 20 endpoints.
[[nodiscard]] std::int64_t brute_force_bisection(const TopologyGraph& g);

}  // namespace infracalc::net
