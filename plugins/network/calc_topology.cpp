// `network topology`: the topology zoo — ring, mesh, torus, fully connected, crossbar, k-ary fat tree, dragonfly —
// with bisection, diameter and average hops, in closed form and (with --bfs) by search over the real graph.
#include <cmath>
#include <fmt/format.h>

#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "plugins/network/topology_graph.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

constexpr double kMaxBfsVertices = 20000;

TopologySpec read_spec(Context& ctx, std::vector<std::string>& notes) {
  TopologySpec s;
  const std::string kind = ctx.text("kind");
  const bool has_nodes = ctx.has("nodes");
  const std::int64_t nodes = has_nodes ? ctx.integer("nodes") : 0;
  if (nodes > 1'000'000'000'000)
    throw UserError{{fmt::format("--nodes {} is above the 10^12 this calculator sizes", nodes), "give a smaller network"}};
  auto need_nodes = [&] {
    if (!has_nodes) throw UserError{{"--kind " + kind + " needs --nodes N", "e.g. --nodes 64"}};
    return nodes;
  };
  if (kind == "ring") {
    s.kind = TopologyKind::ring;
    s.sides = {need_nodes()};
  } else if (kind == "mesh" || kind == "torus") {
    s.kind = kind == "mesh" ? TopologyKind::mesh : TopologyKind::torus;
    if (ctx.has("shape")) {
      s.sides = parse_shape(ctx.text("shape"), "--shape");
      std::int64_t n = 1;
      for (auto k : s.sides) n *= k;
      if (has_nodes && n != nodes)
        throw UserError{{fmt::format("--shape {} has {} nodes but --nodes is {}", ctx.text("shape"), n, nodes), "drop one of them"}};
    } else {
      s.sides = square_sides(need_nodes());
      notes.push_back(fmt::format("{} nodes laid out as {} x {} (the most square 2D shape; give --shape for another)", nodes,
                                  s.sides[0], s.sides[1]));
      if (s.sides[0] == 1) notes.push_back("a prime node count makes a line, not a 2D grid");
    }
  } else if (kind == "full-mesh") {
    s.kind = TopologyKind::full_mesh;
    s.sides = {need_nodes()};
  } else if (kind == "crossbar") {
    s.kind = TopologyKind::crossbar;
    s.sides = {need_nodes()};
  } else if (kind == "fat-tree") {
    s.kind = TopologyKind::fat_tree;
    if (ctx.has("k")) {
      s.k = ctx.integer("k");
      if (s.k > 100000) throw UserError{{fmt::format("--k {} is beyond any switch radix", s.k), "e.g. --k 64"}};
    } else {
      const std::int64_t n = need_nodes();
      s.k = 2;
      while (s.k * s.k * s.k / 4 < n) s.k += 2;
      notes.push_back(fmt::format("the smallest k-ary fat tree for {} hosts has k = {} and holds {}; figures are for the full tree", n,
                                  s.k, s.k * s.k * s.k / 4));
    }
  } else {
    s.kind = TopologyKind::dragonfly;
    const bool explicit_shape = ctx.has("group_size") || ctx.has("global_links");
    if (explicit_shape) {
      if (!ctx.has("group_size") || !ctx.has("global_links"))
        throw UserError{{"a dragonfly needs both --group-size (routers per group) and --global-links (per router)", "e.g. --group-size 8 --global-links 4"}};
      s.a = ctx.integer("group_size");
      s.h = ctx.integer("global_links");
      if (s.a > 100000 || s.h > 100000)
        throw UserError{{"--group-size and --global-links above 100,000 are beyond any router", "e.g. --group-size 8 --global-links 4"}};
      s.p = ctx.has("hosts_per_router") ? ctx.integer("hosts_per_router") : 1;
      s.g = ctx.has("groups") ? ctx.integer("groups") : s.a * s.h + 1;
    } else {
      // Balanced dragonfly (Kim et al. 2008): a = 2p = 2h, g = a h + 1 groups.
      const std::int64_t n = need_nodes();
      std::int64_t h = 1;
      while (h * 2 * h * (2 * h * h + 1) < n) ++h;
      s.h = h;
      s.p = h;
      s.a = 2 * h;
      s.g = s.a * s.h + 1;
      notes.push_back(fmt::format("balanced dragonfly for {} hosts: a = {} routers per group, p = {} hosts and h = {} global links "
                                  "per router, g = {} groups ({} hosts); give --group-size and --global-links for another",
                                  n, s.a, s.p, s.h, s.g, s.p * s.a * s.g));
    }
  }
  return s;
}

