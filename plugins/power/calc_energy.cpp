// `power energy`: IT and facility energy over a period, its bill at a tariff, its emissions, and the
// energy per token at a throughput.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/power/power_math.hpp"
#include "plugins/power/power_calculators.hpp"
#include "host/catalog_input.hpp"
#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

void run_energy(Context& ctx) {
  const Watts peak = ctx.get<Watts>("power");
  const Seconds period = ctx.get<Seconds>("period");
  const double pue = ctx.number("pue");
  if (pue < 1.0)
    throw UserError{{fmt::format("--pue: {} is below 1; PUE is total facility energy / IT energy", pue), "e.g. --pue 1.3"}};
  const Number u = Number::from_value(ctx.number("utilisation"));
  fill_idle_share(ctx, "idle_fraction", {"system", "gpu"});
  const Number idle = Number::from_value(ctx.has("idle_fraction") ? ctx.number("idle_fraction") : 0.0);
  if (u.value() < 1.0 && !ctx.has("idle_fraction"))
    ctx.note("no idle draw known (no --system or --gpu with idle_power): average = utilisation x peak, a lower bound; give "
             "--idle-fraction for the idle floor");
  const Watts average = pwr::average_power(peak, u, idle);
  const Joules it = pwr::energy(average, period);
  const Joules facility = it * pue;
  ctx.set("average_power", average);
  ctx.set("it_energy", it);
  ctx.set("facility_energy", facility);
  ctx.set("overhead_energy", facility - it);
  ctx.set("facility_power", average * pue);
  if (ctx.origin("pue") == Origin::default_value)
    ctx.note("no --pue: facility energy equals IT energy (cooling and conversion overhead not included)");

  if (fill_from_ref(ctx, "tariff", "grid", "tariff", {dims::money_per_energy, false})) {
    const UsdPerJoule tariff = ctx.get<UsdPerJoule>("tariff");
    ctx.set("bill", pwr::energy_cost(facility, tariff));
    ctx.set("cost_per_hour", average * pue * tariff);
    ctx.note("the bill is facility energy x tariff: demand charges, capacity payments and taxes outside the tariff are not included");
  } else if (ctx.ref("grid") != nullptr) {
    ctx.note(ctx.ref("grid")->id() + " has no tariff in the catalog: give --tariff for the bill");
  }
  if (fill_from_ref(ctx, "carbon_intensity", "grid", "carbon_intensity", {dims::carbon_intensity, false}))
    ctx.set("emissions", facility * ctx.get<KilogramsPerJoule>("carbon_intensity"));

  if (ctx.has("throughput")) {
    const TokensPerSecond tps = ctx.get<TokensPerSecond>("throughput");
    const JoulesPerToken it_per_token = pwr::energy_per_token(average, tps);
    const JoulesPerToken per_token = it_per_token * pue;
    ctx.set("it_energy_per_token", it_per_token);
    ctx.set("energy_per_token", per_token);
    ctx.set("energy_per_million_tokens", per_token * from_base<Tokens>(1e6));
    ctx.set("tokens", tps * period);
    if (ctx.has("tariff")) ctx.set("energy_cost_per_token", per_token * ctx.get<UsdPerJoule>("tariff"));
    ctx.note("energy per token = average power / throughput (x PUE for the facility figure); the throughput must be "
             "what this power sustains, at the same utilisation");
  }
}

}  // namespace

Calculator power_energy_calculator() {
  Calculator c;
  c.name = "energy";
  c.summary = "IT and facility energy over a period, the bill, emissions and energy per token";
  c.description =
      "E_IT = P_avg x period, with P_avg = P_idle + u (P - P_idle); E_facility = E_IT x PUE; bill = E_facility x "
      "tariff; emissions = E_facility x carbon intensity; energy per token = P_avg / throughput (x PUE). A tariff and "
      "a carbon intensity come from --grid (dated series: the newest value not after --as-of) unless given as flags. "
      "The default period is one year, the project's Julian year of 8766 h (as tco and plan count it).";
  c.refs = {{"grid", {"grid"}, "electricity grid from the catalog: sets --tariff and --carbon-intensity (honours --as-of)"},
            {"gpu", {"accelerator"}, "accelerator from the catalog: sets --power from its TDP, --idle-fraction from its idle_power"},
            {"system", {"system"}, "system from the catalog: sets --power from its rated power, --idle-fraction from its idle_power"}};
  c.inputs = {
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "IT power at full load (or the average if --utilisation is 1)",
       .example = "1kW", .catalog = "gpu.tdp|system.power"},
      {.name = "period", .kind = InputKind::quantity, .dim = dims::time, .help = "how long", .default_value = "1yr", .example = "1h"},
      {.name = "utilisation", .kind = InputKind::quantity, .dim = dims::none, .help = "average load as a share of peak",
       .default_value = "1", .example = "60%", .bound = Bound::fraction0},
      {.name = "idle_fraction", .kind = InputKind::quantity, .dim = dims::none,
       .help = "power at zero load as a share of peak (default: the catalog's idle_power of --system or --gpu, else 0)",
       .example = "30%",
       .bound = Bound::fraction0, .optional = true},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "power usage effectiveness: facility / IT energy",
       .default_value = "1", .example = "1.3"},
      {.name = "tariff", .kind = InputKind::quantity, .dim = dims::money_per_energy, .help = "electricity price",
       .example = "$0.08/kWh", .optional = true},
      {.name = "carbon_intensity", .kind = InputKind::quantity, .dim = dims::carbon_intensity,
       .help = "grid carbon intensity", .example = "400gCO2/kWh", .bound = Bound::non_negative, .optional = true},
      {.name = "throughput", .kind = InputKind::quantity, .dim = dims::token_rate,
       .help = "tokens per second this power sustains, for energy per token", .example = "25000tok/s", .optional = true},
  };
  c.outputs = {
      {"average_power", dims::power, "average IT power", "W"},
      {"facility_power", dims::power, "average facility power: IT x PUE", "W"},
      {"it_energy", dims::energy, "IT energy over the period"},
      {"facility_energy", dims::energy, "facility energy over the period: IT x PUE"},
      {"overhead_energy", dims::energy, "facility minus IT energy (cooling, conversion, lighting)"},
      {"bill", dims::currency, "facility energy x tariff"},
      {"cost_per_hour", dims::money_rate, "energy cost per hour of operation", "$/h"},
      {"emissions", dims::mass, "facility energy x carbon intensity"},
      {"it_energy_per_token", dims::energy_per_token, "IT energy per token", "J/tok"},
      {"energy_per_token", dims::energy_per_token, "facility energy per token (IT x PUE)", "J/tok"},
      {"energy_per_million_tokens", dims::energy, "facility energy per million tokens"},
      {"tokens", dims::token, "tokens produced over the period"},
      {"energy_cost_per_token", dims::money_per_token, "energy cost per token", "$/Mtok"},
  };
  c.run = run_energy;
  c.source = __FILE__;
  return c;
}

}  // namespace infracalc
