// `network fabric`: a fat-tree (Clos) or rail-optimised scale-out fabric from a GPU count: switches per tier,
// links, cables, transceivers, optics and switch watts, bisection, and the parts cost when prices are given.
#include "plugins/network/fabric_calc.hpp"

#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/network/fabric_graph.hpp"
#include "plugins/network/network_calculators.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

constexpr std::int64_t kMaxFlowEndpoints = 300000;

// How rail-optimised wiring lands on this fabric; a fabric smaller than one rail group has no groups to speak of.
std::string rail_note(const FabricPlan& p, std::int64_t nodes, std::int64_t rails) {
  const std::string head = fmt::format("rail-optimised: {} ({} per node)", plural(rails, "rail"), plural(rails, "NIC port"));
  if (p.tiers == 1)
    return head + fmt::format("; all {} of the {} sit on one switch, so every pair of GPUs is one switch apart whatever the wiring",
                              plural(p.host_links, "NIC port"), plural(nodes, "node"));
  const std::string group =
      p.rail_groups == 1 && nodes < p.leaf_down
          ? fmt::format("one rail group of {} (room for {})", plural(nodes, "node"), p.leaf_down)
          : fmt::format("{} of up to {}", plural(p.rail_groups, "rail group"), plural(p.leaf_down, "node"));
  return head + fmt::format("; {}: NIC r of every node in a group goes to the group's rail-r leaf, so same-rail traffic "
                            "crosses one switch ({} = {} x {})",
                            group, plural(p.leaves, "leaf", "leaves"), plural(p.rail_groups, "group"), plural(rails, "rail"));
}

// What the module count assumes: twin-port switch-side modules when the module is faster than the link.
std::string transceiver_note(Context& ctx, const FabricParts& f) {
  std::string s = "transceivers: ";
  const bool optical_hosts = ctx.text("host_cables") == "optical";
  s += optical_hosts ? "one single-port module per NIC port; " : "none at the NICs (copper host links); ";
  if (f.co_packaged) s += "none on the co-packaged switch ports";
  else if (f.ports_per_module > 1)
  {
    const std::string module = ctx.quote(*f.link_speed * static_cast<double>(f.ports_per_module), "b/s");
    s += fmt::format("at the switches one module per {} ports of a switch, counted switch by switch ({} {} module carries {} x {} "
                     "links, as the twin-port 800G OSFP of a Quantum-2 switch carries two 400G ports)",
                     f.ports_per_module, article(module), module, f.ports_per_module,
                     ctx.quote(*f.link_speed, "b/s"));
  }
  else s += "one module per switch port";
  return s + "; cables: one per link";
}

// The plan's counts, power and bisection as outputs.
void report_plan(Context& ctx, const FabricParts& f, std::int64_t gpus) {
  const FabricPlan& p = f.plan;
  ctx.set_number("tiers", p.tiers);
  ctx.set_number("endpoints", static_cast<double>(p.endpoints));
  ctx.set_number("radix", static_cast<double>(p.radix));
  if (p.tiers > 1) {
    ctx.set_number("leaf_down_ports", static_cast<double>(p.leaf_down));
    ctx.set_number("leaf_up_ports", static_cast<double>(p.leaf_up));
    ctx.set_number("oversubscription", p.oversubscription());
  }
  ctx.set_number("leaves", static_cast<double>(p.leaves));
  ctx.set_number("spines", static_cast<double>(p.spines));
  ctx.set_number("cores", static_cast<double>(p.cores));
  ctx.set_number("switches", static_cast<double>(p.switches()));
  if (p.tiers == 3) ctx.set_number("pods", static_cast<double>(p.pods));
  ctx.set_number("host_links", static_cast<double>(p.host_links));
  ctx.set_number("leaf_spine_links", static_cast<double>(p.leaf_spine_links));
  ctx.set_number("spine_core_links", static_cast<double>(p.spine_core_links));
  ctx.set_number("links", static_cast<double>(p.links()));
  ctx.set_number("cables", static_cast<double>(f.cables));
  ctx.set_number("transceivers", static_cast<double>(f.transceivers));
  ctx.set_number("nic_transceivers", static_cast<double>(f.nic_modules));
  ctx.set_number("switch_transceivers", static_cast<double>(f.transceivers - f.nic_modules));
  ctx.set_number("optical_ends", static_cast<double>(f.optical_ends));
  if (f.switch_power) ctx.set("switch_power", *f.switch_power);
  if (f.optics_power) ctx.set("optics_power", *f.optics_power);
  if (f.switch_power && f.optics_power) {
    ctx.set("network_power", *f.switch_power + *f.optics_power);
    ctx.set("power_per_gpu", (*f.switch_power + *f.optics_power) / static_cast<double>(gpus));
  }
  ctx.set_number("bisection_links", p.bisection_links);
  if (f.link_speed) {
    ctx.set("bisection_bandwidth", *f.link_speed * p.bisection_links);
    ctx.set("bisection_per_gpu", *f.link_speed * p.bisection_links / (static_cast<double>(gpus) / 2.0));
  }
  ctx.set_number("max_endpoints", static_cast<double>(p.max_endpoints));

}

