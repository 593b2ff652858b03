// `power rack`: a rack's IT power from a catalog system or from its parts, per GPU all-in, and per row
// and hall; average against peak under a utilisation model.
#include <cmath>
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "host/words.hpp"
#include "plugins/power/power_math.hpp"
#include "plugins/power/power_calculators.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

// A catalog system describes a whole product (a rack, or a pod of racks): per-rack figures are its
// per-rack fields, or its totals divided by its racks.
void fill_from_system(Context& ctx) {
  const Entry* s = ctx.ref("system");
  if (s == nullptr) return;
  const Expectation count{dims::none, false};
  double racks = 1.0;
  if (auto r = ctx.catalog_quantity(*s, "racks", count)) racks = r->value;
  if (!ctx.has("rack_power")) {
    std::optional<Watts> per_rack = ctx.catalog<Watts>(*s, "power_per_rack");
    if (!per_rack) {
      if (auto total = ctx.catalog<Watts>(*s, "power")) per_rack = *total / racks;
    }
    if (per_rack) record_input(ctx, "rack_power", to_quantity(*per_rack), Origin::catalog, ctx.quote(*per_rack), s->id());
  }
  if (!ctx.has("gpus")) {
    std::optional<Quantity> n = ctx.catalog_quantity(*s, "accelerators_per_rack", count);
    if (!n) {
      if (auto total = ctx.catalog_quantity(*s, "accelerators", count)) n = Quantity::number(total->value / racks);
    }
    if (n) record_input(ctx, "gpus", *n, Origin::catalog, format_machine(n->value), s->id());
  }
  if (!ctx.has("gpu_power") && ctx.ref("gpu") == nullptr) {
    if (auto acc = ctx.catalog_text(*s, "accelerator")) {
      if (const Entry* g = Catalog::instance().find(*acc)) {
        if (auto tdp = ctx.catalog<Watts>(*g, "tdp"))
          record_input(ctx, "gpu_power", to_quantity(*tdp), Origin::catalog, ctx.quote(*tdp), g->id());
      }
    }
  }
  if (racks > 1.0) ctx.note(fmt::format("{} spans {} racks; per-rack figures are its totals divided by {}", s->id(), racks, racks));
}

Number count_of(Context& ctx, std::string_view key) { return Number::from_value(static_cast<double>(ctx.integer(key))); }

// The rack's parts as the inputs give them; a host count rounds up to whole hosts.
pwr::RackParts read_parts(Context& ctx, Number gpus) {
  pwr::RackParts parts{};
  parts.gpus = gpus;
  parts.gpu_power = ctx.get<Watts>("gpu_power");
  parts.hosts = Number::from_value(0.0);
  parts.host_power = from_base<Watts>(0.0);
  parts.nics = Number::from_value(0.0);
  parts.nic_power = from_base<Watts>(0.0);
  parts.switches = Number::from_value(0.0);
  parts.switch_power = from_base<Watts>(0.0);
  parts.other = ctx.has("other_w") ? ctx.get<Watts>("other_w") : from_base<Watts>(0.0);
  if (ctx.has("host_w")) {
    const auto per_host = ctx.integer("gpus_per_host");
    const auto hosts = (ctx.integer("gpus") + per_host - 1) / per_host;
    if (hosts * per_host != ctx.integer("gpus"))
      ctx.note(fmt::format("hosts rounded up: {} at {} per host need {}", plural(ctx.integer("gpus"), "GPU"), per_host,
                           plural(hosts, "host")));
    parts.hosts = Number::from_value(static_cast<double>(hosts));
    parts.host_power = ctx.get<Watts>("host_w");
  }
  if (ctx.has("nic_w")) {
    if (ctx.has("nics")) {
      parts.nics = count_of(ctx, "nics");
    } else {
      parts.nics = gpus;
      ctx.note("--nics not given: one NIC per GPU (rail-optimised fabric)");
    }
    parts.nic_power = ctx.get<Watts>("nic_w");
  }
  if (ctx.has("switch_w")) {
    if (!ctx.has("switches"))
      throw UserError{{"--switch-w needs --switches (how many switches or switch trays the rack holds)", "e.g. --switches 9 for an NVL72"}};
    parts.switches = count_of(ctx, "switches");
    parts.switch_power = ctx.get<Watts>("switch_w");
  }
  return parts;
}

