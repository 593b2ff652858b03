// `network su`: NVIDIA-style scalable units (SUs) of racks and halls of SUs, with the compute fabric that joins
// them: GPUs, racks, leaves per SU, spines and cores for the hall, parts and watts.
#include <fmt/format.h>

#include "host/words.hpp"
#include "plugins/network/fabric_calc.hpp"
#include "plugins/network/network_calculators.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

std::string su_note(std::int64_t racks_per_su, std::int64_t gpus_per_rack, std::int64_t sus) {
  return fmt::format("SU = {} x {} = {}; hall = {} = {}, {}", plural(racks_per_su, "rack"), plural(gpus_per_rack, "GPU"),
                     plural(racks_per_su * gpus_per_rack, "GPU"), plural(sus, "SU"), plural(sus * racks_per_su, "rack"),
                     plural(sus * racks_per_su * gpus_per_rack, "GPU"));
}

void run_su(Context& ctx) {
  std::vector<std::string> notes;
  const std::int64_t sus = ctx.integer("sus");
  const std::int64_t racks_per_su = ctx.integer("racks_per_su");
  const std::int64_t gpus_per_rack = ctx.integer("gpus_per_rack");
  const std::int64_t gpus_per_node = ctx.integer("gpus_per_node");
  std::int64_t nics = 1;
  if (ctx.has("nics_per_gpu")) {
    nics = ctx.integer("nics_per_gpu");
  } else if (const Entry* sys = ctx.ref("system")) {
    const auto per_node = catalog_count(ctx, *sys, "nics_per_node");
    const auto acc = catalog_count(ctx, *sys, "accelerators_per_node");
    if (per_node && acc && *acc > 0) nics = static_cast<std::int64_t>(std::max(1.0, *per_node / *acc));
  }
  if (gpus_per_rack % gpus_per_node != 0)
    throw UserError{{fmt::format("--gpus-per-rack {} is not a whole number of {}-GPU nodes", gpus_per_rack, gpus_per_node),
                     "check --gpus-per-node (compute trays hold 4 GPUs in an NVL72)"}};
  // Rack power: the flag, the system's power_per_rack, or the power of a one-rack system.
  Maybe<Watts> rack_power;
  if (ctx.has("rack_power")) {
    rack_power.set(ctx.get<Watts>("rack_power"));
  } else if (const Entry* sys = ctx.ref("system")) {
    const auto racks_in = catalog_count(ctx, *sys, "racks");
    if (racks_in && *racks_in == 1.0)
      if (auto w = ctx.catalog<Watts>(*sys, "power")) rack_power.set(*w);
  }
  const std::int64_t gpus_per_su = racks_per_su * gpus_per_rack;
  const std::int64_t racks = sus * racks_per_su;
  const std::int64_t gpus = sus * gpus_per_su;
  const FabricDesign design = ctx.text("design") == "fat-tree" ? FabricDesign::fat_tree : FabricDesign::rail_optimised;
  const std::int64_t rails = gpus_per_node * nics;

  ctx.set_number("gpus_per_su", static_cast<double>(gpus_per_su));
  ctx.set_number("racks", static_cast<double>(racks));
  ctx.set_number("gpus", static_cast<double>(gpus));
  ctx.set_number("nodes", static_cast<double>(gpus / gpus_per_node));
  ctx.set_number("endpoints", static_cast<double>(gpus * nics));

  if (!ctx.has("switch") && !ctx.has("radix")) {
    if (rack_power) {
      const Watts compute = *rack_power * static_cast<double>(racks);
      ctx.set("compute_power", compute);
      ctx.set("compute_power_per_su", compute / static_cast<double>(sus));
    }
    notes.push_back(su_note(racks_per_su, gpus_per_rack, sus));
    notes.push_back("no switch given: give --switch ID (quantum-2-qm9700, quantum-x800-q3400, ...) or --radix for the compute fabric");
    for (auto& n : notes) ctx.note(std::move(n));
    return;
  }
  std::vector<std::string> su_notes;
  const FabricParts one = size_fabric(ctx, gpus_per_su * nics, design, rails, su_notes);
  const FabricParts hall = size_fabric(ctx, gpus * nics, design, rails, notes);
  ctx.set_number("leaves_per_su", static_cast<double>(one.plan.leaves));
  if (one.plan.leaves * sus != hall.plan.leaves)
    notes.push_back(fmt::format("one SU on its own needs {}; in the hall {} SUs share {} ({} per SU) because rail groups "
                                "of {} nodes need not end at SU boundaries",
                                plural(one.plan.leaves, "leaf", "leaves"), sus, plural(hall.plan.leaves, "leaf", "leaves"), format_number(static_cast<double>(hall.plan.leaves) / static_cast<double>(sus), 4),
                                hall.plan.leaf_down));
  ctx.set_number("tiers", hall.plan.tiers);
  ctx.set_number("leaves", static_cast<double>(hall.plan.leaves));
  ctx.set_number("spines", static_cast<double>(hall.plan.spines));
  ctx.set_number("cores", static_cast<double>(hall.plan.cores));
  ctx.set_number("switches", static_cast<double>(hall.plan.switches()));
  ctx.set_number("switches_per_su", static_cast<double>(hall.plan.switches()) / static_cast<double>(sus));
  ctx.set_number("cables", static_cast<double>(hall.cables));
  ctx.set_number("transceivers", static_cast<double>(hall.transceivers));
  Watts net{};
  bool net_known = false;
  if (hall.switch_power && hall.optics_power) {
    net = *hall.switch_power + *hall.optics_power;
    net_known = true;
    ctx.set("network_power", net);
  } else if (hall.optics_power) {
    ctx.set("optics_power", *hall.optics_power);
    notes.push_back("switch power unknown: network_power is not given; optics_power counts the transceivers only");
  }
  if (rack_power) {
    const Watts compute = *rack_power * static_cast<double>(racks);
    ctx.set("compute_power", compute);
    ctx.set("compute_power_per_su", compute / static_cast<double>(sus));
    if (net_known) {
      ctx.set("total_power", compute + net);
      ctx.set("su_power", (compute + net) / static_cast<double>(sus));
    }
  }
  Table t{"sus", "Per scalable unit and per hall",
          {{"scope", {}, ""}, {"racks", dims::none, ""}, {"gpus", dims::none, ""}, {"leaves", dims::none, ""},
           {"spines", dims::none, ""}, {"cores", dims::none, ""}, {"tiers", dims::none, ""}},
          {}};
  t.rows.push_back({std::string("one SU on its own"), Quantity::number(static_cast<double>(racks_per_su)),
                    Quantity::number(static_cast<double>(gpus_per_su)), Quantity::number(static_cast<double>(one.plan.leaves)),
                    Quantity::number(static_cast<double>(one.plan.spines)), Quantity::number(static_cast<double>(one.plan.cores)),
                    Quantity::number(one.plan.tiers)});
  t.rows.push_back({"hall of " + plural(sus, "SU"), Quantity::number(static_cast<double>(racks)),
                    Quantity::number(static_cast<double>(gpus)), Quantity::number(static_cast<double>(hall.plan.leaves)),
                    Quantity::number(static_cast<double>(hall.plan.spines)), Quantity::number(static_cast<double>(hall.plan.cores)),
                    Quantity::number(hall.plan.tiers)});
  ctx.add_table(std::move(t));
  notes.push_back(su_note(racks_per_su, gpus_per_rack, sus));
  notes.push_back(fmt::format("compute fabric: {} per GPU, {} per {}-GPU node, {}", plural(nics, "NIC port"), plural(rails, "rail"),
                              gpus_per_node, design == FabricDesign::rail_optimised ? "rail-optimised" : "fat tree"));
  notes.push_back("the scale-up (NVLink) domain inside each rack, storage and management networks are not in these counts");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_su_calculator() {
  Calculator c;
  c.name = "su";
  c.summary = "scalable units and halls: racks, GPUs, and the compute fabric per SU and per hall";
  c.description =
      "GPUs per SU = racks per SU x GPUs per rack (GB200 NVL72: 8 x 72 = 576); a hall of S SUs has S x racks per SU racks "
      "(16 SUs: 128 racks, 9,216 GPUs). The compute fabric is sized as in `network fabric` (rail-optimised by default) for "
      "one SU on its own and for the whole hall, which needs more tiers. Compute power = racks x rack power; SU power adds "
      "the hall network's watts shared per SU.";
  c.refs = {{"system", {"system"}, "rack system from the catalog (gb200-nvl72): GPUs per rack and node, NIC speed, rack power"}};
  c.inputs = {
      {.name = "sus", .kind = InputKind::integer, .help = "scalable units in the hall", .default_value = "1", .example = "16"},
      {.name = "racks_per_su", .kind = InputKind::integer, .help = "racks per scalable unit (NVIDIA GB200 SuperPOD: 8)",
       .default_value = "8"},
      {.name = "gpus_per_rack", .kind = InputKind::integer, .help = "GPUs per rack", .example = "72",
       .catalog = "system.accelerators_per_rack"},
      {.name = "gpus_per_node", .kind = InputKind::integer, .help = "GPUs per node or compute tray (rails per node follow from it)",
       .default_value = "4", .catalog = "system.accelerators_per_node"},
      {.name = "nics_per_gpu", .kind = InputKind::integer, .help = "compute-fabric NIC ports per GPU (default: from --system, else 1)",
       .optional = true},
      {.name = "rack_power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one rack", .example = "132kW",
       .catalog = "system.power_per_rack", .optional = true},
      {.name = "design", .kind = InputKind::choice, .help = "compute fabric wiring", .default_value = "rail-optimised",
       .choices = {"fat-tree", "rail-optimised"}},
  };
  for (auto in : fabric_inputs()) {
    if (in.name == "nic_speed") in.catalog = "system.nic_speed";
    c.inputs.push_back(std::move(in));
  }
  c.outputs = {
      {"gpus_per_su", dims::none, "GPUs in one scalable unit"},
      {"racks", dims::none, "racks in the hall"},
      {"gpus", dims::none, "GPUs in the hall"},
      {"nodes", dims::none, "nodes (compute trays) in the hall"},
      {"endpoints", dims::none, "compute-fabric NIC ports in the hall"},
      {"leaves_per_su", dims::none, "leaf switches one SU needs"},
      {"tiers", dims::none, "switch tiers of the hall fabric"},
      {"leaves", dims::none, "leaf switches in the hall"},
      {"spines", dims::none, "spine (pod aggregation) switches in the hall"},
      {"cores", dims::none, "core (super-spine) switches in the hall"},
      {"switches", dims::none, "all compute-fabric switches in the hall"},
      {"switches_per_su", dims::none, "hall switches / SUs"},
      {"cables", dims::none, "compute-fabric cables in the hall"},
      {"transceivers", dims::none, "pluggable transceivers in the hall"},
      {"optics_power", dims::power, "optics watts of the hall fabric (when switch power is unknown)"},
      {"network_power", dims::power, "switch + optics watts of the hall fabric"},
      {"compute_power", dims::power, "racks x rack power"},
      {"compute_power_per_su", dims::power, "rack power x racks per SU"},
      {"total_power", dims::power, "compute + network power of the hall"},
      {"su_power", dims::power, "(compute + network power) / SUs"},
  };
  c.run = run_su;
  c.source = __FILE__;
  c.tables = {
      {"sus", "per scalable unit and per hall"},
  };
  return c;
}

}  // namespace infracalc::net
