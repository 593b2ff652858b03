// Reference kernels of the network plugin: each builds the real thing (a wired fabric, a topology graph, threads
// exchanging buffers, a symbol stream, framed bit streams) and measures what the closed forms predict.
#include <cmath>
#include <complex>
#include <cstdint>
#include <fmt/format.h>
#include <numbers>
#include <random>
#include <vector>

#include "plugins/network/allreduce.hpp"
#include "plugins/network/fabric_graph.hpp"
#include "plugins/network/network_math.hpp"
#include "plugins/network/maxflow.hpp"
#include "plugins/network/network_plugin.hpp"
#include "plugins/network/topology_graph.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace net;

KernelCheck count(std::string figure, double formula, double kernel) {
  return {std::move(figure), Quantity::number(formula), Quantity::number(kernel), 0.0, 0.0};
}

// --- fabric builder ----------------------------------------------------------------------------------------

struct FabricCase {
  std::string name;
  FabricInput in;
};

// Pluggable modules of a wired fabric when a switch-side module takes two links of one switch facing one way and a
// NIC port takes one: every host link has a NIC module, every switch ceil(down / 2) + ceil(up / 2).
std::int64_t twin_port_modules(const FabricGraph& g) {
  using R = FabricGraph::Role;
  std::vector<std::int64_t> down(g.role.size(), 0);
  std::vector<std::int64_t> up(g.role.size(), 0);
  std::int64_t nic = 0;
  for (const auto& l : g.links) {
    // The end with the lower role is below the other (host < leaf < spine < core).
    const bool a_low = g.role[static_cast<std::size_t>(l.a)] < g.role[static_cast<std::size_t>(l.b)];
    const int low = a_low ? l.a : l.b;
    const int high = a_low ? l.b : l.a;
    if (g.role[static_cast<std::size_t>(low)] == R::host) ++nic;
    else ++up[static_cast<std::size_t>(low)];
    ++down[static_cast<std::size_t>(high)];
  }
  std::int64_t modules = nic;
  for (std::size_t v = 0; v < g.role.size(); ++v) modules += (down[v] + 1) / 2 + (up[v] + 1) / 2;
  return modules;
}

