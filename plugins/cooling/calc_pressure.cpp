// `cooling pressure`: a pressure drop scaled from a datasheet point to another flow, with the exponent
// from a flag, from two measured points, or from Darcy-Weisbach with a Colebrook friction factor; and
// the pumping power.
#include <cmath>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "plugins/cooling/coolant_input.hpp"
#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/hydraulics.hpp"
#include "host/words.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

void run_pressure(Context& ctx) {
  const CubicMetersPerSecond q = ctx.get<CubicMetersPerSecond>("flow");
  const CubicMetersPerSecond q_ref = ctx.get<CubicMetersPerSecond>("reference_flow");
  const Pascals dp_ref = ctx.get<Pascals>("reference_dp");
  const bool by_flag = ctx.has("exponent");
  const bool by_fit = ctx.has("fit_flow") || ctx.has("fit_dp");
  const bool by_pipe = ctx.has("pipe_diameter");
  if (static_cast<int>(by_flag) + static_cast<int>(by_fit) + static_cast<int>(by_pipe) > 1) {
    std::vector<std::string> given;
    if (by_flag) given.emplace_back("--exponent");
    if (by_fit) given.emplace_back("a second point (--fit-flow/--fit-dp)");
    if (by_pipe) given.emplace_back("--pipe-diameter");
    std::string list;
    for (std::size_t i = 0; i < given.size(); ++i) list += (i == 0 ? "" : i + 1 == given.size() ? " and " : ", ") + given[i];
    throw UserError{{"cooling pressure: " + list + " each set how the drop scales; give only one of them",
                     "--exponent N for a known exponent, --fit-flow with --fit-dp to fit it, or --pipe-diameter for Darcy-Weisbach"}};
  }
  if (static_cast<int>(by_flag) + static_cast<int>(by_fit) + static_cast<int>(by_pipe) != 1)
    throw UserError{{"cooling pressure: say how the drop scales with one of --exponent N, a second datasheet point "
                     "(--fit-flow with --fit-dp), or --pipe-diameter (Darcy-Weisbach with Colebrook)",
                     "e.g. --exponent 1.9; turbulent flow gives 1.75 (smooth) to 2 (fully rough)"}};
  Pascals dp = dp_ref;
  Number n = Number::from_value(2.0);
  if (by_flag) {
    n = Number::from_value(ctx.number("exponent"));
    dp = scale_pressure_drop(dp_ref, q_ref, q, n);
  } else if (by_fit) {
    if (!ctx.has("fit_flow") || !ctx.has("fit_dp"))
      throw UserError{{"--fit-flow and --fit-dp go together (a second point of the same curve)", "e.g. --fit-flow 177L/min --fit-dp 18.4psi"}};
    const CubicMetersPerSecond q2 = ctx.get<CubicMetersPerSecond>("fit_flow");
    if (std::fabs((q2 / q_ref).value() - 1.0) < 1e-9)
      throw UserError{{"--fit-flow equals --reference-flow: two points at one flow give no exponent", "use a second flow"}};
    n = exponent_between(dp_ref, q_ref, ctx.get<Pascals>("fit_dp"), q2);
    dp = scale_pressure_drop(dp_ref, q_ref, q, n);
    ctx.note(fmt::format("exponent fitted through the two points: n = ln(dP2/dP1) / ln(Q2/Q1) = {}", ctx.quote_number(n.value())));
  } else {
    // The same pipe at both flows: dP2/dP1 = (Q2/Q1)^2 f(Re2)/f(Re1), fluid properties at --temperature.
    const Coolant c = coolant_from(ctx);
    const CoolantState s = need(c.at(ctx.get<TemperaturePoint>("temperature")));
    const Pipe pipe{from_base<Meters>(1.0), ctx.get<Meters>("pipe_diameter"), ctx.get<Meters>("roughness")};
    const PipeFlow a = pipe_flow(q_ref, pipe, s);
    const PipeFlow b = pipe_flow(q, pipe, s);
    dp = dp_ref * (b.pressure_drop / a.pressure_drop);
    n = std::fabs((q / q_ref).value() - 1.0) < 1e-12 ? local_exponent(q, pipe, s) : exponent_between(a.pressure_drop, q_ref, b.pressure_drop, q);
    ctx.set_number("reynolds_reference", a.reynolds.value());
    ctx.set_number("reynolds", b.reynolds.value());
    const std::string bore = ctx.quote(pipe.diameter);
    ctx.note(fmt::format("Darcy-Weisbach with Colebrook in {} {} pipe: f = {} at Re {}, {} at Re {}", article(bore), bore,
                         ctx.quote_number(a.friction.value()), ctx.quote_count(std::round(a.reynolds.value())),
                         ctx.quote_number(b.friction.value()), ctx.quote_count(std::round(b.reynolds.value()))));
  }
  ctx.set("pressure_drop", dp);
  ctx.set_number("flow_ratio", (q / q_ref).value());
  ctx.set_number("dp_ratio", (dp / dp_ref).value());
  ctx.set_number("exponent", n.value());
  ctx.set("reference_hydraulic_power", hydraulic_power(q_ref, dp_ref));
  const Watts hyd = hydraulic_power(q, dp);
  ctx.set("hydraulic_power", hyd);
  if (ctx.has("pump_efficiency")) ctx.set("pump_power", hyd / ctx.number("pump_efficiency"));
  ctx.note("hydraulic power = Q x dP: pumping power rises as Q^(n+1), so tripling the flow costs about 3^(n+1) times the power");
}

}  // namespace

