// The network plugin's typed math: link rates and SerDes, energy per bit, fat-tree sizing, topology closed forms,
// and the graph machinery (max-flow, BFS, the fabric builder, the ring all-reduce).
#include <catch2/catch.hpp>

#include "plugins/network/allreduce.hpp"
#include "plugins/network/energy_math.hpp"
#include "plugins/network/fabric_graph.hpp"
#include "plugins/network/fabric_math.hpp"
#include "plugins/network/network_math.hpp"
#include "plugins/network/maxflow.hpp"
#include "plugins/network/network_common.hpp"
#include "plugins/network/topology_graph.hpp"
#include "plugins/network/topology_math.hpp"

using namespace infracalc;
using namespace infracalc::net;

namespace {
BytesPerSecond gbps(double g) { return from_base<BytesPerSecond>(g * 1e9 / 8); }
double in_gbps(BytesPerSecond r) { return r.value() * 8 / 1e9; }
}  // namespace

TEST_CASE("SerDes: symbol rate and Nyquist of NRZ and PAM4 lanes", "[network][link]") {
  CHECK(symbol_rate(gbps(224), 2).value() == Approx(112e9));
  CHECK(nyquist(symbol_rate(gbps(224), 2)).value() == Approx(56e9));
  CHECK(nyquist(symbol_rate(gbps(64), 2)).value() == Approx(16e9));  // PCIe 6.0
  CHECK(nyquist(symbol_rate(gbps(32), 1)).value() == Approx(16e9));  // PCIe 5.0
  CHECK(*bits_per_symbol("PAM4") == 2);
  CHECK(*bits_per_symbol("nrz") == 1);
  CHECK_FALSE(bits_per_symbol("qam16"));
}

TEST_CASE("line codes and their payload shares", "[network][link]") {
  CHECK(*encoding_efficiency("128b/130b") == Approx(128.0 / 130));
  CHECK(*encoding_efficiency("flit") == Approx(242.0 / 256));
  CHECK(*encoding_efficiency("rs544") == Approx(100.0 / 106.25));
  CHECK(encoding_in("128b/130b (PCIe 5.0 PHY), 68-byte flits") == "128b/130b");
  CHECK(encoding_in("1b/1b with 256-byte FLITs (236 B of TLP, 6 B DLP, 8 B CRC, 6 B FEC)") == "flit");
  CHECK(encoding_in("256b/257b transcoding with RS(544,514) FEC") == "rs544");
  CHECK(encoding_in("proprietary").empty());
}

TEST_CASE("a PCIe 5.0 x16 link in bits and bytes, each way and both ways", "[network][link]") {
  LinkSpec s;
  s.signaling_rate = gbps(32);
  s.lane_data_rate = s.signaling_rate * (128.0 / 130);
  s.lanes = 16;
  const LinkRates r = link_rates(s);
  CHECK(r.raw_per_direction.value() == Approx(64e9));
  CHECK(r.raw_both_directions.value() == Approx(128e9));
  CHECK(r.per_direction.value() == Approx(63.0153846e9));
  CHECK(r.both_directions.value() == Approx(2 * 63.0153846e9));
  CHECK(r.efficiency == Approx(128.0 / 130));
  CHECK(in_gbps(r.lane_data) == Approx(31.50769));
}

TEST_CASE("NVLink 5: 18 links of two 200G lanes", "[network][link]") {
  LinkSpec s;
  s.signaling_rate = gbps(200);
  s.lane_data_rate = gbps(200);
  s.lanes = 2;
  s.links = 18;
  const LinkRates r = link_rates(s);
  CHECK(r.link_data.value() == Approx(50e9));
  CHECK(r.per_direction.value() == Approx(900e9));
  CHECK(r.both_directions.value() == Approx(1.8e12));
  CHECK(link_power(from_base<JoulesPerByte>(1.3e-12 * 8), from_base<BytesPerSecond>(900e9)).value() == Approx(9.36));
}

TEST_CASE("link ids with widths and aliases", "[network][link]") {
  CHECK(split_width("pcie-5-x16").id == "pcie-5");
  CHECK(*split_width("pcie5-x16").lanes == 16);
  CHECK_FALSE(split_width("nvlink-5").lanes);
  CHECK_FALSE(split_width("ethernet-1.6t").lanes);
  CHECK(split_list("a, b,,c") == std::vector<std::string>{"a", "b", "c"});
  CHECK(split_list(" tp8 ;\ndp8, ", ";\n") == std::vector<std::string>{"tp8", "dp8,"});
  CHECK(split_list("").empty());
}