void report_parts(Context& ctx, const pwr::RackParts& parts, const pwr::RackLoad& load) {
  ctx.set("gpu_load", load.gpus);
  if (ctx.has("host_w")) ctx.set("host_load", load.hosts);
  if (ctx.has("nic_w")) ctx.set("nic_load", load.nics);
  if (ctx.has("switch_w")) ctx.set("switch_load", load.switches);
  ctx.set("parts_power", load.it);
  Table t{"breakdown", "Rack IT power by part", {{"part"}, {"count", dims::none}, {"each", dims::power}, {"total", dims::power}, {"share", dims::none, "%"}}, {}};
  auto row = [&](std::string name, Number n, Watts each, Watts total) {
    t.rows.push_back({name, Quantity::number(n.value()), to_quantity(each), to_quantity(total), Quantity::number(total / load.it)});
  };
  row("accelerators", parts.gpus, parts.gpu_power, load.gpus);
  if (ctx.has("host_w")) row("hosts", parts.hosts, parts.host_power, load.hosts);
  if (ctx.has("nic_w")) row("NICs", parts.nics, parts.nic_power, load.nics);
  if (ctx.has("switch_w")) row("switches", parts.switches, parts.switch_power, load.switches);
  if (ctx.has("other_w")) row("other", Number::from_value(1.0), load.other, load.other);
  ctx.add_table(std::move(t));
}

// The rack's IT power: the rated figure when one is given (the parts are then only compared with it), else the
// sum of the parts.
Watts rack_power(Context& ctx, std::optional<Number> gpus) {
  if (!ctx.has("gpus") || !ctx.has("gpu_power")) return ctx.get<Watts>("rack_power");
  const pwr::RackParts parts = read_parts(ctx, *gpus);
  const pwr::RackLoad load = pwr::rack_load(parts);
  report_parts(ctx, parts, load);
  if (ctx.has("rack_power")) {
    const Watts rated = ctx.get<Watts>("rack_power");
    ctx.note(fmt::format("the parts sum to {} = {} of the rack power {}; rack figures use the rack power", ctx.quote(load.it),
                         ctx.quote_percent((load.it / rated).value()), ctx.quote(rated)));
    return rated;
  }
  if (!ctx.has("host_w") && !ctx.has("nic_w") && !ctx.has("switch_w") && !ctx.has("other_w"))
    ctx.note("accelerators only: add --host-w, --nic-w, --switch-w and --other-w for the rest of the rack");
  return load.it;
}

Watts average_power(Context& ctx, Watts rack) {
  const Number u = Number::from_value(ctx.number("utilisation"));
  fill_idle_share(ctx, "idle_fraction", {"system", "gpu"});
  const Number idle = Number::from_value(ctx.has("idle_fraction") ? ctx.number("idle_fraction") : 0.0);
  const Watts average = pwr::average_power(rack, u, idle);
  ctx.set("rack_average", average);
  if (u.value() < 1.0)
    ctx.note(ctx.has("idle_fraction")
                 ? fmt::format("average = idle + utilisation x (peak - idle), idle = {} of peak", ctx.quote_percent(idle.value()))
                 : std::string("no idle draw known (no --system or --gpu with idle_power): average = utilisation x peak, a "
                               "lower bound; give --idle-fraction for the idle floor"));
  return average;
}