Calculator cooling_pressure_calculator() {
  Calculator c;
  c.name = "pressure";
  c.summary = "pressure drop scaled from a datasheet point to another flow, and pumping power";
  c.description =
      "dP = dP_ref (Q / Q_ref)^n. The exponent comes from --exponent, from a second datasheet point "
      "(n = ln(dP2/dP1) / ln(Q2/Q1)), or from Darcy-Weisbach with a Colebrook friction factor in a pipe of "
      "--pipe-diameter (dP2/dP1 = (Q2/Q1)^2 f(Re2)/f(Re1)): 1 when laminar, about 1.75-1.9 in smooth turbulent "
      "flow, 2 when fully rough. Hydraulic power = Q dP; electric power divides by the pump efficiency.";
  c.inputs = {
      {.name = "flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "flow at which the drop is wanted", .example = "177L/min"},
      {.name = "reference_flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "flow of the known point", .example = "59L/min"},
      {.name = "reference_dp", .kind = InputKind::quantity, .dim = dims::pressure, .help = "pressure drop at the known point",
       .example = "2.3psi"},
      {.name = "exponent", .kind = InputKind::quantity, .dim = dims::none, .help = "exponent n of dP ~ Q^n", .example = "1.9",
       .optional = true},
      {.name = "fit_flow", .kind = InputKind::quantity, .dim = dims::volume_flow, .help = "flow of a second known point (fits n)",
       .example = "177L/min", .optional = true},
      {.name = "fit_dp", .kind = InputKind::quantity, .dim = dims::pressure, .help = "pressure drop at the second point",
       .example = "18.4psi", .optional = true},
      {.name = "pipe_diameter", .kind = InputKind::quantity, .dim = dims::length,
       .help = "inside diameter of the pipe or channel (Colebrook exponent)", .example = "26.6mm", .optional = true},
      {.name = "roughness", .kind = InputKind::quantity, .dim = dims::length, .help = "wall roughness (Colebrook)",
       .default_value = "0.045mm", .example = "0.0015mm", .bound = Bound::non_negative},
      {.name = "temperature", .kind = InputKind::quantity, .dim = dims::temperature, .help = "coolant temperature (Colebrook)",
       .default_value = "30 degC", .example = "25degC", .point = true},
  };
  for (auto& in : coolant_inputs()) c.inputs.push_back(in);
  c.inputs.push_back({.name = "pump_efficiency", .kind = InputKind::quantity, .dim = dims::none,
                      .help = "pump wire-to-water efficiency", .example = "70%", .bound = Bound::fraction, .optional = true});
  c.outputs = {
      {"pressure_drop", dims::pressure, "drop at --flow", "Pa"},
      {"flow_ratio", dims::none, "--flow / --reference-flow"},
      {"dp_ratio", dims::none, "drop at --flow / drop at the reference"},
      {"exponent", dims::none, "exponent n used (or fitted)"},
      {"reynolds_reference", dims::none, "Reynolds number at the reference flow (Colebrook)"},
      {"reynolds", dims::none, "Reynolds number at --flow (Colebrook)"},
      {"reference_hydraulic_power", dims::power, "Q x dP at the reference point", "W"},
      {"hydraulic_power", dims::power, "Q x dP at --flow", "W"},
      {"pump_power", dims::power, "hydraulic power / pump efficiency", "W"},
  };
  c.run = run_pressure;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