TEST_CASE("energy per bit and back", "[network][energy]") {
  const JoulesPerByte e = energy_per_bit(from_base<Watts>(15), gbps(800));
  CHECK(e.value() / 8 == Approx(18.75e-12));
  CHECK(power_at(e, gbps(800)).value() == Approx(15));
  CHECK(in_gbps(rate_at(from_base<Watts>(15), e)) == Approx(800));
  CHECK(reduction(from_base<Watts>(5.4), from_base<Watts>(15)) == Approx(0.64));
  CHECK(optics_power(4, e, gbps(400)).value() == Approx(30));
  const Joules w = wire_energy(from_base<Bytes>(32), from_base<JoulesPerByteMeter>(1e-12 * 8 / 1e-3), from_base<Meters>(13e-3));
  CHECK(w.value() == Approx(3.328e-9));
}

TEST_CASE("leaf port split for an oversubscription", "[network][fabric]") {
  CHECK(leaf_ports(64, 1.0).up == 32);
  CHECK(leaf_ports(64, 3.0).up == 16);
  CHECK(leaf_ports(64, 3.0).down == 48);
  CHECK(leaf_ports(64, 2.0).up == 22);  // never worse than asked: 42:22
  CHECK(leaf_ports(12, 2.0).down == 8);
}

TEST_CASE("the k-ary fat tree: k^3/4 hosts on 5k^2/4 switches", "[network][fabric]") {
  for (std::int64_t k : {4, 8, 16, 64}) {
    const FabricPlan p = plan_fabric({k * k * k / 4, k, 1.0, 3, FabricDesign::fat_tree, 1});
    CHECK(p.switches() == 5 * k * k / 4);
    CHECK(p.cores == k * k / 4);
    CHECK(p.leaves == k * k / 2);
    CHECK(p.spines == k * k / 2);
    CHECK(p.links() == 3 * k * k * k / 4);
    CHECK(p.bisection_links == Approx(static_cast<double>(k * k * k) / 8));
    CHECK(p.max_endpoints == k * k * k / 4);
  }
}

TEST_CASE("fabric tiers: one switch, leaf-spine, then pods", "[network][fabric]") {
  CHECK(plan_fabric({64, 64, 1.0, 0, FabricDesign::fat_tree, 1}).tiers == 1);
  const FabricPlan two = plan_fabric({2048, 64, 1.0, 0, FabricDesign::fat_tree, 1});
  CHECK(two.tiers == 2);
  CHECK(two.leaves == 64);
  CHECK(two.spines == 32);
  CHECK(plan_fabric({2049, 64, 1.0, 0, FabricDesign::fat_tree, 1}).tiers == 3);
  CHECK_THROWS_AS(plan_fabric({4096, 64, 1.0, 2, FabricDesign::fat_tree, 1}), UserError);
  CHECK_THROWS_AS(plan_fabric({70000, 64, 1.0, 3, FabricDesign::fat_tree, 1}), UserError);
  CHECK_THROWS_AS(plan_fabric({64, 64, 0.5, 0, FabricDesign::fat_tree, 1}), UserError);
}

TEST_CASE("oversubscription halves the spines", "[network][fabric]") {
  const FabricPlan nb = plan_fabric({2048, 64, 1.0, 2, FabricDesign::fat_tree, 1});
  const FabricPlan os = plan_fabric({2048, 64, 3.0, 2, FabricDesign::fat_tree, 1});
  CHECK(nb.spines == 32);
  CHECK(os.spines == 16);
  CHECK(os.oversubscription() == Approx(3.0));
  CHECK(os.bisection_links == Approx(1024.0 / 3));
}

TEST_CASE("spine counts divide the leaf uplinks so every leaf reaches every spine equally", "[network][fabric]") {
  // 8 leaves x 4 uplinks on 12-port spines: 3 spines would fit the ports but split the uplinks 2:1:1.
  const FabricPlan p = plan_fabric({64, 12, 2.0, 2, FabricDesign::fat_tree, 1});
  CHECK(p.spines == 4);
  const FabricGraph g = build_fabric_graph({64, 12, 2.0, 2, FabricDesign::fat_tree, 1});
  CHECK(g.count(FabricGraph::Role::spine) == 4);
  CHECK(bisection_max_flow(g) == 16);
}

TEST_CASE("rail-optimised leaves: one per rail per node group", "[network][fabric]") {
  const FabricPlan p = plan_fabric({1024, 64, 1.0, 0, FabricDesign::rail_optimised, 8});
  CHECK(p.rail_groups == 4);  // 128 nodes / 32 per leaf
  CHECK(p.leaves == 32);
  const FabricGraph g = build_fabric_graph({1024, 64, 1.0, 2, FabricDesign::rail_optimised, 8});
  CHECK(g.count(FabricGraph::Role::leaf) == 32);
  CHECK(bisection_max_flow(g) == 512);
}

TEST_CASE("the fabric builder's graph matches the closed form", "[network][fabric]") {
  const FabricInput in{1024, 16, 1.0, 3, FabricDesign::fat_tree, 1};
  const FabricPlan p = plan_fabric(in);
  const FabricGraph g = build_fabric_graph(in);
  CHECK(g.count(FabricGraph::Role::host) == 1024);
  CHECK(g.count(FabricGraph::Role::leaf) == p.leaves);
  CHECK(g.count(FabricGraph::Role::spine) == p.spines);
  CHECK(g.count(FabricGraph::Role::core) == p.cores);
  CHECK(g.links_in_tier(2) == p.spine_core_links);
  CHECK(g.busiest_switch_ports() == 16);
  CHECK(bisection_max_flow(g) == 512);
}