void report_row_and_hall(Context& ctx, Watts rack, Watts average, std::optional<Number> gpus) {
  if (!ctx.has("racks_per_row")) {
    if (ctx.has("rows") || ctx.has("row_extra_w"))
      throw UserError{{"--rows and --row-extra-w need --racks-per-row", "e.g. --racks-per-row 8 --rows 16"}};
    return;
  }
  const Number racks = count_of(ctx, "racks_per_row");
  const Watts extra = ctx.has("row_extra_w") ? ctx.get<Watts>("row_extra_w") : from_base<Watts>(0.0);
  const Watts row = racks * rack + extra;
  const Watts row_avg = racks * average + extra;
  ctx.set("row_compute_power", racks * rack);
  ctx.set("row_power", row);
  ctx.set("row_average", row_avg);
  if (ctx.has("rows")) {
    const Number rows = count_of(ctx, "rows");
    ctx.set("hall_power", rows * row);
    ctx.set("hall_average", rows * row_avg);
    if (gpus) ctx.set_number("hall_gpus", rows.value() * racks.value() * gpus->value());
  }
}

void run_rack(Context& ctx) {
  fill_from_system(ctx);
  if (!ctx.has("rack_power") && !(ctx.has("gpus") && ctx.has("gpu_power")))
    throw UserError{{"power rack: no rack power: give --rack-power, or --gpus with --gpu-power (or --gpu ID), or --system ID",
                     "e.g. --gpus 72 --gpu b200 --host-w 1.2kW --switches 9 --switch-w 1.5kW"}};
  std::optional<Number> gpus;
  if (ctx.has("gpus")) gpus = count_of(ctx, "gpus");
  const Watts rack = rack_power(ctx, gpus);
  ctx.set("rack_power", rack);
  if (gpus) ctx.set("per_gpu_all_in", rack / *gpus);
  if (ctx.has("psu_efficiency")) ctx.set("rack_input_power", pwr::input_power(rack, Number::from_value(ctx.number("psu_efficiency"))));
  const Watts average = average_power(ctx, rack);
  report_row_and_hall(ctx, rack, average, gpus);
  if (ctx.has("baseline")) ctx.set_number("times_baseline", (rack / ctx.get<Watts>("baseline")).value());
  ctx.note("IT power only: cooling and power-conversion overhead outside the rack is the facility's PUE (see `power energy`, `cooling facility`)");
}

}  // namespace