std::vector<KernelCheck> run_fabric(const KernelOptions& opt) {
  using R = FabricGraph::Role;
  std::vector<FabricCase> cases = {
      {"k=8 three-tier fat tree", {128, 8, 1.0, 3, FabricDesign::fat_tree, 1}},
      {"k=16 three-tier fat tree", {1024, 16, 1.0, 3, FabricDesign::fat_tree, 1}},
      {"k=16 two-tier, full", {128, 16, 1.0, 2, FabricDesign::fat_tree, 1}},
      {"k=12 two-tier 2:1", {64, 12, 2.0, 2, FabricDesign::fat_tree, 1}},
      {"k=12 three-tier 3:1", {108, 12, 3.0, 3, FabricDesign::fat_tree, 1}},
      {"k=16 rail-optimised two-tier, 8 rails", {128, 16, 1.0, 2, FabricDesign::rail_optimised, 8}},
      {"k=16 rail-optimised three-tier, 4 rails", {128, 16, 1.0, 3, FabricDesign::rail_optimised, 4}},
      {"k=64 two-tier, one leaf row", {256, 64, 1.0, 2, FabricDesign::fat_tree, 1}},
  };
  if (!opt.quick) {
    cases.push_back({"k=64 three-tier fat tree (65,536 hosts)", {65536, 64, 1.0, 3, FabricDesign::fat_tree, 1}});
    cases.push_back({"k=64 two-tier, full (2,048 hosts)", {2048, 64, 1.0, 2, FabricDesign::fat_tree, 1}});
    cases.push_back({"k=32 three-tier 2:1", {10 * 16 * 21, 32, 2.0, 3, FabricDesign::fat_tree, 1}});
  }
  std::vector<KernelCheck> out;
  // Partly filled leaves, groups and pods, where the bisection closed form is nominal: modules only.
  const std::vector<FabricCase> partial = {
      {"k=32 two-tier, 100 hosts (a part leaf)", {100, 32, 1.0, 2, FabricDesign::fat_tree, 1}},
      {"k=16 rail-optimised, 5 nodes of 8 rails (part group)", {40, 16, 1.0, 2, FabricDesign::rail_optimised, 8}},
      {"k=16 rail-optimised, 19 nodes of 4 rails", {76, 16, 1.0, 2, FabricDesign::rail_optimised, 4}},
      {"k=8 three-tier, 75 hosts (part pod)", {75, 8, 1.0, 3, FabricDesign::fat_tree, 1}},
      {"k=12 three-tier 2:1, 250 hosts", {250, 12, 2.0, 3, FabricDesign::fat_tree, 1}},
  };
  for (const auto& c : partial) {
    const FabricPlan p = plan_fabric(c.in);
    const FabricGraph g = build_fabric_graph(c.in);
    out.push_back(count(c.name + ": twin-port transceivers", static_cast<double>(count_modules(p, 2, true, false).total()),
                        static_cast<double>(twin_port_modules(g))));
  }
  for (const auto& c : cases) {
    const FabricPlan p = plan_fabric(c.in);
    const FabricGraph g = build_fabric_graph(c.in);
    const std::int64_t cut = bisection_max_flow(g);
    if (opt.trace)
      fmt::print(stderr, "fabric-builder: {}: wired {} leaves, {} spines, {} cores, {} links; busiest switch {} of {} ports; max-flow {}\n",
                 c.name, g.count(R::leaf), g.count(R::spine), g.count(R::core), g.links.size(), g.busiest_switch_ports(), g.radix, cut);
    out.push_back(count(c.name + ": leaves", static_cast<double>(p.leaves), static_cast<double>(g.count(R::leaf))));
    out.push_back(count(c.name + ": spines", static_cast<double>(p.spines), static_cast<double>(g.count(R::spine))));
    if (p.tiers == 3) out.push_back(count(c.name + ": cores", static_cast<double>(p.cores), static_cast<double>(g.count(R::core))));
    out.push_back(count(c.name + ": links", static_cast<double>(p.links()), static_cast<double>(g.links.size())));
    out.push_back(count(c.name + ": bisection links (max-flow)", p.bisection_links, static_cast<double>(cut)));
    // Twin-port modules (two links a module) counted on the wired graph, switch by switch and direction by direction.
    const ModuleCounts closed = count_modules(p, 2, true, false);
    out.push_back(count(c.name + ": twin-port transceivers", static_cast<double>(closed.total()),
                        static_cast<double>(twin_port_modules(g))));
    if (c.in.oversubscription == 1.0 && c.in.endpoints == max_endpoints(c.in.radix, c.in.radix / 2, p.tiers))
      out.push_back(count(c.name + ": every switch uses all its ports", static_cast<double>(c.in.radix),
                          static_cast<double>(g.busiest_switch_ports())));
    if (c.in.tiers == 3 && c.in.oversubscription == 1.0 && c.in.design == FabricDesign::fat_tree) {
      const auto k = static_cast<double>(c.in.radix);
      out.push_back(count(c.name + ": hosts k^3/4", k * k * k / 4, static_cast<double>(g.hosts.size())));
      out.push_back(count(c.name + ": switches 5k^2/4", 5 * k * k / 4,
                          static_cast<double>(g.count(R::leaf) + g.count(R::spine) + g.count(R::core))));
    }
  }
  return out;
}

// --- topology zoo -----------------------------------------------------------------------------------------

struct TopoCase {
  std::string name;
  TopologySpec spec;
  bool brute = false;  // also enumerate every balanced split
};