// Parts cost: only what was given a price is counted, and a note says what is in it.
void report_cost(Context& ctx, const FabricParts& f, std::vector<std::string>& notes) {
  const FabricPlan& p = f.plan;
  Usd cost{};
  std::vector<std::string> priced;
  if (ctx.has("switch_price")) {
    cost += ctx.get<Usd>("switch_price") * static_cast<double>(p.switches());
    priced.emplace_back("switches");
  }
  if (ctx.has("transceiver_price")) {
    cost += ctx.get<Usd>("transceiver_price") * static_cast<double>(f.transceivers);
    priced.emplace_back("transceivers");
  }
  if (ctx.has("cable_price")) {
    cost += ctx.get<Usd>("cable_price") * static_cast<double>(f.cables);
    priced.emplace_back("cables");
  }
  if (!priced.empty()) {
    ctx.set("parts_cost", cost);
    std::string what;
    for (const auto& s : priced) what += (what.empty() ? "" : ", ") + s;
    notes.push_back("parts cost counts " + what + " only (NICs, racks, installation and any part without a price are not in it)");
  }

}

// The same endpoints without oversubscription (1:1), for the non-blocking vs oversubscribed comparison.
void compare_nonblocking(Context& ctx, const FabricPlan& p, FabricDesign design, std::int64_t endpoints, std::int64_t rails,
                         std::vector<std::string>& notes) {
  FabricInput nb{endpoints, p.radix, 1.0, 0, design, rails};
  try {
    const FabricPlan q = plan_fabric(nb);
    ctx.set_number("nonblocking_switches", static_cast<double>(q.switches()));
    ctx.set_number("nonblocking_spines", static_cast<double>(q.spines + q.cores));
    ctx.set_number("switch_ratio", static_cast<double>(q.switches()) / static_cast<double>(p.switches()));
    ctx.set_number("spine_ratio", static_cast<double>(q.spines + q.cores) / static_cast<double>(p.spines + p.cores));
    notes.push_back(fmt::format("non-blocking (1:1) needs {} switches in {} tiers ({} above the leaves) against {} here ({} above)",
                                q.switches(), q.tiers, q.spines + q.cores, p.switches(), p.spines + p.cores));
  } catch (const UserError&) {
    notes.push_back("a non-blocking fabric of these endpoints does not fit in three tiers of this radix");
  }
}

// Switches, links and transceivers per tier.
Table tiers_table(const FabricParts& f) {
  const FabricPlan& p = f.plan;
  Table t{"tiers", "Switches, links and optics per tier",
          {{"tier", {}, ""}, {"switches", dims::none, ""}, {"links_below", dims::none, ""}, {"transceivers_below", dims::none, ""}},
          {}};
  t.rows.push_back({std::string(p.tiers == 1 ? "switch" : "leaf"), Quantity::number(static_cast<double>(p.leaves)),
                    Quantity::number(static_cast<double>(p.host_links)),
                    Quantity::number(static_cast<double>(f.nic_modules + f.leaf_host_modules))});
  if (p.tiers > 1)
    t.rows.push_back({std::string(p.tiers == 3 ? "spine (pod aggregation)" : "spine"), Quantity::number(static_cast<double>(p.spines)),
                      Quantity::number(static_cast<double>(p.leaf_spine_links)),
                      Quantity::number(static_cast<double>(f.leaf_spine_modules))});
  if (p.tiers == 3)
    t.rows.push_back({std::string("core (super-spine)"), Quantity::number(static_cast<double>(p.cores)),
                      Quantity::number(static_cast<double>(p.spine_core_links)),
                      Quantity::number(static_cast<double>(f.spine_core_modules))});
  return t;
}

