// `cooling flow`: coolant mass and volume flow for a heat load and a temperature rise, or the rise a
// given flow takes; the pipe that carries it at a design velocity and its pressure drop.
#include <cmath>
#include <fmt/format.h>

#include "plugins/cooling/coolant_input.hpp"
#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/cooling_math.hpp"
#include "plugins/cooling/hydraulics.hpp"
#include "plugins/cooling/pipe_catalog.hpp"
#include "host/catalog_input.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

constexpr std::string_view kPipes = "pipe-steel-schedule-40";

void run_pipe(Context& ctx, const Coolant& c, const FlowPoint& fp) {
  const bool by_velocity = ctx.has("velocity");
  const bool by_diameter = ctx.has("pipe_diameter");
  if (!by_velocity && !by_diameter) {
    if (ctx.has("pipe_length")) throw UserError{{"--pipe-length needs --pipe-diameter or --velocity", "e.g. --velocity 2m/s --pipe-length 30m"}};
    return;
  }
  if (by_velocity && by_diameter)
    throw UserError{{"give --velocity (to size the pipe) or --pipe-diameter (to check one), not both", ""}};
  const auto series = read_pipe_series(ctx, kPipes);
  if (!ctx.has("roughness")) {
    if (series && series->roughness)
      record_input(ctx, "roughness", to_quantity(*series->roughness), Origin::catalog, ctx.quote(*series->roughness),
                   series->id);
    else
      throw UserError{{"missing --roughness (wall roughness of the pipe)", "e.g. --roughness 0.045mm (commercial steel)"}};
  }
  Meters d = from_base<Meters>(0.0);
  if (by_velocity) {
    const Meters need = diameter_for_velocity(fp.volume_flow, ctx.get<MetersPerSecond>("velocity"));
    ctx.set("required_diameter", need);
    d = need;
    if (series) {
      if (const PipeSize* s = smallest_at_least(*series, need)) {
        d = s->inner_diameter;
        ctx.set("pipe_inner_diameter", d);
        ctx.note(fmt::format("smallest {} size at or below the design velocity: NPS {} (inside {})", series->id, s->nominal,
                             ctx.quote(d)));
      } else {
        ctx.note(fmt::format("larger than every {} size: the figures below use the required diameter", series->id));
      }
    }
  } else {
    d = ctx.get<Meters>("pipe_diameter");
  }
  const Pipe pipe{ctx.has("pipe_length") ? ctx.get<Meters>("pipe_length") : from_base<Meters>(1.0), d, ctx.get<Meters>("roughness")};
  // The supply pipe carries the coolant at the supply temperature.
  const PipeFlow pf = pipe_flow(fp.volume_flow, pipe, fp.at_supply);
  ctx.set("velocity_in_pipe", pf.velocity);
  ctx.set_number("reynolds", pf.reynolds.value());
  ctx.set_number("friction_factor", pf.friction.value());
  ctx.set("pressure_gradient", pf.pressure_drop / pipe.length);
  ctx.set_number("pressure_exponent", local_exponent(fp.volume_flow, pipe, fp.at_supply).value());
  if (pf.reynolds.value() < 2300) ctx.note("laminar flow (Re < 2300): the drop rises in proportion to flow");
  else if (pf.reynolds.value() < 4000) ctx.note("transitional flow (2300 < Re < 4000): Colebrook is used, but the real drop is unstable here");
  if (ctx.has("pipe_length")) {
    ctx.set("pipe_pressure_drop", pf.pressure_drop);
    const Watts hyd = hydraulic_power(fp.volume_flow, pf.pressure_drop);
    ctx.set("hydraulic_power", hyd);
    if (ctx.has("pump_efficiency")) ctx.set("pump_power", hyd / ctx.number("pump_efficiency"));
    ctx.note("straight pipe only: add fittings, valves, the CDU and the cold plates (see `cooling pressure`)");
  }
  (void)c;
}