std::vector<KernelCheck> run_topology(const KernelOptions& opt) {
  using K = TopologyKind;
  std::vector<TopoCase> cases = {
      {"ring of 10", {K::ring, {10}}, true},
      {"ring of 9", {K::ring, {9}}},
      {"mesh 4x4", {K::mesh, {4, 4}}, true},
      {"mesh 10x10", {K::mesh, {10, 10}}},
      {"mesh 4x6", {K::mesh, {4, 6}}},
      {"torus 4x4", {K::torus, {4, 4}}, true},
      {"torus 10x12", {K::torus, {10, 12}}},
      {"torus 4x4x4", {K::torus, {4, 4, 4}}},
      {"full mesh of 8", {K::full_mesh, {8}}, true},
      {"crossbar of 16", {K::crossbar, {16}}, true},
      {"fat tree k=4", {K::fat_tree, {}, 4}, true},
      {"fat tree k=8", {K::fat_tree, {}, 8}},
      {"dragonfly a=4 p=2 h=2 g=9", {K::dragonfly, {}, 0, 4, 2, 2, 9}},
      {"dragonfly a=8 p=1 h=4 g=33", {K::dragonfly, {}, 0, 8, 1, 4, 33}},
      {"dragonfly a=3 p=1 h=1 g=4", {K::dragonfly, {}, 0, 3, 1, 1, 4}},
  };
  if (!opt.quick) {
    cases.push_back({"mesh 32x32", {K::mesh, {32, 32}}});
    cases.push_back({"torus 16x16", {K::torus, {16, 16}}});
    cases.push_back({"fat tree k=16", {K::fat_tree, {}, 16}});
    cases.push_back({"dragonfly a=8 p=4 h=4 g=33", {K::dragonfly, {}, 0, 8, 4, 4, 33}});
  }
  std::vector<KernelCheck> out;
  for (const auto& c : cases) {
    const TopologyMetrics m = topology_metrics(c.spec);
    const TopologyGraph g = build_topology(c.spec);
    const HopStats h = bfs_hops(g, c.spec.kind == K::dragonfly);
    out.push_back(count(c.name + ": diameter (BFS)", m.diameter, static_cast<double>(h.diameter)));
    out.push_back({c.name + ": average hops (BFS)", Quantity::number(m.average_hops), Quantity::number(h.average), 1e-12, 0.0});
    out.push_back(count(c.name + ": links", m.network_links + m.host_links, static_cast<double>(g.link_count())));
    if (!m.uneven_cut) out.push_back(count(c.name + ": straight-cut bisection (max-flow)", m.bisection_links,
                                           static_cast<double>(canonical_cut_max_flow(g))));
    if (c.brute) {
      const std::int64_t best = brute_force_bisection(g);
      out.push_back(count(c.name + ": minimum over every balanced split", m.bisection_links, static_cast<double>(best)));
    }
    if (opt.trace)
      fmt::print(stderr, "topology-bfs: {}: {} vertices, {} links, BFS diameter {}, average {:.6f}\n", c.name, g.adj.size(), g.link_count(),
                 h.diameter, h.average);
  }
  return out;
}

// --- ring all-reduce --------------------------------------------------------------------------------------

std::vector<KernelCheck> run_allreduce(const KernelOptions& opt) {
  std::vector<std::pair<int, int>> sizes = {{2, 128}, {3, 96}, {4, 256}, {8, 512}};
  if (!opt.quick) {
    sizes.emplace_back(16, 1 << 16);
    sizes.emplace_back(32, 1 << 15);
  }
  std::mt19937_64 rng(20260101);
  std::uniform_int_distribution<int> value(-1000, 1000);
  std::vector<KernelCheck> out;
  for (auto [n, len] : sizes) {
    std::vector<std::vector<double>> bufs(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(len)));
    std::vector<double> sum(static_cast<std::size_t>(len), 0.0);
    for (auto& b : bufs)
      for (std::size_t i = 0; i < b.size(); ++i) {
        b[i] = value(rng);  // whole numbers: every summation order gives the exact sum
        sum[i] += b[i];
      }
    const RingRun run = ring_allreduce(bufs);
    double worst = 0;
    for (const auto& b : run.buffers)
      for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, std::fabs(b[i] - sum[i]));
    const double bytes = static_cast<double>(len) * sizeof(double);
    std::int64_t most = 0;
    for (auto s : run.bytes_sent) most = std::max(most, s);
    out.push_back({fmt::format("ring all-reduce, {} workers x {} doubles: bytes sent per worker", n, len),
                   Quantity{ring_bytes_per_worker(bytes, n), dims::information}, Quantity{static_cast<double>(most), dims::information}, 0.0});
    out.push_back({fmt::format("ring all-reduce, {} workers: largest error against the direct sum", n), Quantity::number(0),
                   Quantity::number(worst), 0.0, 0.0});
    out.push_back(count(fmt::format("ring all-reduce, {} workers: steps", n), 2.0 * (n - 1), run.steps));
    if (opt.trace) fmt::print(stderr, "ring-allreduce: {} workers, {} steps, {} B per worker\n", n, run.steps, most);
  }
  return out;
}