// --max-flow: the fabric wired as a graph, its bisection by max-flow, and whether the graph has the closed form's counts.
void check_max_flow(Context& ctx, const FabricParts& f, FabricDesign design, std::int64_t endpoints, std::int64_t rails,
                    std::vector<std::string>& notes) {
  const FabricPlan& p = f.plan;
  if (endpoints > kMaxFlowEndpoints)
    throw UserError{{fmt::format("--max-flow builds the whole graph; {} endpoints is above the {} limit", endpoints, kMaxFlowEndpoints),
                     "drop --max-flow (the closed form is exact for full leaves and pods)"}};
  FabricInput in{endpoints, p.radix, parse_ratio(ctx.text("oversubscription"), "--oversubscription"), p.tiers, design, rails};
  const FabricGraph g = build_fabric_graph(in);
  const std::int64_t cut = bisection_max_flow(g);
  ctx.set_number("bisection_links_max_flow", static_cast<double>(cut));
  if (f.link_speed) ctx.set("bisection_max_flow", *f.link_speed * static_cast<double>(cut));
  const bool same = g.count(FabricGraph::Role::leaf) == p.leaves && g.count(FabricGraph::Role::spine) == p.spines &&
                    g.count(FabricGraph::Role::core) == p.cores && static_cast<std::int64_t>(g.links.size()) == p.links();
  ctx.verdict("builder_agrees", same,
              same ? "the wired graph has the switch and link counts of the closed form"
                   : "the wired graph differs from the closed form (please report)");
  if (static_cast<double>(cut) != p.bisection_links)
    notes.push_back(fmt::format("max-flow bisection {} links vs closed form {}: partial leaves or pods change the cut", cut,
                                format_number(p.bisection_links, 6)));
}

