// `cooling loop`: solves a CDU loop with racks in parallel on supply and return headers, and shows how
// the flow splits between them and how warm each rack's return runs.
#include <algorithm>
#include <fmt/format.h>

#include "plugins/cooling/coolant_input.hpp"
#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/loop_solver.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

// "130kW,130kW,90kW" or "7x130kW,90kW".
std::vector<Watts> parse_racks(const std::string& text) {
  std::vector<Watts> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    item.erase(0, item.find_first_not_of(' '));
    if (item.empty()) continue;
    long count = 1;
    if (const auto x = item.find('x'); x != std::string::npos && x > 0 && item.find_first_not_of("0123456789") == x) {
      count = std::stol(item.substr(0, x));
      item = item.substr(x + 1);
    }
    auto q = parse_input(item, {dims::power, false}, "--racks");
    if (!q) throw UserError{q.error()};
    if (q->value <= 0) throw UserError{{"--racks: each rack's heat must be above zero", "e.g. --racks 7x130kW,90kW"}};
    for (long i = 0; i < count; ++i) out.push_back(from_base<Watts>(q->value));
  }
  if (out.empty()) throw UserError{{"--racks is empty", "e.g. --racks 8x130kW"}};
  if (out.size() > 64) throw UserError{{"--racks: at most 64 racks on one loop", "split the hall into CDU loops"}};
  return out;
}

std::vector<double> parse_scales(const std::string& text, std::size_t n) {
  std::vector<double> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? text.size() + 1 : comma + 1;
    auto q = parse_input(item, {dims::none, false}, "--plate-scale");
    if (!q) throw UserError{q.error()};
    if (q->value <= 0) throw UserError{{"--plate-scale: factors must be above zero", "1 is the nominal curve, 2 twice its drop"}};
    out.push_back(q->value);
  }
  if (out.size() != n)
    throw UserError{{fmt::format("--plate-scale has {} factors for {} racks", out.size(), n), "give one factor per rack"}};
  return out;
}

void run_loop(Context& ctx) {
  const Coolant c = coolant_from(ctx);
  const auto heats = parse_racks(ctx.text("racks"));
  const std::vector<double> scale = ctx.has("plate_scale") ? parse_scales(ctx.text("plate_scale"), heats.size())
                                                            : std::vector<double>(heats.size(), 1.0);
  Watts total_heat = from_base<Watts>(0.0);
  for (const auto& h : heats) total_heat += h;
  LoopSpec spec;
  spec.supply = ctx.get<TemperaturePoint>("supply");
  if (ctx.has("flow") == ctx.has("flow_per_heat"))
    throw UserError{{"give the CDU's flow (--flow) or a flow per kW of heat (--flow-per-heat), one of them", "e.g. --flow-per-heat 1.5L/min/kW"}};
  spec.total_flow = ctx.has("flow") ? ctx.get<CubicMetersPerSecond>("flow") : ctx.get<CubicMetersPerSecondPerWatt>("flow_per_heat") * total_heat;
  spec.reverse_return = ctx.flag("reverse_return");
  const Meters rough = ctx.get<Meters>("roughness");
  spec.header = {ctx.get<Meters>("header_length"), ctx.get<Meters>("header_diameter"), rough};
  const Pipe hose{ctx.get<Meters>("hose_length"), ctx.get<Meters>("hose_diameter"), rough};
  const PlateCurve base{ctx.get<Pascals>("plate_dp"), ctx.get<CubicMetersPerSecond>("plate_flow"), Number::from_value(ctx.number("plate_exponent"))};
  for (std::size_t i = 0; i < heats.size(); ++i) {
    PlateCurve pc = base;
    pc.dp_ref = scale[i] * base.dp_ref;
    spec.racks.push_back({fmt::format("rack {}", i + 1), heats[i], pc, hose});
  }
  const LoopSolution s = need(solve_loop(spec, c));
  double qmin = 1e300, qmax = 0.0, rise_max = 0.0;
  Table t{"racks", "Flow split and temperatures", {{"rack"}, {"heat", dims::power, "kW"}, {"flow", dims::volume_flow, "L/min"},
          {"share", dims::none, "%"}, {"pressure_drop", dims::pressure, "kPa"}, {"rise", dims::temperature, "K"}, {"outlet", dims::temperature}}, {}};
  for (std::size_t i = 0; i < s.branches.size(); ++i) {
    const LoopBranch& b = s.branches[i];
    qmin = std::min(qmin, b.flow.value());
    qmax = std::max(qmax, b.flow.value());
    rise_max = std::max(rise_max, b.rise.value());
    Quantity outlet = to_quantity(b.outlet);
    t.rows.push_back({spec.racks[i].name, to_quantity(heats[i]), to_quantity(b.flow), Quantity::number((b.flow / spec.total_flow).value()),
                      to_quantity(b.dp), to_quantity(b.rise), outlet});
  }
  ctx.add_table(std::move(t));
  ctx.set("total_flow", spec.total_flow);
  ctx.set("mixed_return", s.mixed_return);
  ctx.set("loop_pressure_drop", s.loop_dp);
  ctx.set("min_rack_flow", from_base<CubicMetersPerSecond>(qmin));
  ctx.set("max_rack_flow", from_base<CubicMetersPerSecond>(qmax));
  ctx.set_number("flow_spread", qmax / qmin - 1.0);
  ctx.set("max_rise", from_base<Kelvin>(rise_max));
  ctx.set("hydraulic_power", s.loop_dp * spec.total_flow);
  ctx.note(fmt::format("solved in {} temperature iterations and {} Newton steps; node imbalance {} of the flow",
                       s.outer_iterations, s.newton_iterations, ctx.quote_number(s.node_residual)));
  if (spec.header.length.value() <= 0) ctx.note("ideal headers (--header-length 0): racks differ only by their own curves");
  else if (!spec.reverse_return) ctx.note("direct return: the rack nearest the CDU sees the most pressure and takes the most flow");
}

}  // namespace