// --- scale-up domain --------------------------------------------------------------------------------------

std::vector<KernelCheck> run_scaleup(const KernelOptions& opt) {
  struct Domain {
    std::string name;
    int gpus, links, ports;
  };
  std::vector<Domain> ds = {{"NVL72: 72 GPUs x 18 links, 72-port chips", 72, 18, 72}, {"HGX H100: 8 GPUs x 18 links, 64-port chips", 8, 18, 64}};
  if (!opt.quick) ds.push_back({"NVL576-like: 576 GPUs x 18 links, 72-port chips (one tier)", 576, 18, 576});
  std::vector<KernelCheck> out;
  for (const auto& d : ds) {
    // Fewest chips for which dealing each GPU's links round-robin over the chips fits every chip's ports.
    int chips = 1;
    for (;; ++chips) {
      std::vector<int> load(static_cast<std::size_t>(chips), 0);
      for (int g = 0; g < d.gpus; ++g)
        for (int l = 0; l < d.links; ++l) ++load[static_cast<std::size_t>(l % chips)];
      if (*std::max_element(load.begin(), load.end()) <= d.ports) break;
    }
    TopologyGraph g;
    for (int i = 0; i < d.gpus; ++i) {
      g.endpoints.push_back(g.add_vertex());
      g.first_side[static_cast<std::size_t>(i)] = i < d.gpus / 2;
    }
    std::vector<int> chip;
    for (int c = 0; c < chips; ++c) chip.push_back(g.add_vertex());
    for (int i = 0; i < d.gpus; ++i)
      for (int l = 0; l < d.links; ++l) g.link(i, chip[static_cast<std::size_t>(l % chips)]);
    const HopStats h = bfs_hops(g);
    out.push_back(count(d.name + ": switch chips", std::ceil(static_cast<double>(d.gpus) * d.links / d.ports), chips));
    out.push_back(count(d.name + ": GPU links = switch ports used", static_cast<double>(d.gpus) * d.links, static_cast<double>(g.link_count())));
    out.push_back(count(d.name + ": bisection links (max-flow)", static_cast<double>(d.gpus / 2) * d.links,
                        static_cast<double>(canonical_cut_max_flow(g))));
    out.push_back(count(d.name + ": GPU-to-GPU diameter", 2, static_cast<double>(h.diameter)));
  }
  return out;
}

// --- SerDes: symbols and the Nyquist frequency -----------------------------------------------------------------

// The frequency of the largest DFT magnitude of a waveform sampled `per_symbol` times per symbol.
double peak_frequency(const std::vector<double>& x, double sample_rate) {
  const std::size_t n = x.size();
  double best = -1;
  std::size_t at = 0;
  for (std::size_t k = 1; k <= n / 2; ++k) {
    std::complex<double> acc = 0;
    for (std::size_t t = 0; t < n; ++t)
      acc += x[t] * std::polar(1.0, -2.0 * std::numbers::pi * static_cast<double>(k * t) / static_cast<double>(n));
    if (std::abs(acc) > best) {
      best = std::abs(acc);
      at = k;
    }
  }
  return static_cast<double>(at) * sample_rate / static_cast<double>(n);
}