void run_fabric(Context& ctx) {
  std::vector<std::string> notes;
  const std::int64_t gpus = ctx.integer("gpus");
  const std::int64_t nics = ctx.integer("nics_per_gpu");
  const std::int64_t per_node = ctx.integer("gpus_per_node");
  const FabricDesign design = ctx.text("design") == "rail-optimised" ? FabricDesign::rail_optimised : FabricDesign::fat_tree;
  if (design == FabricDesign::rail_optimised && gpus % per_node != 0)
    throw UserError{{fmt::format("--gpus {} is not a whole number of {}-GPU nodes", gpus, per_node),
                     "rail-optimised wiring needs whole nodes; round --gpus to a multiple of --gpus-per-node"}};
  const std::int64_t endpoints = gpus * nics;
  const std::int64_t rails = per_node * nics;
  const FabricParts f = size_fabric(ctx, endpoints, design, rails, notes);
  const FabricPlan& p = f.plan;

  report_plan(ctx, f, gpus);
  report_cost(ctx, f, notes);
  if (p.tiers > 1 && p.oversubscription() > 1.0) compare_nonblocking(ctx, p, design, endpoints, rails, notes);
  ctx.add_table(tiers_table(f));

  if (ctx.flag("max_flow")) check_max_flow(ctx, f, design, endpoints, rails, notes);
  notes.push_back(fmt::format("{}: {} ({} x {} per GPU) on {}-port switches{}", plural(p.tiers, "tier"),
                              plural(p.endpoints, "endpoint"), plural(gpus, "GPU"), plural(nics, "NIC port"), p.radix,
                              p.tiers > 1 ? fmt::format(", leaves {} down / {} up", p.leaf_down, p.leaf_up) : ""));
  if (p.tiers == 3)
    notes.push_back(fmt::format("three tiers: {} of up to {}, {} per pod, {} of {}; oversubscription applies at the leaves only",
                                plural(p.pods, "pod"), plural(p.leaves_per_pod, "leaf", "leaves"),
                                plural(p.leaf_up, "aggregation switch", "aggregation switches"),
                                plural(p.leaf_up, "core plane"), plural(p.cores_per_plane, "switch", "switches")));
  if (design == FabricDesign::rail_optimised) notes.push_back(rail_note(p, gpus / per_node, rails));
  notes.push_back(transceiver_note(ctx, f));
  notes.push_back("bisection = endpoints / 2 x link speed x min(1, up/down), one direction, for full leaves and an even split");
  if (!f.switch_power) notes.push_back("switch power unknown for this switch: give --switch-power for network watts");
  if (!f.link_speed) notes.push_back("no link speed: give --nic-speed or --switch for bandwidth and optics watts");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_fabric_calculator() {
  Calculator c;
  c.name = "fabric";
  c.summary = "fat-tree / Clos or rail-optimised fabric: switches per tier, links, cables, transceivers, watts, bisection";
  c.description =
      "Endpoints E = GPUs x NICs per GPU on switches of radix k at the NIC speed. Leaves split k into up = ceil(k / (1 + r)) "
      "uplinks and down = k - up host ports for an oversubscription r (1:1 is non-blocking: k/2 each). One tier: one switch "
      "(E <= k). Two tiers: leaves = ceil(E / down), spines = ceil(leaves x up / k) raised to a divisor of up (each leaf "
      "sends the same number of links to every spine), up to k x down endpoints. Three tiers: pods of k/2 leaves with `up` "
      "aggregation switches each, and `up` core planes of ceil(leaves / k) switches (raised to a divisor of k/2), up to "
      "k x k/2 x down endpoints (k^3/4 and 5k^2/4 switches for the non-blocking k-ary fat tree). Rail-optimised: the NIC r "
      "of each of `down` nodes goes to the group's rail-r leaf. Transceivers: one single-port module per optical NIC port, and "
      "at the switch side one module per (module speed / link speed) ports of a switch (a twin-port 800G OSFP serves two 400G "
      "ports), none when co-packaged; optics watts = "
      "ends x energy per bit x link speed; bisection = E/2 x speed x min(1, up/down). --max-flow wires the real graph and "
      "computes the bisection as a maximum flow.";
  c.inputs = {
      {.name = "gpus", .kind = InputKind::integer, .help = "GPUs (or other accelerators) to connect", .example = "1024"},
      {.name = "nics_per_gpu", .kind = InputKind::integer, .help = "scale-out NIC ports per GPU", .default_value = "1"},
      {.name = "gpus_per_node", .kind = InputKind::integer, .help = "GPUs per node (rails = GPUs per node x NICs per GPU)",
       .default_value = "8"},
      {.name = "design", .kind = InputKind::choice, .help = "fat-tree (hosts fill leaves in order) or rail-optimised (one leaf per rail per node group)",
       .default_value = "fat-tree", .choices = {"fat-tree", "rail-optimised"}},
  };
  for (auto& in : fabric_inputs()) c.inputs.push_back(std::move(in));
  c.inputs.push_back({.name = "max_flow", .kind = InputKind::flag,
                      .help = "also wire the real graph and compute the bisection by maximum flow (up to 300,000 endpoints)"});
  c.outputs = {
      {"tiers", dims::none, "switch tiers"},
      {"endpoints", dims::none, "NIC ports connected"},
      {"radix", dims::none, "switch ports at the link speed"},
      {"leaf_down_ports", dims::none, "host ports per leaf"},
      {"leaf_up_ports", dims::none, "uplink ports per leaf"},
      {"oversubscription", dims::none, "achieved leaf down:up ratio (host ports per uplink)"},
      {"leaves", dims::none, "leaf (edge) switches"},
      {"spines", dims::none, "spine switches (pod aggregation switches in three tiers)"},
      {"cores", dims::none, "core (super-spine) switches, three tiers"},
      {"switches", dims::none, "all switches"},
      {"pods", dims::none, "pods, three tiers"},
      {"host_links", dims::none, "NIC-to-leaf links"},
      {"leaf_spine_links", dims::none, "leaf-to-spine links"},
      {"spine_core_links", dims::none, "spine-to-core links"},
      {"links", dims::none, "all links"},
      {"cables", dims::none, "cables (one per link)"},
      {"transceivers", dims::none,
       "pluggable transceiver modules: one per optical NIC port, one per switch cage of ports (twin-port when the module carries "
       "two links), none on co-packaged switch ports"},
      {"nic_transceivers", dims::none, "NIC-side modules (single-port, one per optical NIC port)"},
      {"switch_transceivers", dims::none, "switch-side modules"},
      {"optical_ends", dims::none, "optical port ends (modules or co-packaged engines)"},
      {"switch_power", dims::power, "switches x system power of one switch (system_power: the box, optics excluded)"},
      {"optics_power", dims::power, "optical ends x energy per bit x link speed"},
      {"network_power", dims::power, "switch power + optics power"},
      {"power_per_gpu", dims::power, "network power per GPU"},
      {"bisection_links", dims::none, "links across the bisection, one direction"},
      {"bisection_bandwidth", dims::data_rate, "bisection bandwidth, one direction, shown in Gb/s (bits)", "b/s"},
      {"bisection_per_gpu", dims::data_rate, "bisection bandwidth per GPU of one half, one direction", "b/s"},
      {"max_endpoints", dims::none, "largest fabric of this tier count and radix"},
      {"parts_cost", dims::currency, "switches, transceivers and cables at the prices given"},
      {"nonblocking_switches", dims::none, "switches the same endpoints need at 1:1"},
      {"nonblocking_spines", dims::none, "switches above the leaves at 1:1"},
      {"switch_ratio", dims::none, "non-blocking switches / these switches"},
      {"spine_ratio", dims::none, "non-blocking switches above the leaves / these"},
      {"bisection_links_max_flow", dims::none, "bisection links computed by maximum flow on the wired graph"},
      {"bisection_max_flow", dims::data_rate, "bisection bandwidth by maximum flow, one direction", "b/s"},
  };
  c.run = run_fabric;
  c.source = __FILE__;
  c.tables = {
      {"tiers", "switches, links and optics per tier"},
  };
  c.verdicts = {
      {"builder_agrees", "the wired graph has the closed form's switch and link counts"},
  };
  return c;
}

}  // namespace infracalc::net