void run_topology(Context& ctx) {
  std::vector<std::string> notes;
  const TopologySpec s = read_spec(ctx, notes);
  const TopologyMetrics m = topology_metrics(s);
  ctx.set_number("endpoints", m.endpoints);
  ctx.set_number("switches", m.switches);
  ctx.set_number("network_links", m.network_links);
  ctx.set_number("host_links", m.host_links);
  ctx.set_number("links", m.network_links + m.host_links);
  ctx.set_number("ports_per_router", m.ports_per_router);
  ctx.set_number("diameter", m.diameter);
  ctx.set_number("average_hops", m.average_hops);
  ctx.set_number("bisection_links", m.bisection_links);
  ctx.set_number("bisection_per_endpoint", m.bisection_links / m.endpoints);
  ctx.set_number("bisection_vs_sqrt_n", m.bisection_links / std::sqrt(m.endpoints));
  if (m.crosspoints > 0) ctx.set_number("crosspoints", m.crosspoints);
  if (s.kind == TopologyKind::dragonfly) {
    ctx.set_number("local_links_per_router", static_cast<double>(s.a - 1));
    ctx.set_number("global_links_per_router", static_cast<double>(s.h));
    ctx.set_number("groups", static_cast<double>(s.g));
  }
  if (ctx.has("link_bandwidth")) {
    const BytesPerSecond bw = ctx.get<BytesPerSecond>("link_bandwidth");
    ctx.set("bisection_bandwidth", bw * m.bisection_links);
    ctx.set("bisection_bandwidth_both", bw * m.bisection_links * 2.0);
  }
  if (ctx.has("aggregate_bandwidth")) ctx.set("per_node_bandwidth", ctx.get<BytesPerSecond>("aggregate_bandwidth") / m.endpoints);

  if (ctx.flag("bfs")) {
    if (m.endpoints + m.switches > kMaxBfsVertices)
      throw UserError{{fmt::format("--bfs searches from every endpoint; {} vertices is above the {} limit", m.endpoints + m.switches,
                                   kMaxBfsVertices),
                       "drop --bfs (the closed forms hold at any size) or try a smaller instance"}};
    const TopologyGraph g = build_topology(s);
    const HopStats h = bfs_hops(g, s.kind == TopologyKind::dragonfly);
    ctx.set_number("bfs_diameter", static_cast<double>(h.diameter));
    ctx.set_number("bfs_average_hops", h.average);
    ctx.set_number("bfs_links", static_cast<double>(g.link_count()));
    ctx.set_number("max_flow_bisection", static_cast<double>(canonical_cut_max_flow(g)));
  }

  if (m.uneven_cut)
    notes.push_back("the longest side (or group count) is odd: the straight cut splits the endpoints unevenly, and a balanced "
                    "bisection may cut a few more links");
  switch (s.kind) {
    case TopologyKind::mesh:
      notes.push_back("2D mesh: bisection grows as sqrt(N) (one row of links) while the nodes grow as N, so bisection per node "
                      "falls as 1/sqrt(N); a torus doubles the cut, a constant factor");
      break;
    case TopologyKind::torus:
      notes.push_back("torus: wraparound links double the mesh's cut and halve its diameter");
      break;
    case TopologyKind::crossbar:
      notes.push_back("crossbar: N^2 crosspoints (wire and area grow quadratically); hops count the two links through the crossbar");
      break;
    case TopologyKind::fat_tree:
      notes.push_back("k-ary fat tree (Al-Fares et al. 2008): k^3/4 hosts, 5k^2/4 switches, full bisection; hops include the host links");
      break;
    case TopologyKind::dragonfly:
      notes.push_back("dragonfly (Kim et al. 2008): fully connected groups, one global link between each pair of groups; hops are "
                      "for minimal routing (local, global, local) and include the host links; bisection cuts the groups in half");
      break;
    default:
      break;
  }
  notes.push_back("hops = links on a shortest path between two endpoints, averaged over all ordered pairs of distinct endpoints");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_topology_calculator() {
  Calculator c;
  c.name = "topology";
  c.summary = "topology zoo: bisection, diameter and average hops of ring, mesh, torus, full mesh, crossbar, fat tree, dragonfly";
  c.description =
      "Ring of N: diameter floor(N/2), bisection 2. Mesh k1 x k2 x ...: diameter sum(k-1), bisection N / k_max (one plane "
      "across the longest side: sqrt(N) for a square 2D mesh). Torus: diameter sum(floor(k/2)), bisection 2N / k_max (10 x 12: "
      "11 hops, 20 links). Average hops sum per dimension the pair distances of a line (k(k^2-1)/3) or ring (k floor(k^2/4)). "
      "Full mesh: N(N-1)/2 links, diameter 1. Crossbar: N^2 crosspoints. k-ary fat tree: k^3/4 hosts, 5k^2/4 switches, "
      "diameter 6. Dragonfly (a routers per group, p hosts and h global links per router, g <= a h + 1 groups): each router has "
      "a-1 local and h global links; minimal routes are local-global-local. --bfs builds the real graph and measures the same "
      "figures by breadth-first search and the cut by maximum flow.";
  c.inputs = {
      {.name = "kind", .kind = InputKind::choice, .help = "topology", .example = "torus",
       .choices = {"ring", "mesh", "torus", "full-mesh", "crossbar", "fat-tree", "dragonfly"}},
      {.name = "nodes", .kind = InputKind::integer, .help = "nodes (endpoints); mesh and torus take the most square 2D shape",
       .example = "120", .optional = true},
      {.name = "shape", .kind = InputKind::text, .help = "sides of a mesh or torus, e.g. 10x12 or 8x8x8", .example = "10x12",
       .optional = true},
      {.name = "k", .kind = InputKind::integer, .help = "fat tree: switch radix k (even)", .example = "64", .optional = true},
      {.name = "group_size", .kind = InputKind::integer, .help = "dragonfly: routers per group (a)", .example = "8", .optional = true},
      {.name = "global_links", .kind = InputKind::integer, .help = "dragonfly: global links per router (h)", .example = "4",
       .optional = true},
      {.name = "hosts_per_router", .kind = InputKind::integer, .help = "dragonfly: hosts per router (p)", .example = "4", .optional = true},
      {.name = "groups", .kind = InputKind::integer, .help = "dragonfly: groups (g, at most a h + 1; default a h + 1)", .example = "33",
       .optional = true},
      {.name = "link_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "bandwidth of one link, one direction",
       .example = "100GB/s", .optional = true},
      {.name = "aggregate_bandwidth", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "quoted total fabric bandwidth, for the per-node share", .example = "214Pb/s", .optional = true},
      {.name = "bfs", .kind = InputKind::flag, .help = "also build the graph and measure hops by BFS and the cut by max-flow"},
  };
  c.outputs = {
      {"endpoints", dims::none, "endpoints (nodes of a direct network, hosts of a switched one)"},
      {"switches", dims::none, "switches or routers that are not endpoints"},
      {"network_links", dims::none, "links between network nodes"},
      {"host_links", dims::none, "host-to-switch links"},
      {"links", dims::none, "all links"},
      {"ports_per_router", dims::none, "network ports of the busiest node or router (host ports excluded)"},
      {"diameter", dims::none, "longest shortest path between endpoints, in links (hops)"},
      {"average_hops", dims::none, "mean shortest path over all ordered pairs of distinct endpoints, in links"},
      {"bisection_links", dims::none, "links cut by the straight cut that halves the endpoints"},
      {"bisection_per_endpoint", dims::none, "bisection links / endpoints"},
      {"bisection_vs_sqrt_n", dims::none, "bisection links / sqrt(endpoints): 1 for a square 2D mesh, 2 for a square torus"},
      {"crosspoints", dims::none, "crossbar crosspoints, N^2"},
      {"local_links_per_router", dims::none, "dragonfly: links to the other routers of the group (a - 1)"},
      {"global_links_per_router", dims::none, "dragonfly: links to other groups (h)"},
      {"groups", dims::none, "dragonfly groups"},
      {"bisection_bandwidth", dims::data_rate, "bisection links x link bandwidth, one direction", "B/s"},
      {"bisection_bandwidth_both", dims::data_rate, "the same, both directions added", "B/s"},
      {"per_node_bandwidth", dims::data_rate, "aggregate bandwidth / endpoints", "B/s"},
      {"bfs_diameter", dims::none, "diameter measured by BFS on the built graph"},
      {"bfs_average_hops", dims::none, "average hops measured by BFS on the built graph"},
      {"bfs_links", dims::none, "links in the built graph (host links included)"},
      {"max_flow_bisection", dims::none, "links across the straight cut, measured as a maximum flow on the built graph"},
  };
  c.run = run_topology;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::net