std::vector<KernelCheck> run_serdes(const KernelOptions& opt) {
  struct Lane {
    std::string name;
    double bits_per_s;
    int bits_per_symbol;
  };
  std::vector<Lane> lanes = {{"224G PAM4", 224e9, 2}, {"PCIe 6.0 64 GT/s PAM4", 64e9, 2}, {"PCIe 5.0 32 GT/s NRZ", 32e9, 1},
                             {"NVLink-C2C 40G NRZ", 40e9, 1}};
  const int symbols = opt.quick ? 64 : 256;
  const int per_symbol = 8;
  std::vector<KernelCheck> out;
  for (const auto& l : lanes) {
    // Gray-coded PAM: map each group of bits to one of 2^b levels and count the symbols a bit stream needs.
    const int nbits = 4096;
    int sent = 0;
    for (int i = 0; i < nbits; i += l.bits_per_symbol) ++sent;
    const double baud = l.bits_per_s * sent / nbits;
    LinkSpec spec;
    spec.signaling_rate = from_base<BytesPerSecond>(l.bits_per_s / 8);
    spec.lane_data_rate = spec.signaling_rate;
    spec.bits_per_symbol = static_cast<double>(l.bits_per_symbol);
    const LinkRates r = link_rates(spec);
    out.push_back({l.name + ": symbol rate from a coded bit stream", to_quantity(r.symbol_rate), Quantity{baud, dims::frequency}, 1e-12});
    // The fastest pattern alternates the outer levels every symbol; its spectrum peaks at half the symbol rate.
    std::vector<double> wave;
    for (int s = 0; s < symbols; ++s)
      for (int k = 0; k < per_symbol; ++k) wave.push_back(s % 2 == 0 ? 1.0 : -1.0);
    const double f = peak_frequency(wave, baud * per_symbol);
    out.push_back({l.name + ": Nyquist from the DFT of an alternating symbol stream", to_quantity(r.nyquist), Quantity{f, dims::frequency}, 1e-12});
  }
  return out;
}

// --- line codes: frames built bit by bit --------------------------------------------------------------------

std::vector<KernelCheck> run_line_codes(const KernelOptions& opt) {
  const std::int64_t payload_bits = opt.quick ? 1 << 18 : 1 << 24;
  std::vector<KernelCheck> out;
  auto frame = [&](std::string name, std::string_view code, std::int64_t payload_per_frame, std::int64_t overhead_per_frame) {
    // Whole frames only (a padded short last frame would add a little overhead of its own).
    const std::int64_t frames = payload_bits / payload_per_frame;
    std::int64_t sent = 0;
    std::int64_t carried = 0;
    for (std::int64_t f = 0; f < frames; ++f) {
      carried += payload_per_frame;
      sent += payload_per_frame + overhead_per_frame;
    }
    out.push_back({name, Quantity::number(*encoding_efficiency(code)), Quantity::number(static_cast<double>(carried) / static_cast<double>(sent)),
                   1e-12});
  };
  // 128b/130b: a 2-bit sync header per 128-bit block (PCIe 3.0-5.0).
  frame("128b/130b blocks", "128b/130b", 128, 2);
  // 8b/10b: 10 line bits per data byte.
  frame("8b/10b symbols", "8b/10b", 8, 2);
  // 64b/66b: 2-bit header per 64-bit block.
  frame("64b/66b blocks", "64b/66b", 64, 2);
  // PCIe 6.0 FLIT: 256 bytes = 236 TLP + 6 DLP bytes carried, 8 CRC + 6 FEC bytes of overhead.
  frame("PCIe 6.0 FLITs", "flit", (236 + 6) * 8, (8 + 6) * 8);
  // 100G/200G Ethernet lane: 20 transcoded 257-bit blocks (256 payload bits each) fill the 514 message symbols of
  // RS(544,514) with 10-bit symbols; 30 parity symbols follow.
  frame("256b/257b + RS(544,514) codewords", "rs544", 20 * 256, 20 * 1 + 30 * 10);
  return out;
}

}  // namespace

std::vector<Kernel> network_kernels() {
  return {
      {"fabric-builder", "wires fat trees port by port and counts switches and links; bisection by max-flow", run_fabric},
      {"topology-bfs", "builds ring, mesh, torus, full mesh, crossbar, fat tree, dragonfly; BFS hops, max-flow and brute-force cuts",
       run_topology},
      {"ring-allreduce", "threads run a ring all-reduce on real buffers; checks the sums and counts bytes sent", run_allreduce},
      {"scaleup-domain", "wires an NVL72-style domain GPU link by link; chips, bisection by max-flow, hops by BFS", run_scaleup},
      {"serdes", "codes bit streams into NRZ/PAM4 symbols and finds the Nyquist peak by DFT", run_serdes},
      {"line-codes", "frames a payload in 8b/10b, 64b/66b, 128b/130b, FLIT and RS(544,514) codewords and counts line bits",
       run_line_codes},
  };
}

}  // namespace infracalc
