// `network switch`: a switch ASIC's capacity, its radix at a port speed (breakouts), SerDes lanes, and a comparison.
#include <cmath>
#include <fmt/format.h>

#include "plugins/network/energy_math.hpp"
#include "plugins/network/network_calculators.hpp"
#include "plugins/network/network_common.hpp"
#include "units/format.hpp"

namespace infracalc::net {

namespace {

struct SwitchSpec {
  std::string id = "custom";
  BytesPerSecond capacity{};   // sum of port rates, one direction
  BytesPerSecond port_speed{};
  BytesPerSecond serdes_rate{};
  Maybe<Watts> power;
};

SwitchSpec read_switch(Context& ctx, const Entry& e, std::vector<std::string>& notes) {
  SwitchSpec s;
  s.id = e.id();
  const auto ports = catalog_count(ctx, e, "ports");
  const auto speed = ctx.catalog<BytesPerSecond>(e, "port_speed");
  if (speed) s.port_speed = *speed;
  if (auto cap = ctx.catalog<BytesPerSecond>(e, "capacity")) s.capacity = *cap;
  else if (ports && speed) s.capacity = *speed * *ports;
  if (auto serdes = ctx.catalog<BytesPerSecond>(e, "serdes_rate")) s.serdes_rate = *serdes;
  if (auto w = switch_power_of(ctx, e, notes)) s.power.set(*w);
  if (s.capacity.value() <= 0) throw UserError{{e.file() + ": " + e.id() + " has no capacity or ports x port_speed", "give --capacity"}};
  return s;
}

std::string rate(const BytesPerSecond& r) { return format_human(to_quantity(r), {}, "b/s"); }

// --ports with a port speed is a capacity: it must agree with --capacity, and may not exceed the catalog
// switch's capacity (fewer ports than the switch has describes a partly used switch).
void apply_ports(Context& ctx, SwitchSpec& s, const std::string& switch_id, std::vector<std::string>& notes) {
  const std::int64_t ports = ctx.integer("ports");
  if (s.port_speed.value() <= 0)
    throw UserError{{fmt::format("--ports {} needs a port speed", ports), "give --port-speed 400Gb/s (or --switch ID for its port speed)"}};
  const BytesPerSecond product = s.port_speed * static_cast<double>(ports);
  const std::string what = fmt::format("--ports {} x {} = {}", ports, rate(s.port_speed), rate(product));
  const double r = ratio(product, s.capacity.value() > 0 ? s.capacity : product);
  if (ctx.has("capacity")) {
    if (std::fabs(r - 1.0) > 1e-9)
      throw UserError{{fmt::format("{} contradicts --capacity {}", what, rate(s.capacity)),
                       fmt::format("give two of --capacity, --ports and --port-speed (at {} the capacity holds {} ports)",
                                   rate(s.port_speed), format_number(ratio(s.capacity, s.port_speed), 6))}};
    return;
  }
  if (s.capacity.value() > 0) {  // from the catalog switch
    if (r > 1.0 + 1e-9)
      throw UserError{{fmt::format("{} is more than {}'s capacity of {}", what, switch_id, rate(s.capacity)),
                       fmt::format("at {} {} has at most {} ports; drop --ports to count them", rate(s.port_speed), switch_id,
                                   format_number(std::floor(ratio(s.capacity, s.port_speed) + 1e-9), 6))}};
    if (r < 1.0 - 1e-9)
      notes.push_back(fmt::format("{} uses {} of {}'s {}: the figures are for the ports given", what, format_number(r * 100, 4) + "%",
                                  switch_id, rate(s.capacity)));
  }
  s.capacity = product;
}

void run_switch(Context& ctx) {
  std::vector<std::string> notes;
  std::string first = ctx.has("switch") ? ctx.text("switch") : std::string();
  std::string second;
  if (ctx.has("compare")) {
    const auto words = split_list(ctx.text("compare"), ",\n");
    if (words.empty() || words.size() > 2 || (words.size() == 2 && !first.empty()))
      throw UserError{{"--compare: expected one switch id (with --switch) or two (A B)", "e.g. --switch tomahawk-5 --compare tomahawk-6"}};
    if (words.size() == 2) {
      first = words[0];
      second = words[1];
    } else {
      second = words[0];
    }
  }
  SwitchSpec s;
  if (!first.empty()) s = read_switch(ctx, find_entry(first, {"network"}, "--switch"), notes);
  if (ctx.has("port_speed")) s.port_speed = ctx.get<BytesPerSecond>("port_speed");
  if (ctx.has("serdes_rate")) s.serdes_rate = ctx.get<BytesPerSecond>("serdes_rate");
  if (ctx.has("power")) s.power.set(ctx.get<Watts>("power"));
  if (ctx.has("capacity")) s.capacity = ctx.get<BytesPerSecond>("capacity");
  if (ctx.has("ports")) apply_ports(ctx, s, first, notes);
  if (s.capacity.value() <= 0)
    throw UserError{{"network switch: no capacity", "give --switch ID, --capacity 51.2Tb/s, or --ports 128 --port-speed 400Gb/s"}};

  ctx.set("capacity", s.capacity);
  ctx.set("capacity_both", s.capacity * 2.0);
  if (ctx.has("ports")) {
    ctx.set_number("ports", static_cast<double>(ctx.integer("ports")));
  } else if (s.port_speed.value() > 0) {
    const double ports = ratio(s.capacity, s.port_speed);
    ctx.set_number("ports", std::floor(ports + 1e-9));
    if (std::fabs(ports - std::round(ports)) > 1e-6)
      notes.push_back(fmt::format("capacity / port speed = {}: a fraction of a port is left unused", format_number(ports, 6)));
  }
  if (s.serdes_rate.value() > 0) {
    ctx.set_number("serdes_lanes", ratio(s.capacity, s.serdes_rate));
    if (s.port_speed.value() > 0) ctx.set_number("lanes_per_port", ratio(s.port_speed, s.serdes_rate));
  }
  if (s.power) {
    ctx.set("power", *s.power);
    ctx.set("energy_per_bit", energy_per_bit(*s.power, s.capacity));
  }
  if (!second.empty()) {
    const SwitchSpec o = read_switch(ctx, find_entry(second, {"network"}, "--compare"), notes);
    ctx.set("second_capacity", o.capacity);
    ctx.set_number("ratio", ratio(o.capacity, s.capacity));
    notes.push_back(fmt::format("ratio = {} / {} = {}", o.id, s.id, format_number(ratio(o.capacity, s.capacity), 4)));
  }
  notes.push_back("capacity = sum of port rates in one direction; vendors often quote it doubled (both directions)");
  for (auto& n : notes) ctx.note(std::move(n));
}

}  // namespace

Calculator make_switch_calculator() {
  Calculator c;
  c.name = "switch";
  c.summary = "switch ASIC capacity, ports at a port speed, SerDes lanes, watts per bit; --compare two switches";
  c.description =
      "capacity = ports x port speed, one direction (Tomahawk 5: 64 x 800G = 128 x 400G = 51.2 Tb/s); ports at a speed = "
      "capacity / speed (breakout); SerDes lanes = capacity / lane rate (Tomahawk 6: 102.4 Tb/s / 200G = 512); energy per "
      "bit = power / capacity. ratio = compared switch / first switch.";
  c.inputs = {
      {.name = "switch", .kind = InputKind::text, .help = "switch catalog id", .example = "tomahawk-5", .optional = true},
      {.name = "compare", .kind = InputKind::text, .help = "switch to compare with, or two switches A B (ratio = B / A)",
       .example = "tomahawk-6", .optional = true},
      {.name = "capacity", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "switching capacity, one direction",
       .example = "51.2Tb/s", .optional = true},
      {.name = "ports", .kind = InputKind::integer, .help = "ports (with --port-speed gives the capacity)", .example = "128", .optional = true},
      {.name = "port_speed", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "port speed to count ports at (breakout)",
       .example = "400Gb/s", .optional = true},
      {.name = "serdes_rate", .kind = InputKind::quantity, .dim = dims::data_rate, .help = "electrical lane rate", .example = "200Gb/s",
       .optional = true},
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of the switch system without optics (default: catalog system_power)", .example = "900W",
       .optional = true},
  };
  c.outputs = {
      {"capacity", dims::data_rate, "sum of port rates, one direction", "b/s"},
      {"capacity_both", dims::data_rate, "both directions added (the doubled vendor figure)", "b/s"},
      {"ports", dims::none, "ports at --port-speed (or the catalog port speed)"},
      {"serdes_lanes", dims::none, "electrical lanes = capacity / lane rate"},
      {"lanes_per_port", dims::none, "lanes per port at that port speed"},
      {"power", dims::power, "switch system power (without optics) used for energy per bit"},
      {"energy_per_bit", dims::energy_per_bit, "power / capacity"},
      {"second_capacity", dims::data_rate, "capacity of the compared switch, one direction", "b/s"},
      {"ratio", dims::none, "compared switch / first switch capacity"},
  };
  c.run = run_switch;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc::net
