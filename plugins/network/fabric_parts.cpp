#include "plugins/network/fabric_calc.hpp"

#include <cmath>
#include <fmt/format.h>

#include "host/words.hpp"
#include "units/format.hpp"

namespace infracalc::net {

double parse_ratio(const std::string& text, std::string_view flag) {
  const auto bad = [&] {
    return UserError{{std::string(flag) + ": expected a down:up ratio such as 2:1 or 2 (host ports per uplink), got \"" + text + "\"",
                      "write down:up with a colon: 1:1 is non-blocking, 3:1 has three host ports per uplink"}};
  };
  const auto colon = text.find(':');
  auto number = [&](const std::string& s) {
    auto q = parse_input(s, Expectation{dims::none, false}, flag);
    if (!q) throw bad();
    return q->value;
  };
  if (colon != std::string::npos && text.find(':', colon + 1) != std::string::npos) throw bad();
  const double down = number(colon == std::string::npos ? text : text.substr(0, colon));
  const double up = colon == std::string::npos ? 1.0 : number(text.substr(colon + 1));
  if (!(down > 0) || !(up > 0) || !std::isfinite(down / up)) throw bad();
  return down / up;
}

std::vector<Input> fabric_inputs() {
  return {
      {.name = "switch", .kind = InputKind::text, .help = "switch catalog id: ports, port speed and power (quantum-2-qm9700, spectrum-4-sn5600, tomahawk-5, ...)",
       .example = "quantum-2-qm9700", .optional = true},
      {.name = "radix", .kind = InputKind::integer, .help = "switch ports at the link speed (overrides --switch; k of a k-ary fat tree)",
       .example = "64", .optional = true},
      {.name = "nic_speed", .kind = InputKind::quantity, .dim = dims::data_rate,
       .help = "line rate of one NIC port, one direction (default: the switch port speed)", .example = "400Gb/s", .optional = true},
      {.name = "tiers", .kind = InputKind::integer, .help = "switch tiers 1, 2 or 3 (default: the fewest that fit)", .example = "3",
       .optional = true, .most = 3, .most_why = "four and more tiers are not modelled"},
      {.name = "oversubscription", .kind = InputKind::text, .help = "leaf host:uplink port ratio (1:1 is non-blocking)",
       .default_value = "1:1", .example = "2:1"},
      {.name = "host_cables", .kind = InputKind::choice, .help = "NIC-to-leaf cables: optical (transceivers at both ends) or copper (DAC, no optics)",
       .default_value = "optical", .choices = {"optical", "copper"}},
      {.name = "optics", .kind = InputKind::text, .help = "switch-side optics: catalog id or pluggable, lpo, cpo, cpo-davisson",
       .default_value = "pluggable", .example = "cpo"},
      {.name = "nic_optics", .kind = InputKind::text, .help = "NIC-side optics: catalog id or pluggable, lpo", .default_value = "pluggable",
       .example = "lpo"},
      {.name = "switch_power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of one switch without optics (overrides the catalog)",
       .example = "1.5kW", .optional = true},
      {.name = "switch_price", .kind = InputKind::quantity, .dim = dims::currency, .help = "price of one switch", .example = "$30000",
       .optional = true},
      {.name = "transceiver_price", .kind = InputKind::quantity, .dim = dims::currency, .help = "price of one pluggable transceiver",
       .example = "$900", .optional = true},
      {.name = "cable_price", .kind = InputKind::quantity, .dim = dims::currency, .help = "price of one cable (fibre or DAC)",
       .example = "$150", .optional = true},
  };
}

FabricParts size_fabric(Context& ctx, std::int64_t endpoints, FabricDesign design, std::int64_t rails, std::vector<std::string>& notes) {
  FabricParts out;
  const Entry* sw = ctx.has("switch") ? &find_entry(ctx.text("switch"), {"network"}, "--switch") : nullptr;
  std::optional<std::int64_t> radix;
  if (ctx.has("nic_speed")) out.link_speed = ctx.get<BytesPerSecond>("nic_speed");
  if (sw != nullptr) {
    const auto ports = catalog_count(ctx, *sw, "ports");
    const auto speed = ctx.catalog<BytesPerSecond>(*sw, "port_speed");
    if (!ports || !speed) throw UserError{{sw->file() + ": " + sw->id() + " has no ports or port_speed", "give --radix"}};
    if (!out.link_speed) out.link_speed = *speed;
    const double split = ratio(*speed, *out.link_speed);
    if (split < 1.0 - 1e-9)
      throw UserError{{fmt::format("--nic-speed {} is faster than a {} port ({})", format_human(to_quantity(*out.link_speed), {}, "b/s"),
                                   sw->id(), format_human(to_quantity(*speed), {}, "b/s")),
                       "choose a faster switch or a slower NIC"}};
    if (std::fabs(split - std::round(split)) > 1e-6)
      throw UserError{{fmt::format("{} {} port does not split evenly into {} links",
                                   article(format_human(to_quantity(*speed), {}, "b/s")),
                                   format_human(to_quantity(*speed), {}, "b/s"), format_human(to_quantity(*out.link_speed), {}, "b/s")),
                       "give --radix for the ports at the NIC speed"}};
    radix = static_cast<std::int64_t>(std::llround(*ports * std::round(split)));
    if (split > 1.5)
      notes.push_back(fmt::format("{}: each {} port split into {} x {} links (breakout): radix {}", sw->id(),
                                  format_human(to_quantity(*speed), {}, "b/s"), std::llround(split),
                                  format_human(to_quantity(*out.link_speed), {}, "b/s"), *radix));
    out.switch_each = switch_power_of(ctx, *sw, notes);
  }
  if (ctx.has("radix")) radix = ctx.integer("radix");
  if (!radix) throw UserError{{"network fabric: no switch radix", "give --switch ID or --radix 64"}};
  if (ctx.has("switch_power")) out.switch_each = ctx.get<Watts>("switch_power");

  FabricInput in;
  in.endpoints = endpoints;
  in.radix = *radix;
  in.oversubscription = parse_ratio(ctx.text("oversubscription"), "--oversubscription");
  in.tiers = ctx.has("tiers") ? ctx.count("tiers") : 0;
  in.design = design;
  in.rails = rails;
  out.plan = plan_fabric(in);
  const FabricPlan& p = out.plan;

  const Entry& sw_optics = find_entry(ctx.text("optics"), {"network"}, "--optics");
  const Entry& nic_optics = find_entry(ctx.text("nic_optics"), {"network"}, "--nic-optics");
  out.co_packaged = sw_optics.id().find("cpo") != std::string::npos;
  if (nic_optics.id().find("cpo") != std::string::npos)
    throw UserError{{"--nic-optics: co-packaged optics sit on switch packages, not NICs", "use pluggable or lpo"}};
  const bool host_optical = ctx.text("host_cables") == "optical";
  if (!host_optical && ctx.origin("nic_optics") == Origin::flag)
    throw UserError{{"--nic-optics " + ctx.text("nic_optics") + " with --host-cables copper: copper (DAC) host links have no optics at the NIC",
                     "drop --nic-optics, or use --host-cables optical"}};
  const std::int64_t switch_links = p.leaf_spine_links + p.spine_core_links;
  const std::int64_t switch_ends = 2 * switch_links + (host_optical ? p.host_links : 0);
  const std::int64_t nic_ends = host_optical ? p.host_links : 0;
  out.optical_ends = switch_ends + nic_ends;
  out.cables = p.links();
  const OpticsSpec so = read_optics(ctx, sw_optics);
  const OpticsSpec no = read_optics(ctx, nic_optics);
  if (out.link_speed) {
    // A module faster than the link serves several switch ports (an 800G twin-port OSFP carries two 400G ports).
    const double per = ratio(so.port_speed, *out.link_speed);
    if (per > 1.5 && std::fabs(per - std::round(per)) < 1e-6) out.ports_per_module = std::llround(per);
    out.optics_power = so.energy_per_bit * *out.link_speed * static_cast<double>(switch_ends) +
                       no.energy_per_bit * *out.link_speed * static_cast<double>(nic_ends);
  }
  const ModuleCounts mc = count_modules(p, out.ports_per_module, host_optical, out.co_packaged);
  out.nic_modules = mc.nic;
  out.leaf_host_modules = mc.leaf_host;
  out.leaf_spine_modules = mc.leaf_spine;
  out.spine_core_modules = mc.spine_core;
  out.transceivers = mc.total();
  if (out.switch_each) out.switch_power = *out.switch_each * static_cast<double>(p.switches());
  return out;
}

}  // namespace infracalc::net
