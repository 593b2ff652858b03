#include "plugins/network/fabric_graph.hpp"

#include <algorithm>
#include <stdexcept>

#include "plugins/network/maxflow.hpp"

namespace infracalc::net {

std::int64_t FabricGraph::count(Role r) const { return std::count(role.begin(), role.end(), r); }

std::int64_t FabricGraph::links_in_tier(int tier) const {
  return std::count_if(links.begin(), links.end(), [&](const Link& l) { return l.tier == tier; });
}

std::int64_t FabricGraph::busiest_switch_ports() const {
  std::vector<std::int64_t> used(role.size(), 0);
  for (const auto& l : links) {
    ++used[static_cast<std::size_t>(l.a)];
    ++used[static_cast<std::size_t>(l.b)];
  }
  std::int64_t most = 0;
  for (std::size_t v = 0; v < role.size(); ++v)
    if (role[v] != Role::host) most = std::max(most, used[v]);
  return most;
}

namespace {

struct Builder {
  FabricGraph g;
  std::vector<std::int64_t> used;  // ports used per vertex

  int add(FabricGraph::Role r) {
    g.role.push_back(r);
    used.push_back(0);
    return static_cast<int>(g.role.size()) - 1;
  }
  void connect(int a, int b, int tier) {
    g.links.push_back({a, b, tier});
    ++used[static_cast<std::size_t>(a)];
    ++used[static_cast<std::size_t>(b)];
    if (g.role[static_cast<std::size_t>(a)] != FabricGraph::Role::host && used[static_cast<std::size_t>(a)] > g.radix)
      throw std::logic_error("fabric builder: a switch ran out of ports");
    if (used[static_cast<std::size_t>(b)] > g.radix) throw std::logic_error("fabric builder: a switch ran out of ports");
  }
};

// The fewest targets over which `uplinks[i]` links from each source, dealt round-robin in one global sequence,
// load no target beyond `radix` ports, with a full source (`full` uplinks) reaching every target equally often:
// found by trying 1, 2, 3, ... targets and counting the load.
std::int64_t fewest_targets(const std::vector<std::int64_t>& uplinks, std::int64_t radix, std::int64_t full) {
  std::int64_t total = 0;
  for (auto u : uplinks) total += u;
  for (std::int64_t n = 1;; ++n) {
    if (full % n != 0 && n < total) continue;
    std::vector<std::int64_t> load(static_cast<std::size_t>(n), 0);
    std::int64_t seq = 0;
    for (auto u : uplinks)
      for (std::int64_t j = 0; j < u; ++j) ++load[static_cast<std::size_t>(seq++ % n)];
    if (*std::max_element(load.begin(), load.end()) <= radix) return n;
    if (n > total) throw std::logic_error("fabric builder: no spine count fits");
  }
}

}  // namespace

FabricGraph build_fabric_graph(const FabricInput& in) {
  Builder b;
  b.g.radix = in.radix;
  using Role = FabricGraph::Role;
  const int tiers = in.tiers;
  const LeafPorts lp = tiers == 1 ? LeafPorts{in.radix, 0} : leaf_ports(in.radix, in.oversubscription);
  for (std::int64_t h = 0; h < in.endpoints; ++h) b.g.hosts.push_back(b.add(Role::host));

  // Hosts onto leaves: fill each leaf's host ports before opening the next; rail-optimised keeps one open leaf
  // per rail, so a group's leaves open together (group-major order).
  std::vector<int> leaves;
  if (in.design == FabricDesign::rail_optimised && tiers > 1) {
    std::vector<int> open(static_cast<std::size_t>(in.rails), -1);
    for (std::int64_t h = 0; h < in.endpoints; ++h) {
      const auto rail = static_cast<std::size_t>(h % in.rails);
      if (open[rail] < 0 || b.used[static_cast<std::size_t>(open[rail])] >= lp.down) {
        open[rail] = b.add(Role::leaf);
        leaves.push_back(open[rail]);
      }
      b.connect(b.g.hosts[static_cast<std::size_t>(h)], open[rail], 0);
    }
    // Leaves were opened rail by rail within a group; order them group-major as pods need.
  } else {
    int open = -1;
    for (std::int64_t h = 0; h < in.endpoints; ++h) {
      if (open < 0 || b.used[static_cast<std::size_t>(open)] >= lp.down) {
        open = b.add(Role::leaf);
        leaves.push_back(open);
      }
      b.connect(b.g.hosts[static_cast<std::size_t>(h)], open, 0);
    }
  }
  if (tiers == 1) {
    if (leaves.size() != 1) throw std::logic_error("fabric builder: one tier needs one switch");
    return b.g;
  }
  const auto n_leaves = static_cast<std::int64_t>(leaves.size());
  if (tiers == 2) {
    const std::vector<std::int64_t> ups(static_cast<std::size_t>(n_leaves), lp.up);
    const std::int64_t n_spines = fewest_targets(ups, in.radix, lp.up);
    std::vector<int> spines;
    for (std::int64_t s = 0; s < n_spines; ++s) spines.push_back(b.add(Role::spine));
    std::int64_t seq = 0;
    for (int leaf : leaves)
      for (std::int64_t j = 0; j < lp.up; ++j) b.connect(leaf, spines[static_cast<std::size_t>(seq++ % n_spines)], 1);
    return b.g;
  }
  // Three tiers.
  std::int64_t per_pod = in.radix / 2;
  if (in.design == FabricDesign::rail_optimised) per_pod = per_pod / in.rails * in.rails;
  std::vector<std::vector<int>> aggs;  // [pod][plane]
  std::vector<std::vector<std::int64_t>> agg_up;  // uplinks each aggregation switch owes the core
  for (std::int64_t first = 0; first < n_leaves; first += per_pod) {
    const std::int64_t last = std::min(n_leaves, first + per_pod);
    std::vector<int> pod_aggs;
    for (std::int64_t j = 0; j < lp.up; ++j) pod_aggs.push_back(b.add(Role::spine));
    for (std::int64_t l = first; l < last; ++l)
      for (std::int64_t j = 0; j < lp.up; ++j) b.connect(leaves[static_cast<std::size_t>(l)], pod_aggs[static_cast<std::size_t>(j)], 1);
    aggs.push_back(pod_aggs);
    // Non-blocking aggregation: as many links up as leaves below.
    agg_up.emplace_back(static_cast<std::size_t>(lp.up), last - first);
  }
  for (std::int64_t j = 0; j < lp.up; ++j) {
    std::vector<std::int64_t> ups;
    for (const auto& pod : agg_up) ups.push_back(pod[static_cast<std::size_t>(j)]);
    const std::int64_t n_cores = fewest_targets(ups, in.radix, per_pod);
    std::vector<int> cores;
    for (std::int64_t c = 0; c < n_cores; ++c) cores.push_back(b.add(Role::core));
    std::int64_t seq = 0;
    for (std::size_t p = 0; p < aggs.size(); ++p)
      for (std::int64_t t = 0; t < agg_up[p][static_cast<std::size_t>(j)]; ++t)
        b.connect(aggs[p][static_cast<std::size_t>(j)], cores[static_cast<std::size_t>(seq++ % n_cores)], 2);
  }
  return b.g;
}

std::int64_t bisection_max_flow(const FabricGraph& g) {
  const int n = static_cast<int>(g.role.size());
  MaxFlow f(n + 2);
  const int s = n;
  const int t = n + 1;
  for (const auto& l : g.links) f.add_edge(l.a, l.b, 1, 1);
  const std::size_t half = g.hosts.size() / 2;
  // Each host injects or absorbs at most its one link's worth; the source and sink arcs are not the bottleneck
  // beyond that, so the flow measures the fabric between the halves.
  for (std::size_t i = 0; i < g.hosts.size(); ++i) {
    if (i < half) f.add_edge(s, g.hosts[i], 1);
    else if (i < 2 * half) f.add_edge(g.hosts[i], t, 1);
  }
  return f.run(s, t);
}

}  // namespace infracalc::net