void run_flow(Context& ctx) {
  const Coolant c = coolant_from(ctx);
  const Watts heat = ctx.get<Watts>("heat");
  const TemperaturePoint supply = ctx.get<TemperaturePoint>("supply");
  const int given = static_cast<int>(ctx.has("delta_t")) + static_cast<int>(ctx.has("flow")) + static_cast<int>(ctx.has("return"));
  if (given != 1)
    throw UserError{{given == 0 ? "cooling flow: give the rise (--delta-t), the return temperature (--return) or the flow (--flow)"
                                : "cooling flow: give only one of --delta-t, --return and --flow",
                     "e.g. --heat 130kW --delta-t 10K, or --heat 130kW --flow 59L/min"}};
  FlowPoint fp{};
  if (ctx.has("flow")) {
    fp = need(rise_for_flow(c, heat, supply, ctx.get<CubicMetersPerSecond>("flow")));
  } else {
    Kelvin rise = from_base<Kelvin>(0.0);
    if (ctx.has("return")) {
      rise = difference(ctx.get<TemperaturePoint>("return"), supply);
      if (rise.value() <= 0)
        throw UserError{{"--return must be warmer than --supply (the coolant picks up heat)", "e.g. --supply 30degC --return 40degC"}};
    } else {
      rise = ctx.get<Kelvin>("delta_t");
    }
    fp = need(flow_for_rise(c, heat, supply, rise));
  }
  ctx.set("mass_flow", fp.mass_flow);
  ctx.set("volume_flow", fp.volume_flow);
  ctx.set("volume_flow_gpm", fp.volume_flow);
  ctx.set("delta_t", fp.rise);
  ctx.set("supply_temperature", fp.supply);
  ctx.set("return_temperature", fp.outlet);
  ctx.set("density", fp.at_supply.density);
  ctx.set("specific_heat", fp.at_mean.specific_heat);
  ctx.set("flow_per_heat", fp.volume_flow / heat);
  ctx.note(fmt::format("{}: c_p {} at the mean temperature {}, density {} at the supply (where the flow is metered)",
                       c.name(), ctx.quote(fp.at_mean.specific_heat), ctx.quote(shifted(fp.supply, 0.5 * fp.rise)),
                       ctx.quote(fp.at_supply.density)));
  if (ctx.has("flow") && fp.iterations > 1)
    ctx.note(fmt::format("the rise was solved with the mean temperature iterated ({} iterations)", fp.iterations));
  if (ctx.has("latent_heat")) {
    // Pumped two-phase: the liquid boils off up to the exit quality x, so each kilogram carries x h_fg
    // instead of c_p dT (the sensible heat before boiling is neglected).
    const JoulesPerKilogram per_kg = ctx.number("exit_quality") * ctx.get<JoulesPerKilogram>("latent_heat");
    const KilogramsPerSecond m2 = heat / per_kg;
    ctx.set("two_phase_mass_flow", m2);
    ctx.set_number("two_phase_ratio", (m2 / fp.mass_flow).value());
    ctx.note(fmt::format("two-phase against this single-phase loop: mass flow x {} = c_p dT / (x h_fg); against water the "
                         "saving is modest, against a single-phase dielectric (c_p about 1.1-1.3 kJ/(kg*K)) about tenfold",
                         ctx.quote_number((m2 / fp.mass_flow).value())));
  }
  run_pipe(ctx, c, fp);
}

}  // namespace

