// `cooling cdu`: how many racks a coolant distribution unit serves, its flow at a flow-per-kW rating,
// the rise that rating implies, and how many units a hall needs.
#include <cmath>
#include <fmt/format.h>

#include "plugins/cooling/coolant_input.hpp"
#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/cooling_math.hpp"
#include "host/words.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

std::string power_text(const Watts& w) { return format_human(to_quantity(w), {}, "kW"); }

void run_cdu(Context& ctx) {
  if (const Entry* e = ctx.ref("cdu")) {
    const std::string type = e->text("type").value_or("");
    if (type != "cdu")
      throw UserError{{"--cdu: " + e->id() + " is " + (type.empty() ? std::string("not typed") : "a " + type + " entry") +
                           ", not a coolant distribution unit",
                       "give a CDU (cdu-coolit-chx1000, cdu-vertiv-coolchip-1350; `infracalc data list --kind facility` lists them) "
                       "or --capacity 1MW"}};
  }
  if (!ctx.has("capacity")) {
    if (const Entry* e = ctx.ref("cdu"))
      throw UserError{{"missing --capacity (heat the CDU moves): " + e->id() + " has no 'capacity'", "give --capacity 1MW"}};
    throw UserError{{"missing --capacity (heat the CDU moves)", "give --capacity 1MW or --cdu ID"}};
  }
  const Watts capacity = ctx.get<Watts>("capacity");
  const Watts rack = ctx.get<Watts>("rack_power");
  const double exact = (capacity / rack).value();
  if (exact < 1.0 - 1e-9)
    throw UserError{{fmt::format("--rack-power {} is more than the CDU's capacity of {}: one CDU cannot serve the rack", power_text(rack),
                                 power_text(capacity)),
                     "choose a larger CDU (--capacity) or split the rack's liquid loop and give the heat per loop as --rack-power"}};
  double per_cdu = std::floor(exact + 1e-9);
  ctx.set_number("racks_per_cdu_exact", exact);
  std::string limit = "heat capacity";
  if (ctx.has("flow_per_heat")) {
    const CubicMetersPerSecondPerWatt per_kw = ctx.get<CubicMetersPerSecondPerWatt>("flow_per_heat");
    const CubicMetersPerSecond rack_flow = per_kw * rack;
    ctx.set("cdu_flow", per_kw * capacity);
    ctx.set("rack_flow", rack_flow);
    // The rise a flow-per-kW rating implies for a rack's heat.
    const Coolant c = coolant_from(ctx);
    const FlowPoint fp = need(rise_for_flow(c, rack, ctx.get<TemperaturePoint>("supply"), rack_flow));
    ctx.set("delta_t", fp.rise);
    if (ctx.has("max_flow")) {
      const CubicMetersPerSecond pump = ctx.get<CubicMetersPerSecond>("max_flow");
      const double by_flow = std::floor((pump / rack_flow).value() + 1e-9);
      if (by_flow < 1.0)
        throw UserError{{fmt::format("one rack needs {} at --flow-per-heat, more than the CDU's --max-flow of {}",
                                     ctx.quote(rack_flow, "L/min"), ctx.quote(pump, "L/min")),
                         "choose a CDU with more pump flow or split the rack's loop"}};
      ctx.set_number("racks_by_flow", by_flow);
      if (by_flow < per_cdu) {
        per_cdu = by_flow;
        limit = "pump flow";
      }
    }
  } else if (ctx.has("max_flow")) {
    throw UserError{{"--max-flow needs --flow-per-heat (the flow each kW of rack heat needs)", "e.g. --flow-per-heat 1.5L/min/kW"}};
  }
  ctx.set_number("racks_per_cdu", per_cdu);
  if (per_cdu != exact)
    ctx.note(fmt::format("racks per CDU rounded down to whole racks ({} fit by {}); the rest of the capacity is headroom",
                         ctx.quote_number(exact), limit));
  if (ctx.has("racks")) {
    const double racks = static_cast<double>(ctx.integer("racks"));
    const double spares = static_cast<double>(ctx.integer("spares"));
    const double needed = std::ceil(racks / per_cdu - 1e-9);
    ctx.set_number("cdus_needed", needed + spares);
    ctx.note(fmt::format("{} for {}, rounded up{}", plural(needed, "CDU"), plural(racks, "rack"),
                         spares > 0 ? fmt::format(", plus {} (N+{})", plural(spares, "spare"), ctx.quote_count(spares)) : std::string()));
  }
}

}  // namespace

Calculator cooling_cdu_calculator() {
  Calculator c;
  c.name = "cdu";
  c.summary = "racks per coolant distribution unit, its flow and the rise, CDUs for a hall";
  c.description =
      "racks per CDU = floor(capacity / rack power), and floor(max flow / (rack power x flow per kW)) when the pump "
      "limits first; CDU flow = capacity x flow per kW; the rise is Q / (m c_p) at that flow; CDUs for N racks = "
      "ceil(N / racks per CDU) + spares. Capacity is at the vendor's rated approach temperature.";
  c.refs = {{"cdu", {"facility"}, "CDU from the catalog (cdu-coolit-chx1000, cdu-vertiv-coolchip-1350): sets capacity and flow"}};
  c.inputs = {
      {.name = "capacity", .kind = InputKind::quantity, .dim = dims::power, .help = "heat the CDU moves (required: give it or --cdu)",
       .example = "1MW", .catalog = "cdu.capacity", .optional = true},
      {.name = "rack_power", .kind = InputKind::quantity, .dim = dims::power, .help = "heat of one rack into the liquid", .example = "132kW"},
      {.name = "flow_per_heat", .kind = InputKind::quantity, .dim = dims::flow_per_power, .help = "secondary flow per kW of heat",
       .example = "1.5L/min/kW", .catalog = "cdu.flow_per_power", .optional = true},
      {.name = "max_flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "most the CDU's pumps deliver",
       .example = "1500L/min", .catalog = "cdu.flow", .optional = true},
      {.name = "racks", .kind = InputKind::integer, .help = "racks to serve: how many CDUs", .example = "128", .optional = true},
      {.name = "spares", .kind = InputKind::integer, .help = "redundant CDUs on top (N+1: 1)", .default_value = "0", .example = "1",
       .bound = Bound::non_negative},
      {.name = "supply", .kind = InputKind::quantity, .dim = dims::temperature, .help = "secondary supply temperature (for the rise)",
       .default_value = "30 degC", .example = "25degC", .point = true},
  };
  for (auto& in : coolant_inputs()) c.inputs.push_back(in);
  c.outputs = {
      {"racks_per_cdu", dims::none, "whole racks one CDU serves"},
      {"racks_per_cdu_exact", dims::none, "capacity / rack power"},
      {"racks_by_flow", dims::none, "whole racks the CDU's flow serves"},
      {"cdu_flow", dims::volume_flow, "capacity x flow per kW", "L/min"},
      {"rack_flow", dims::volume_flow, "flow one rack needs", "L/min"},
      {"delta_t", dims::temperature, "rise at that flow", "K"},
      {"cdus_needed", dims::none, "CDUs for --racks, spares included"},
  };
  c.run = run_cdu;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
