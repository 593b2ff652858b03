// cluster fleet: how chips add up into nodes, racks, scalable units and halls, and what they add up to.
#include <cmath>
#include <fmt/format.h>

#include "plugins/cluster/cluster_calculators.hpp"
#include "plugins/cluster/cluster_hw.hpp"

namespace infracalc::cluster {

namespace {

std::optional<double> count(Context& ctx, std::string_view key, const Entry* sys, std::string_view path) {
  if (ctx.has(key)) return static_cast<double>(ctx.integer(key));
  if (sys != nullptr)
    if (auto q = ctx.catalog<Number>(*sys, path)) return q->value();
  return std::nullopt;
}

void run_fleet(Context& ctx) {
  const Entry* sys = ctx.ref("system");
  const Entry* gpu = ctx.ref("gpu");
  if (sys != nullptr && gpu == nullptr)
    if (auto acc = sys->text("accelerator")) gpu = &Catalog::instance().get(*acc, {"accelerator"}, "--system accelerator");

  // Chips per rack: given, from the system, or nodes per rack x chips per node.
  const auto per_node = count(ctx, "chips_per_node", sys, "accelerators_per_node");
  std::optional<double> per_rack = ctx.has("chips_per_rack") ? std::optional<double>(static_cast<double>(ctx.integer("chips_per_rack"))) : std::nullopt;
  if (!per_rack && ctx.has("nodes_per_rack")) {
    if (!per_node) throw UserError{{"--nodes-per-rack needs --chips-per-node (or --system)", "e.g. --nodes-per-rack 9 --chips-per-node 8"}};
    per_rack = static_cast<double>(ctx.integer("nodes_per_rack")) * *per_node;
    ctx.note(fmt::format("chips per rack = {} nodes x {} chips", ctx.quote_count(static_cast<double>(ctx.integer("nodes_per_rack"))),
                         ctx.quote_count(*per_node)));
  }
  if (!per_rack && sys) {
    if (auto q = ctx.catalog<Number>(*sys, "accelerators_per_rack")) per_rack = q->value();
  }
  if (per_rack) ctx.set_number("chips_per_rack", *per_rack);

  double chips = 0;
  if (ctx.has("chips")) {
    chips = static_cast<double>(ctx.integer("chips"));
  } else {
    double racks = 0;
    if (ctx.has("racks")) racks = static_cast<double>(ctx.integer("racks"));
    else if (ctx.has("sus")) {
      if (!ctx.has("racks_per_su")) throw UserError{{"--sus needs --racks-per-su", "e.g. --sus 16 --racks-per-su 8"}};
      racks = static_cast<double>(ctx.integer("sus") * ctx.integer("racks_per_su"));
      ctx.set_number("scalable_units", static_cast<double>(ctx.integer("sus")));
    } else if (sys) {
      if (auto q = ctx.catalog<Number>(*sys, "racks")) racks = q->value();
    }
    if (racks <= 0 && per_rack && !sys) {
      racks = 1;
      ctx.note("no --racks: one rack");
    }
    if (racks <= 0) {
      if (sys) {
        if (auto q = ctx.catalog<Number>(*sys, "accelerators")) chips = q->value();
      }
      if (chips <= 0)
        throw UserError{{"missing the size of the build", "give --chips N, --racks N (with chips per rack), or --sus N --racks-per-su N"}};
    } else {
      if (!per_rack) throw UserError{{"missing chips per rack", "give --chips-per-rack, --nodes-per-rack with --chips-per-node, or --system"}};
      ctx.set_number("racks", racks);
      chips = racks * *per_rack;
    }
  }
  ctx.set_number("chips", chips);
  if (per_node) ctx.set_number("nodes", std::ceil(chips / *per_node));
  if (const auto domain = count(ctx, "scaleup_domain", sys, "scaleup_domain"); domain && *domain > 0) {
    ctx.set_number("scaleup_domains", std::ceil(chips / *domain));
    if (std::fmod(chips, *domain) != 0) ctx.note(fmt::format("{} chips do not fill whole {}-chip scale-up domains", ctx.quote_count(chips), ctx.quote_count(*domain)));
  }

  std::optional<FlopsPerSecond> peak;
  if (ctx.has("peak_per_chip")) peak = ctx.get<FlopsPerSecond>("peak_per_chip");
  else if (gpu) peak = catalog_peak(ctx, *gpu, ctx.text("precision"));
  if (peak) {
    ctx.set("peak_per_chip", *peak);
    ctx.set("aggregate_peak", chips * *peak);
  }
  std::optional<Bytes> mem;
  if (ctx.has("memory_per_chip")) mem = ctx.get<Bytes>("memory_per_chip");
  else if (gpu) mem = ctx.catalog<Bytes>(*gpu, "memory_capacity");
  if (mem) ctx.set("aggregate_memory", chips * *mem);
  if (per_rack && chips > 0 && !ctx.has("chips")) ctx.note("chips = racks x chips per rack");
  ctx.note("aggregate peak is chips x the per-chip peak: the sum of datasheet rates, not a delivered rate");
}

}  // namespace

Calculator fleet_calculator() {
  Calculator c;
  c.name = "fleet";
  c.summary = "chips per rack, racks, scalable units and halls: chip count, nodes, scale-up domains, aggregate peak and memory";
  c.description =
      "chips per rack = nodes per rack x chips per node; racks = scalable units x racks per SU; chips = racks x chips per rack; "
      "aggregate peak = chips x peak per chip (dense, at --precision; a sum of datasheet rates); aggregate memory likewise.";
  c.refs = hardware_refs();
  c.inputs = {
      {.name = "chips", .kind = InputKind::integer, .help = "chips in the build (replaces racks x chips per rack)", .example = "256", .optional = true},
      {.name = "chips_per_node", .kind = InputKind::integer, .help = "chips per node (default: --system accelerators_per_node)", .example = "8",
       .optional = true},
      {.name = "nodes_per_rack", .kind = InputKind::integer, .help = "nodes per rack", .example = "9", .optional = true},
      {.name = "chips_per_rack", .kind = InputKind::integer, .help = "chips per rack (default: nodes x chips per node, or --system)",
       .example = "72", .optional = true},
      {.name = "racks", .kind = InputKind::integer, .help = "racks", .example = "145", .optional = true},
      {.name = "sus", .kind = InputKind::integer, .help = "scalable units", .example = "16", .optional = true},
      {.name = "racks_per_su", .kind = InputKind::integer, .help = "racks per scalable unit", .example = "8", .optional = true},
      {.name = "scaleup_domain", .kind = InputKind::integer, .help = "chips per scale-up domain (default: --system)", .example = "72",
       .optional = true},
      {.name = "peak_per_chip", .kind = InputKind::quantity, .dim = dims::flop_rate, .help = "peak per chip (default: --gpu at --precision)",
       .example = "1.2PFLOP/s", .optional = true},
      {.name = "memory_per_chip", .kind = InputKind::quantity, .dim = dims::information, .help = "memory per chip (default: --gpu)",
       .example = "192GB", .optional = true},
      precision_input(),
  };
  c.outputs = {
      {"chips_per_rack", dims::none, "chips in one rack"},
      {"scalable_units", dims::none, "scalable units"},
      {"racks", dims::none, "racks"},
      {"chips", dims::none, "chips in the build"},
      {"nodes", dims::none, "nodes (rounded up)"},
      {"scaleup_domains", dims::none, "scale-up domains (rounded up)"},
      {"peak_per_chip", dims::flop_rate, "peak of one chip"},
      {"aggregate_peak", dims::flop_rate, "chips x peak per chip"},
      {"aggregate_memory", dims::information, "chips x memory per chip"},
  };
  c.run = run_fleet;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::cluster