Calculator cooling_loop_calculator() {
  Calculator c;
  c.name = "loop";
  c.summary = "solve a CDU loop: flow split between racks in parallel, their rises and the loop's drop";
  c.description =
      "Racks in parallel between a supply and a return header, fed by a CDU at a fixed flow. Each rack's liquid path "
      "follows dP = scale x dP_ref (Q / Q_ref)^n plus its hoses; headers and hoses follow Darcy-Weisbach with a "
      "Colebrook friction factor at the local temperature. Node pressures are solved by Newton's method on mass "
      "conservation; each rack's outlet and the mixed return by enthalpy balance on the coolant table; the two are "
      "iterated until the temperatures settle. Direct-return headers favour the racks nearest the CDU; reverse return "
      "evens the paths.";
  c.inputs = {
      {.name = "racks", .kind = InputKind::text, .help = "heat of each rack, nearest the CDU first; NxP repeats", .example = "7x130kW,90kW"},
      {.name = "flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "flow the CDU delivers", .example = "1500L/min",
       .optional = true},
      {.name = "flow_per_heat", .kind = InputKind::quantity, .dim = dims::flow_per_power, .help = "or a flow per kW of total heat",
       .example = "1.5L/min/kW", .optional = true},
      {.name = "plate_dp", .kind = InputKind::quantity, .dim = dims::pressure, .help = "drop across one rack's cold plates at --plate-flow",
       .default_value = "2.3psi", .example = "2.3psi"},
      {.name = "plate_flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "flow of that reference point",
       .default_value = "59L/min", .example = "59L/min"},
      {.name = "plate_exponent", .kind = InputKind::quantity, .dim = dims::none,
       .help = "exponent of the rack curve (default: fitted to a GB300 NVL72 datasheet, 2.3 psi at 59 L/min, 18.4 psi at 177 L/min)",
       .default_value = "1.893", .example = "2"},
      {.name = "plate_scale", .kind = InputKind::text, .help = "per-rack multiplier of the drop (uneven racks)", .example = "1,1,1.5",
       .optional = true},
      {.name = "header_length", .kind = InputKind::quantity, .dim = dims::length, .help = "header length between neighbouring racks (0: ideal)",
       .default_value = "0.6m", .example = "0.6m", .bound = Bound::non_negative},
      {.name = "header_diameter", .kind = InputKind::quantity, .dim = dims::length, .help = "header inside diameter",
       .default_value = "102.26mm", .example = "77.9mm"},
      {.name = "hose_length", .kind = InputKind::quantity, .dim = dims::length, .help = "supply plus return hose length per rack",
       .default_value = "4m", .example = "6m", .bound = Bound::non_negative},
      {.name = "hose_diameter", .kind = InputKind::quantity, .dim = dims::length, .help = "hose inside diameter",
       .default_value = "38mm", .example = "32mm"},
      {.name = "roughness", .kind = InputKind::quantity, .dim = dims::length, .help = "wall roughness of headers and hoses",
       .default_value = "0.045mm", .bound = Bound::non_negative},
      {.name = "reverse_return", .kind = InputKind::flag, .help = "reverse-return headers (equal path length for every rack)"},
      {.name = "supply", .kind = InputKind::quantity, .dim = dims::temperature, .help = "supply temperature",
       .default_value = "30 degC", .example = "25degC", .point = true},
  };
  for (auto& in : coolant_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"total_flow", dims::volume_flow, "CDU flow", "L/min"},
      {"mixed_return", dims::temperature, "temperature of the mixed return at the CDU", "", true},
      {"loop_pressure_drop", dims::pressure, "drop from CDU outlet to inlet", "Pa"},
      {"min_rack_flow", dims::volume_flow, "smallest rack flow", "L/min"},
      {"max_rack_flow", dims::volume_flow, "largest rack flow", "L/min"},
      {"flow_spread", dims::none, "largest / smallest rack flow - 1", "%"},
      {"max_rise", dims::temperature, "largest rise across a rack", "K"},
      {"hydraulic_power", dims::power, "flow x loop drop", "W"},
  };
  c.run = run_loop;
  c.source = __FILE__;
  c.tables = {
      {"racks", "flow split and temperatures per rack"},
  };
  return c;
}

}  // namespace infracalc
