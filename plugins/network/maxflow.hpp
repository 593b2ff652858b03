// Maximum flow (Dinic's algorithm) on a graph with integer capacities: the min-cut behind bisection figures.
#pragma once

#include <cstdint>
#include <vector>

namespace infracalc::net {

/// A flow network; vertices are 0..n-1.
class MaxFlow {
 public:
  /// A network of n vertices and no arcs.
  explicit MaxFlow(int n);
  /// Adds an arc u→v of capacity `cap` and v→u of capacity `back` (equal for an undirected link).
  void add_edge(int u, int v, std::int64_t cap, std::int64_t back = 0);
  /// The maximum flow from s to t (equal to the minimum s-t cut, Ford-Fulkerson). Call once.
  [[nodiscard]] std::int64_t run(int s, int t);
  /// Vertices in the network.
  [[nodiscard]] int size() const { return static_cast<int>(head_.size()); }

 private:
  struct Arc {
    int to;
    int next;
    std::int64_t cap;
  };
  bool bfs(int s, int t);
  std::int64_t dfs(int s, int t, std::int64_t pushed);
  std::vector<int> head_, level_, iter_;
  std::vector<Arc> arcs_;
};

}  // namespace infracalc::net
