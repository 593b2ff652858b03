#include "plugins/network/maxflow.hpp"

#include <algorithm>
#include <limits>

namespace infracalc::net {

MaxFlow::MaxFlow(int n) : head_(static_cast<std::size_t>(n), -1) {}

void MaxFlow::add_edge(int u, int v, std::int64_t cap, std::int64_t back) {
  arcs_.push_back({v, head_[static_cast<std::size_t>(u)], cap});
  head_[static_cast<std::size_t>(u)] = static_cast<int>(arcs_.size()) - 1;
  arcs_.push_back({u, head_[static_cast<std::size_t>(v)], back});
  head_[static_cast<std::size_t>(v)] = static_cast<int>(arcs_.size()) - 1;
}

// Dinic (1970): BFS levels, then blocking flows along strictly increasing levels; arcs are stored in pairs so
// that arc i ^ 1 is the residual of arc i.
bool MaxFlow::bfs(int s, int t) {
  level_.assign(head_.size(), -1);
  std::vector<int> queue{s};
  level_[static_cast<std::size_t>(s)] = 0;
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const int u = queue[q];
    for (int a = head_[static_cast<std::size_t>(u)]; a != -1; a = arcs_[static_cast<std::size_t>(a)].next) {
      const Arc& arc = arcs_[static_cast<std::size_t>(a)];
      if (arc.cap > 0 && level_[static_cast<std::size_t>(arc.to)] < 0) {
        level_[static_cast<std::size_t>(arc.to)] = level_[static_cast<std::size_t>(u)] + 1;
        queue.push_back(arc.to);
      }
    }
  }
  return level_[static_cast<std::size_t>(t)] >= 0;
}

std::int64_t MaxFlow::dfs(int u, int t, std::int64_t pushed) {
  if (u == t) return pushed;
  for (int& a = iter_[static_cast<std::size_t>(u)]; a != -1; a = arcs_[static_cast<std::size_t>(a)].next) {
    Arc& arc = arcs_[static_cast<std::size_t>(a)];
    if (arc.cap <= 0 || level_[static_cast<std::size_t>(arc.to)] != level_[static_cast<std::size_t>(u)] + 1) continue;
    const std::int64_t got = dfs(arc.to, t, std::min(pushed, arc.cap));
    if (got > 0) {
      arc.cap -= got;
      arcs_[static_cast<std::size_t>(a ^ 1)].cap += got;
      return got;
    }
  }
  return 0;
}

std::int64_t MaxFlow::run(int s, int t) {
  std::int64_t flow = 0;
  while (bfs(s, t)) {
    iter_ = head_;
    while (const std::int64_t f = dfs(s, t, std::numeric_limits<std::int64_t>::max())) flow += f;
  }
  return flow;
}

}  // namespace infracalc::net
