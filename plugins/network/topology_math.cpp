#include "plugins/network/topology_math.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "units/expected.hpp"

namespace infracalc::net {

double line_distance_sum(std::int64_t k) {
  const auto kd = static_cast<double>(k);
  return kd * (kd * kd - 1.0) / 3.0;
}

double ring_distance_sum(std::int64_t k) {
  // From one node the distances are 1, 1, 2, 2, ..., and k/2 once when k is even: floor(k^2/4) in all.
  return static_cast<double>(k) * static_cast<double>((k * k) / 4);
}

std::vector<std::int64_t> square_sides(std::int64_t n) {
  auto a = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
  while (a > 1 && n % a != 0) --a;
  return {a, n / a};
}

std::vector<std::int64_t> parse_shape(const std::string& text, const std::string& flag) {
  std::vector<std::int64_t> out;
  std::string cur;
  auto flush = [&] {
    if (cur.empty() || cur.find_first_not_of("0123456789") != std::string::npos || cur.size() > 9)
      throw UserError{{fmt::format("{}: expected sides such as 10x12 or 8x8x8, got \"{}\"", flag, text), "e.g. --shape 10x12"}};
    out.push_back(std::stoll(cur));
    cur.clear();
  };
  for (char c : text) {
    if (c == 'x' || c == 'X' || c == '*') flush();
    else cur += c;
  }
  flush();
  for (auto s : out)
    if (s < 1) throw UserError{{fmt::format("{}: every side must be at least 1, got \"{}\"", flag, text), "e.g. 10x12"}};
  return out;
}

namespace {

void need(bool ok, const std::string& what, const std::string& hint) {
  if (!ok) throw UserError{{what, hint}};
}

TopologyMetrics grid_metrics(const std::vector<std::int64_t>& sides, bool torus) {
  TopologyMetrics m;
  double n = 1;
  for (auto k : sides) n *= static_cast<double>(k);
  need(n >= 2, "a mesh or torus needs at least 2 nodes", "give --nodes 2 or more");
  m.endpoints = n;
  double pair_sum = 0;
  std::int64_t longest = 0;
  for (auto k : sides) {
    const double others = n / static_cast<double>(k);
    // A torus side of 2 has one link between its two nodes, like a mesh side; from 3 up it wraps around.
    const bool wraps = torus && k >= 3;
    m.network_links += (wraps ? static_cast<double>(k) : static_cast<double>(k - 1)) * others;
    m.diameter += wraps ? static_cast<double>(k / 2) : static_cast<double>(k - 1);
    pair_sum += others * others * (wraps ? ring_distance_sum(k) : line_distance_sum(k));
    if (k > 1) m.ports_per_router += wraps ? 2 : (k == 2 ? 1 : 2);
    longest = std::max(longest, k);
  }
  m.average_hops = pair_sum / (n * (n - 1));
  // Cut the longest side in the middle: the other sides' product of links cross, twice when it wraps.
  const double cross = n / static_cast<double>(longest);
  m.bisection_links = (torus && longest >= 3 ? 2.0 : 1.0) * cross;
  m.uneven_cut = longest % 2 != 0;
  return m;
}

}  // namespace

TopologyMetrics topology_metrics(const TopologySpec& s) {
  TopologyMetrics m;
  switch (s.kind) {
    case TopologyKind::ring: {
      need(s.sides.size() == 1 && s.sides[0] >= 2, "a ring needs at least 2 nodes", "give --nodes N");
      const std::int64_t n = s.sides[0];
      if (n == 2) {
        m = grid_metrics({2}, false);
        return m;
      }
      m.endpoints = static_cast<double>(n);
      m.network_links = static_cast<double>(n);
      m.ports_per_router = 2;
      m.diameter = static_cast<double>(n / 2);
      m.average_hops = ring_distance_sum(n) / (static_cast<double>(n) * static_cast<double>(n - 1));
      m.bisection_links = 2;
      m.uneven_cut = n % 2 != 0;
      return m;
    }
    case TopologyKind::mesh:
    case TopologyKind::torus:
      need(!s.sides.empty(), "a mesh or torus needs its sides", "give --shape 10x12 or --nodes N");
      return grid_metrics(s.sides, s.kind == TopologyKind::torus);
    case TopologyKind::full_mesh: {
      need(s.sides.size() == 1 && s.sides[0] >= 2, "a fully connected network needs at least 2 nodes", "give --nodes N");
      const auto n = static_cast<double>(s.sides[0]);
      m.endpoints = n;
      m.network_links = n * (n - 1) / 2;
      m.ports_per_router = n - 1;
      m.diameter = 1;
      m.average_hops = 1;
      m.bisection_links = std::floor(n / 2) * std::ceil(n / 2);
      m.uneven_cut = s.sides[0] % 2 != 0;
      return m;
    }
    case TopologyKind::crossbar: {
      need(s.sides.size() == 1 && s.sides[0] >= 2, "a crossbar needs at least 2 ports", "give --nodes N");
      const auto n = static_cast<double>(s.sides[0]);
      m.endpoints = n;
      m.switches = 1;
      m.host_links = n;
      m.ports_per_router = n;
      m.diameter = 2;
      m.average_hops = 2;
      m.bisection_links = std::floor(n / 2);
      m.crosspoints = n * n;
      m.uneven_cut = s.sides[0] % 2 != 0;
      return m;
    }
    case TopologyKind::fat_tree: {
      need(s.k >= 2 && s.k % 2 == 0, fmt::format("a k-ary fat tree needs an even k >= 2, got {}", s.k), "e.g. --k 64");
      const auto k = static_cast<double>(s.k);
      const double hosts = k * k * k / 4;
      m.endpoints = hosts;
      m.switches = 5 * k * k / 4;  // k^2/4 core + k^2/2 aggregation + k^2/2 edge (Al-Fares et al. 2008)
      m.host_links = hosts;
      m.network_links = 2 * hosts;  // edge-aggregation and aggregation-core, k^3/4 each
      m.ports_per_router = k;
      // Same edge switch: 2 links; same pod: 4; another pod: 6.
      const double same_edge = k / 2 - 1;
      const double same_pod = (k / 2 - 1) * (k / 2);
      const double other_pod = (k - 1) * k * k / 4;
      m.diameter = 6;
      m.average_hops = (2 * same_edge + 4 * same_pod + 6 * other_pod) / (hosts - 1);
      m.bisection_links = hosts / 2;
      return m;
    }
    case TopologyKind::dragonfly: {
      need(s.a >= 1 && s.p >= 1 && s.h >= 1, "a dragonfly needs routers per group, hosts per router and global links per router",
           "give --group-size, --hosts-per-router and --global-links");
      need(s.g >= 1 && s.g <= s.a * s.h + 1,
           fmt::format("{} groups: at most a x h + 1 = {} groups get a global link to every other group", s.g, s.a * s.h + 1),
           "give fewer --groups or more global links");
      const auto a = static_cast<double>(s.a);
      const auto p = static_cast<double>(s.p);
      const auto g = static_cast<double>(s.g);
      const double n = p * a * g;
      need(n >= 2, "the dragonfly has fewer than 2 hosts", "give more hosts or groups");
      m.endpoints = n;
      m.switches = a * g;
      m.host_links = n;
      m.network_links = g * a * (a - 1) / 2 + g * (g - 1) / 2;  // full groups, one global link per pair of groups
      m.ports_per_router = (a - 1) + static_cast<double>(s.h);
      // Minimal routing (Kim et al., ISCA 2008): local, global, local. Source and destination routers miss the
      // global link's routers with probability (a - 1)/a each.
      const double other_group = 3 + 2 * (a - 1) / a;
      m.average_hops = (2 * (p - 1) + 3 * p * (a - 1) + other_group * p * a * (g - 1)) / (n - 1);
      m.diameter = g > 1 ? (s.a > 1 ? 5 : 3) : (s.a > 1 ? 3 : 2);
      // Halve the groups: one global link per pair of groups crosses, unless the smaller half's host links are fewer.
      m.bisection_links = std::min(std::floor(g / 2) * std::ceil(g / 2), std::floor(g / 2) * a * p);
      m.uneven_cut = s.g % 2 != 0;
      if (s.g == 1) {
        m.bisection_links = s.a > 1 ? std::floor(a / 2) * std::ceil(a / 2) : std::floor(p / 2);
        m.uneven_cut = s.a > 1 ? s.a % 2 != 0 : s.p % 2 != 0;
      }
      return m;
    }
  }
  return m;
}

}  // namespace infracalc::net