Calculator power_rack_calculator() {
  Calculator c;
  c.name = "rack";
  c.summary = "rack IT power from a system or from its parts, per GPU all-in, per row and hall";
  c.description =
      "rack = gpus x gpu_power + hosts x host_w + nics x nic_w + switches x switch_w + other_w, or the rated rack "
      "power of --system / --rack-power; per_gpu_all_in = rack / gpus; row = racks_per_row x rack + row_extra_w; "
      "hall = rows x row. Average power follows the linear model P = P_idle + u (P_peak - P_idle) (Fan, Weber and "
      "Barroso, ISCA 2007). IT power only: facility overhead (PUE) is not included.";
  c.refs = {{"system", {"system"}, "system (rack or pod) from the catalog: sets rack power, GPUs per rack and the accelerator"},
            {"gpu", {"accelerator"}, "accelerator from the catalog: sets --gpu-power from its TDP"},
            {"nic", {"network"}, "NIC from the catalog: sets --nic-w from its power"},
            {"switch", {"network"}, "switch from the catalog: sets --switch-w from its power"}};
  c.inputs = {
      {.name = "rack_power", .kind = InputKind::quantity, .dim = dims::power,
       .help = "rated IT power of one rack (wins over the sum of parts)", .example = "132kW", .optional = true},
      {.name = "gpus", .kind = InputKind::integer, .help = "accelerators per rack", .example = "72", .optional = true},
      {.name = "gpu_power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one accelerator (TDP or measured)",
       .example = "1200W", .catalog = "gpu.tdp", .optional = true},
      {.name = "gpus_per_host", .kind = InputKind::integer, .help = "accelerators per host (server or compute tray)",
       .default_value = "8", .example = "4"},
      {.name = "host_w", .kind = InputKind::quantity, .dim = dims::power,
       .help = "power of one host without its accelerators: CPUs, memory, fans, drives, board", .example = "1.5kW", .optional = true},
      {.name = "nics", .kind = InputKind::integer, .help = "NICs per rack (default: one per GPU)", .example = "72", .optional = true},
      {.name = "nic_w", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one NIC with its optics",
       .example = "25W", .catalog = "nic.power", .optional = true},
      {.name = "switches", .kind = InputKind::integer, .help = "switches or switch trays in the rack", .example = "9",
       .bound = Bound::non_negative, .optional = true},
      {.name = "switch_w", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one switch or switch tray",
       .example = "1.5kW", .catalog = "switch.power", .optional = true},
      {.name = "other_w", .kind = InputKind::quantity, .dim = dims::power,
       .help = "anything else per rack: management switch, PDUs, rack fans", .example = "500W", .bound = Bound::non_negative,
       .optional = true},
      {.name = "psu_efficiency", .kind = InputKind::quantity, .dim = dims::none,
       .help = "efficiency of the rack's power supplies; adds the input power they draw", .example = "96%",
       .bound = Bound::fraction, .optional = true},
      {.name = "utilisation", .kind = InputKind::quantity, .dim = dims::none,
       .help = "average load as a share of peak, for the average power", .default_value = "1", .example = "60%",
       .bound = Bound::fraction0},
      {.name = "idle_fraction", .kind = InputKind::quantity, .dim = dims::none,
       .help = "power at zero load as a share of peak (default: the catalog's idle_power of --system or --gpu, else 0)",
       .example = "30%",
       .bound = Bound::fraction0, .optional = true},
      {.name = "racks_per_row", .kind = InputKind::integer, .help = "racks in a row (or a scalable unit)", .example = "8",
       .optional = true},
      {.name = "row_extra_w", .kind = InputKind::quantity, .dim = dims::power,
       .help = "power per row outside the compute racks: network racks, CDUs", .example = "144kW", .bound = Bound::non_negative,
       .optional = true},
      {.name = "rows", .kind = InputKind::integer, .help = "rows in the hall", .example = "16", .optional = true},
      {.name = "baseline", .kind = InputKind::quantity, .dim = dims::power,
       .help = "a rack to compare with, e.g. a 12.5 kW enterprise rack", .example = "12.5kW", .optional = true},
  };
  c.outputs = {
      {"gpu_load", dims::power, "all accelerators of the rack", "W"},
      {"host_load", dims::power, "all hosts (without accelerators)", "W"},
      {"nic_load", dims::power, "all NICs", "W"},
      {"switch_load", dims::power, "all switches", "W"},
      {"parts_power", dims::power, "sum of the parts", "W"},
      {"rack_power", dims::power, "IT power of one rack at full load", "W"},
      {"per_gpu_all_in", dims::power, "rack power per accelerator, hosts, NICs and switches included", "W"},
      {"rack_input_power", dims::power, "power drawn ahead of the rack's power supplies", "W"},
      {"rack_average", dims::power, "average rack power at --utilisation", "W"},
      {"row_compute_power", dims::power, "compute racks of one row", "W"},
      {"row_power", dims::power, "one row at full load, extras included", "W"},
      {"row_average", dims::power, "one row on average", "W"},
      {"hall_power", dims::power, "the hall at full load", "W"},
      {"hall_average", dims::power, "the hall on average", "W"},
      {"hall_gpus", dims::none, "accelerators in the hall"},
      {"times_baseline", dims::none, "rack power / --baseline"},
  };
  c.run = run_rack;
  c.source = __FILE__;
  c.tables = {
      {"breakdown", "rack IT power by part"},
  };
  return c;
}

}  // namespace infracalc