TEST_CASE("max-flow equals the min cut", "[network][maxflow]") {
  // Two paths of capacity 3 and 2 joined by a bottleneck of 4.
  MaxFlow f(6);
  f.add_edge(0, 1, 3);
  f.add_edge(0, 2, 2);
  f.add_edge(1, 3, 3);
  f.add_edge(2, 3, 2);
  f.add_edge(3, 4, 4);
  f.add_edge(4, 5, 10);
  CHECK(f.run(0, 5) == 4);
}

TEST_CASE("topology closed forms", "[network][topology]") {
  const TopologyMetrics torus = topology_metrics({TopologyKind::torus, {10, 12}});
  CHECK(torus.diameter == 11);
  CHECK(torus.bisection_links == 20);
  CHECK(torus.network_links == 240);
  const TopologyMetrics mesh = topology_metrics({TopologyKind::mesh, {10, 10}});
  CHECK(mesh.network_links == 180);
  CHECK(mesh.bisection_links == 10);
  CHECK(mesh.average_hops == Approx(20.0 / 3));
  CHECK(topology_metrics({TopologyKind::crossbar, {100}}).crosspoints == 10000);
  CHECK(topology_metrics({TopologyKind::ring, {8}}).average_hops == Approx(16.0 / 7));
  CHECK(topology_metrics({TopologyKind::full_mesh, {8}}).bisection_links == 16);
  const TopologyMetrics ft = topology_metrics({TopologyKind::fat_tree, {}, 64});
  CHECK(ft.endpoints == 65536);
  CHECK(ft.switches == 5120);
  const TopologyMetrics df = topology_metrics({TopologyKind::dragonfly, {}, 0, 8, 1, 4, 33});
  CHECK(df.ports_per_router == 11);
  CHECK(df.diameter == 5);
  CHECK_THROWS_AS(topology_metrics({TopologyKind::fat_tree, {}, 7}), UserError);
  CHECK_THROWS_AS(topology_metrics({TopologyKind::dragonfly, {}, 0, 8, 1, 4, 34}), UserError);
}

TEST_CASE("shapes: parse and the most square factorisation", "[network][topology]") {
  CHECK(parse_shape("10x12", "--shape") == std::vector<std::int64_t>{10, 12});
  CHECK(parse_shape("8x8x8", "--shape").size() == 3);
  CHECK_THROWS_AS(parse_shape("10xx12", "--shape"), UserError);
  CHECK_THROWS_AS(parse_shape("0x4", "--shape"), UserError);
  CHECK(square_sides(900000) == std::vector<std::int64_t>{900, 1000});
  CHECK(square_sides(120) == std::vector<std::int64_t>{10, 12});
  CHECK(square_sides(13) == std::vector<std::int64_t>{1, 13});
}

TEST_CASE("BFS and cuts over built topologies agree with the closed forms", "[network][topology]") {
  for (const TopologySpec& s : {TopologySpec{TopologyKind::torus, {4, 6}}, TopologySpec{TopologyKind::mesh, {3, 5}},
                                TopologySpec{TopologyKind::ring, {11}}, TopologySpec{TopologyKind::fat_tree, {}, 4},
                                TopologySpec{TopologyKind::dragonfly, {}, 0, 4, 2, 2, 9}}) {
    const TopologyMetrics m = topology_metrics(s);
    const TopologyGraph g = build_topology(s);
    const HopStats h = bfs_hops(g, s.kind == TopologyKind::dragonfly);
    CHECK(h.diameter == m.diameter);
    CHECK(h.average == Approx(m.average_hops));
    CHECK(g.link_count() == static_cast<std::int64_t>(m.network_links + m.host_links));
  }
  const TopologyGraph t = build_topology({TopologyKind::torus, {4, 4}});
  CHECK(brute_force_bisection(t) == 8);
  CHECK(canonical_cut_max_flow(t) == 8);
}

TEST_CASE("ring all-reduce on threads", "[network][allreduce]") {
  const RingRun r = ring_allreduce({{2, 2, 2, 2}, {4, 4, 4, 4}, {6, 6, 6, 6}, {8, 8, 8, 8}});
  for (const auto& b : r.buffers)
    for (double x : b) CHECK(x == 20);
  CHECK(r.steps == 6);
  for (auto bytes : r.bytes_sent) CHECK(bytes == 48);  // 2 (4-1)/4 x 32 B
  CHECK(ring_bytes_per_worker(32, 4) == 48);
  const RingRun one = ring_allreduce({{1, 2, 3}});
  CHECK(one.buffers[0][2] == 3);
  CHECK(one.steps == 0);
}
