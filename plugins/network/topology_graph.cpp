#include "plugins/network/topology_graph.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "plugins/network/fabric_graph.hpp"
#include "plugins/network/maxflow.hpp"

namespace infracalc::net {

int TopologyGraph::add_vertex() {
  adj.emplace_back();
  first_side.push_back(false);
  return static_cast<int>(adj.size()) - 1;
}

void TopologyGraph::link(int a, int b, bool global) {
  adj[static_cast<std::size_t>(a)].emplace_back(b, global);
  adj[static_cast<std::size_t>(b)].emplace_back(a, global);
}

std::int64_t TopologyGraph::link_count() const {
  std::int64_t twice = 0;
  for (const auto& n : adj) twice += static_cast<std::int64_t>(n.size());
  return twice / 2;
}

namespace {

// Mesh and torus: vertex index is the mixed-radix number of its coordinates.
TopologyGraph grid(const std::vector<std::int64_t>& sides, bool torus) {
  TopologyGraph g;
  std::int64_t n = 1;
  for (auto k : sides) n *= k;
  for (std::int64_t v = 0; v < n; ++v) g.endpoints.push_back(g.add_vertex());
  std::size_t longest = 0;
  for (std::size_t d = 1; d < sides.size(); ++d)
    if (sides[d] > sides[longest]) longest = d;
  std::int64_t stride = 1;
  std::vector<std::int64_t> strides;
  for (auto k : sides) {
    strides.push_back(stride);
    stride *= k;
  }
  for (std::int64_t v = 0; v < n; ++v) {
    for (std::size_t d = 0; d < sides.size(); ++d) {
      const std::int64_t k = sides[d];
      const std::int64_t c = (v / strides[d]) % k;
      if (d == longest) g.first_side[static_cast<std::size_t>(v)] = c < k / 2;
      if (c + 1 < k) g.link(static_cast<int>(v), static_cast<int>(v + strides[d]));
      else if (torus && k >= 3) g.link(static_cast<int>(v), static_cast<int>(v - c * strides[d]));
    }
  }
  return g;
}

}  // namespace

TopologyGraph build_topology(const TopologySpec& s) {
  switch (s.kind) {
    case TopologyKind::ring: {
      TopologyGraph g;
      const std::int64_t n = s.sides.at(0);
      for (std::int64_t v = 0; v < n; ++v) {
        g.endpoints.push_back(g.add_vertex());
        g.first_side[static_cast<std::size_t>(v)] = v < n / 2;
      }
      for (std::int64_t v = 0; v + 1 < n; ++v) g.link(static_cast<int>(v), static_cast<int>(v + 1));
      if (n >= 3) g.link(static_cast<int>(n - 1), 0);
      return g;
    }
    case TopologyKind::mesh:
    case TopologyKind::torus:
      return grid(s.sides, s.kind == TopologyKind::torus);
    case TopologyKind::full_mesh: {
      TopologyGraph g;
      const std::int64_t n = s.sides.at(0);
      for (std::int64_t v = 0; v < n; ++v) {
        g.endpoints.push_back(g.add_vertex());
        g.first_side[static_cast<std::size_t>(v)] = v < n / 2;
      }
      for (std::int64_t a = 0; a < n; ++a)
        for (std::int64_t b = a + 1; b < n; ++b) g.link(static_cast<int>(a), static_cast<int>(b));
      return g;
    }
    case TopologyKind::crossbar: {
      TopologyGraph g;
      const std::int64_t n = s.sides.at(0);
      const int x = g.add_vertex();
      for (std::int64_t v = 0; v < n; ++v) {
        const int h = g.add_vertex();
        g.endpoints.push_back(h);
        g.first_side[static_cast<std::size_t>(h)] = v < n / 2;
        g.link(h, x);
      }
      return g;
    }
    case TopologyKind::fat_tree: {
      FabricInput in;
      in.radix = s.k;
      in.endpoints = s.k * s.k * s.k / 4;
      in.tiers = 3;
      const FabricGraph f = build_fabric_graph(in);
      TopologyGraph g;
      for (std::size_t v = 0; v < f.role.size(); ++v) g.add_vertex();
      for (const auto& l : f.links) g.link(l.a, l.b);
      g.endpoints = f.hosts;
      for (std::size_t i = 0; i < f.hosts.size() / 2; ++i) g.first_side[static_cast<std::size_t>(f.hosts[i])] = true;
      return g;
    }
    case TopologyKind::dragonfly: {
      TopologyGraph g;
      std::vector<std::vector<int>> routers(static_cast<std::size_t>(s.g));
      for (std::int64_t grp = 0; grp < s.g; ++grp) {
        for (std::int64_t r = 0; r < s.a; ++r) {
          const int rv = g.add_vertex();
          routers[static_cast<std::size_t>(grp)].push_back(rv);
          for (std::int64_t h = 0; h < s.p; ++h) {
            const int hv = g.add_vertex();
            g.endpoints.push_back(hv);
            g.first_side[static_cast<std::size_t>(hv)] = grp < s.g / 2;
            g.link(hv, rv);
          }
        }
        for (std::int64_t r = 0; r < s.a; ++r)
          for (std::int64_t q = r + 1; q < s.a; ++q)
            g.link(routers[static_cast<std::size_t>(grp)][static_cast<std::size_t>(r)], routers[static_cast<std::size_t>(grp)][static_cast<std::size_t>(q)]);
      }
      // Global port j of group i leads to group (i + j + 1) mod g; router j / h owns port j.
      for (std::int64_t i = 0; i < s.g; ++i)
        for (std::int64_t t = i + 1; t < s.g; ++t) {
          const std::int64_t j = ((t - i - 1) % s.g + s.g) % s.g;
          const std::int64_t back = ((i - t - 1) % s.g + s.g) % s.g;
          g.link(routers[static_cast<std::size_t>(i)][static_cast<std::size_t>(j / s.h)],
                 routers[static_cast<std::size_t>(t)][static_cast<std::size_t>(back / s.h)], true);
        }
      return g;
    }
  }
  throw std::logic_error("unknown topology");
}

HopStats bfs_hops(const TopologyGraph& g, bool one_global) {
  const std::size_t n = g.adj.size();
  std::vector<char> is_end(n, 0);
  for (int e : g.endpoints) is_end[static_cast<std::size_t>(e)] = 1;
  HopStats st;
  double sum = 0;
  std::vector<std::int64_t> dist(2 * n);
  std::vector<std::pair<int, int>> queue;
  for (int src : g.endpoints) {
    // State (vertex, global links used so far); without the limit every state keeps used = 0.
    std::fill(dist.begin(), dist.end(), -1);
    queue.clear();
    queue.emplace_back(src, 0);
    dist[static_cast<std::size_t>(src) * 2] = 0;
    for (std::size_t q = 0; q < queue.size(); ++q) {
      const auto [u, used] = queue[q];
      const std::int64_t du = dist[static_cast<std::size_t>(u) * 2 + static_cast<std::size_t>(used)];
      for (const auto& [v, global] : g.adj[static_cast<std::size_t>(u)]) {
        int nu = used;
        if (global && one_global) {
          if (used == 1) continue;
          nu = 1;
        }
        auto& dv = dist[static_cast<std::size_t>(v) * 2 + static_cast<std::size_t>(nu)];
        if (dv >= 0) continue;
        dv = du + 1;
        queue.emplace_back(v, nu);
      }
    }
    for (int dst : g.endpoints) {
      if (dst == src) continue;
      std::int64_t d0 = dist[static_cast<std::size_t>(dst) * 2];
      const std::int64_t d1 = dist[static_cast<std::size_t>(dst) * 2 + 1];
      if (d0 < 0 || (d1 >= 0 && d1 < d0)) d0 = d1;
      if (d0 < 0) throw std::logic_error("topology graph is disconnected");
      st.diameter = std::max(st.diameter, d0);
      sum += static_cast<double>(d0);
    }
  }
  const auto e = static_cast<double>(g.endpoints.size());
  st.average = sum / (e * (e - 1));
  return st;
}

namespace {

std::int64_t cut_flow(const TopologyGraph& g, const std::vector<bool>& side_a, const std::vector<bool>& is_end) {
  const int n = static_cast<int>(g.adj.size());
  MaxFlow f(n + 2);
  for (int u = 0; u < n; ++u)
    for (const auto& [v, global] : g.adj[static_cast<std::size_t>(u)])
      if (u < v) f.add_edge(u, v, 1, 1);
  const std::int64_t big = static_cast<std::int64_t>(g.adj.size()) * 4;
  for (int u = 0; u < n; ++u) {
    if (!is_end[static_cast<std::size_t>(u)]) continue;
    if (side_a[static_cast<std::size_t>(u)]) f.add_edge(n, u, big);
    else f.add_edge(u, n + 1, big);
  }
  return f.run(n, n + 1);
}

}  // namespace

std::int64_t canonical_cut_max_flow(const TopologyGraph& g) {
  std::vector<bool> is_end(g.adj.size(), false);
  for (int e : g.endpoints) is_end[static_cast<std::size_t>(e)] = true;
  return cut_flow(g, g.first_side, is_end);
}

std::int64_t brute_force_bisection(const TopologyGraph& g) {
  const std::size_t e = g.endpoints.size();
  if (e > 20 || e % 2 != 0) throw std::logic_error("brute-force bisection is for an even count of at most 20 endpoints");
  std::vector<bool> is_end(g.adj.size(), false);
  for (int v : g.endpoints) is_end[static_cast<std::size_t>(v)] = true;
  std::int64_t best = std::numeric_limits<std::int64_t>::max();
  const std::size_t half = e / 2;
  // Endpoint 0 stays on side B, so each split is tried once (for even e); side A takes `half` of the others.
  for (std::uint32_t mask = 0; mask < (1u << e); ++mask) {
    if ((mask & 1u) != 0 || static_cast<std::size_t>(__builtin_popcount(mask)) != half) continue;
    std::vector<bool> side(g.adj.size(), false);
    for (std::size_t i = 0; i < e; ++i)
      if ((mask >> i) & 1u) side[static_cast<std::size_t>(g.endpoints[i])] = true;
    best = std::min(best, cut_flow(g, side, is_end));
  }
  return best;
}

}  // namespace infracalc::net