Calculator cooling_flow_calculator() {
  Calculator c;
  c.name = "flow";
  c.summary = "coolant flow for a heat load and rise (or the rise for a flow), in L/min and US GPM; pipe size";
  c.description =
      "m = Q / (c_p dT) with c_p at the mean of supply and return and the volume flow at the supply density (where "
      "flow meters sit); for a given flow the rise is solved with the mean temperature iterated. Properties come from "
      "the coolant's table (IAPWS for water, Melinder 2010 for PG25), interpolated linearly. With --velocity the "
      "inside diameter d = sqrt(4 Q / (pi v)) is rounded up to a Schedule 40 size; the drop follows Darcy-Weisbach with "
      "a Colebrook friction factor, and the pressure exponent n = d ln dP / d ln Q tells how the drop scales with flow.";
  c.inputs = {
      {.name = "heat", .kind = InputKind::quantity, .dim = dims::power, .help = "heat the coolant carries away", .example = "130kW"},
      {.name = "delta_t", .kind = InputKind::quantity, .dim = dims::temperature, .help = "temperature rise (a difference, in K)",
       .example = "10K", .optional = true},
      {.name = "flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "volume flow (gives the rise instead)",
       .example = "59L/min", .optional = true},
      {.name = "supply", .kind = InputKind::quantity, .dim = dims::temperature, .help = "supply temperature (a point, in degC)",
       .default_value = "30 degC", .example = "25degC", .point = true},
      {.name = "return", .kind = InputKind::quantity, .dim = dims::temperature, .help = "return temperature (gives the rise)",
       .example = "40degC", .optional = true, .point = true},
  };
  for (auto& in : coolant_inputs()) c.inputs.push_back(in);
  for (auto in : std::vector<Input>{
           {.name = "velocity", .kind = InputKind::quantity, .dim = dims::velocity,
            .help = "design velocity in the pipe: sizes it (typically 1-3 m/s; noise and erosion limit it)", .example = "2m/s",
            .optional = true},
           {.name = "pipe_diameter", .kind = InputKind::quantity, .dim = dims::length, .help = "inside diameter of a given pipe",
            .example = "52.5mm", .optional = true},
           {.name = "pipe_length", .kind = InputKind::quantity, .dim = dims::length, .help = "length of straight pipe for the drop",
            .example = "30m", .optional = true},
           {.name = "roughness", .kind = InputKind::quantity, .dim = dims::length,
            .help = "wall roughness (default: commercial steel from the catalog)", .example = "0.0015mm", .bound = Bound::non_negative,
            .optional = true},
           {.name = "pump_efficiency", .kind = InputKind::quantity, .dim = dims::none, .help = "pump wire-to-water efficiency",
            .example = "70%", .bound = Bound::fraction, .optional = true},
           {.name = "latent_heat", .kind = InputKind::quantity, .dim = dims::specific_energy,
            .help = "latent heat of a two-phase refrigerant, to compare its mass flow", .example = "170kJ/kg", .optional = true},
           {.name = "exit_quality", .kind = InputKind::quantity, .dim = dims::none, .help = "vapour share at the two-phase outlet",
            .default_value = "1", .example = "0.6", .bound = Bound::fraction},
       })
    c.inputs.push_back(in);
  c.outputs = {
      {"mass_flow", dims::mass_flow, "coolant mass flow", "kg/s"},
      {"volume_flow", dims::volume_flow, "volume flow at the supply temperature", "L/min"},
      {"volume_flow_gpm", dims::volume_flow, "the same flow in US gallons per minute", "gal/min"},
      {"delta_t", dims::temperature, "temperature rise", "K"},
      {"supply_temperature", dims::temperature, "supply temperature", "", true},
      {"return_temperature", dims::temperature, "return temperature", "", true},
      {"density", dims::density, "density at the supply temperature"},
      {"specific_heat", dims::specific_heat, "specific heat at the mean temperature"},
      {"flow_per_heat", dims::flow_per_power,
       "flow per unit of heat, shown in L/(min*kW); JSON in (m^3/s)/W, which reduces to the 1/Pa given as its unit", "L/(min*kW)"},
      {"required_diameter", dims::length, "inside diameter for --velocity", "mm"},
      {"pipe_inner_diameter", dims::length, "inside diameter of the Schedule 40 size chosen", "mm"},
      {"velocity_in_pipe", dims::velocity, "mean velocity in the pipe", "m/s"},
      {"reynolds", dims::none, "Reynolds number in the pipe"},
      {"friction_factor", dims::none, "Darcy friction factor (Colebrook)"},
      {"pressure_gradient", dims::pressure / dims::length, "pressure drop per metre of straight pipe", "Pa/m"},
      {"pressure_exponent", dims::none, "local exponent n of dP ~ Q^n in this pipe"},
      {"pipe_pressure_drop", dims::pressure, "drop over --pipe-length", "Pa"},
      {"hydraulic_power", dims::power, "flow x drop", "W"},
      {"pump_power", dims::power, "hydraulic power / pump efficiency", "W"},
      {"two_phase_mass_flow", dims::mass_flow, "refrigerant mass flow of a two-phase loop: Q / (x h_fg)", "kg/s"},
      {"two_phase_ratio", dims::none, "two-phase / single-phase mass flow"},
  };
  c.run = run_flow;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
