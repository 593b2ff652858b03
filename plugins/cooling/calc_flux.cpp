// `cooling flux`: heat flux at the die against what air and liquid cold plates can remove, and the
// die temperature through a thermal resistance.
#include <fmt/format.h>

#include "plugins/cooling/coolant.hpp"
#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/ladder.hpp"
#include "host/catalog_input.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

void run_flux(Context& ctx) {
  const Watts p = ctx.get<Watts>("power");
  const SquareMeters a = ctx.get<SquareMeters>("area");
  const WattsPerSquareMeter flux = p / a;
  ctx.set("heat_flux", flux);
  // Limits: flags win, then the ladder's entries for air and cold plates.
  struct Limit {
    const char* key;
    const char* id;
    const char* field;
  };
  for (const Limit l : {Limit{"air_limit", "cooling-air", "heat_flux_limit"}, Limit{"air_power_limit", "cooling-air", "package_power_limit"},
                        Limit{"cold_plate_limit", "cooling-direct-liquid", "heat_flux_limit"}}) {
    if (ctx.has(l.key)) continue;
    if (const Entry* e = Catalog::instance().find(l.id)) {
      std::optional<Quantity> v;
      if (std::string_view(l.field) == "package_power_limit") {
        if (auto w = ctx.catalog<Watts>(*e, l.field)) v = to_quantity(*w);
      } else if (auto q = ctx.catalog<WattsPerSquareMeter>(*e, l.field)) {
        v = to_quantity(*q);
      }
      if (v) record_input(ctx, l.key, *v, Origin::catalog, ctx.quote(*v), e->id(), l.field);
    }
  }
  // Air: a heat sink with a vapor-chamber base on the package's lid. Two limits: the flux it takes with that
  // spreading, and the heat one package's heat sink carries away (the largest package that ships air-cooled).
  std::optional<double> by_flux, by_power;
  if (ctx.has("air_limit")) {
    by_flux = (flux / ctx.get<WattsPerSquareMeter>("air_limit")).value();
    ctx.set_number("times_air_limit", *by_flux);
  }
  if (ctx.has("air_power_limit")) {
    by_power = (p / ctx.get<Watts>("air_power_limit")).value();
    ctx.set_number("share_of_air_power_limit", *by_power);
  }
  if (by_flux || by_power) {
    const bool flux_binds = by_flux && (!by_power || *by_flux >= *by_power);
    const double x = flux_binds ? *by_flux : *by_power;
    const std::string term = flux_binds ? "the flux an air heat sink with a vapor-chamber base takes"
                                        : fmt::format("the largest package that ships air-cooled ({})",
                                                      ctx.quote(ctx.get<Watts>("air_power_limit")));
    ctx.verdict("air", x <= 1.0,
                x <= 1.0 ? fmt::format("air-coolable: {} of {}", ctx.quote_percent(x), term)
                         : fmt::format("{}x {}: needs liquid", ctx.quote_number(x), term));
  }
  if (ctx.has("cold_plate_limit")) {
    const WattsPerSquareMeter cp = ctx.get<WattsPerSquareMeter>("cold_plate_limit");
    const double x = (flux / cp).value();
    ctx.set_number("share_of_cold_plate_limit", x);
    ctx.verdict("cold_plate", x <= 1.0,
                x <= 1.0 ? fmt::format("{} of the cold-plate limit", ctx.quote_percent(x))
                         : fmt::format("{}x the cold-plate limit: two-phase or a larger spreader", ctx.quote_number(x)));
  }
  if (ctx.has("thermal_resistance") != ctx.has("coolant_temp"))
    throw UserError{{"--thermal-resistance and --coolant-temp go together (die temperature = coolant + P x R)",
                     "e.g. --thermal-resistance 0.03K/W --coolant-temp 35degC"}};
  if (ctx.has("thermal_resistance")) {
    const Kelvin rise = p * ctx.get<KelvinPerWatt>("thermal_resistance");
    ctx.set("die_rise", rise);
    ctx.set("die_temperature", shifted(ctx.get<TemperaturePoint>("coolant_temp"), rise));
  }
  ctx.note("die-average flux against package-level limits: the lid and the cooler's base (a vapor chamber under an air "
           "heat sink, the cold plate's copper) spread the die's heat before it reaches air or liquid; hot spots run several "
           "times higher, so the limits compare orders of magnitude, not exact thresholds");
}

}  // namespace

Calculator cooling_flux_calculator() {
  Calculator c;
  c.name = "flux";
  c.summary = "heat flux at the die against air and cold-plate limits, and the die temperature";
  c.description =
      "flux = P / A (W/cm2), compared with package-level limits: the flux an air heat sink with a vapor-chamber base and a "
      "single-phase cold plate take (heat_flux_limit of cooling-air and cooling-direct-liquid), and for air also the heat "
      "one package's heat sink carries (package_power_limit of cooling-air: the largest package that ships air-cooled); "
      "flags override them. With a junction-to-coolant thermal resistance, die temperature = coolant + P x R.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator from the catalog: sets --power (TDP) and --area (die area)"}};
  c.inputs = {
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "heat the die dissipates", .example = "700W",
       .catalog = "gpu.tdp"},
      {.name = "area", .kind = InputKind::quantity, .dim = dims::area, .help = "die area", .example = "814mm2",
       .catalog = "gpu.die_area"},
      {.name = "air_limit", .kind = InputKind::quantity, .dim = dims::heat_flux,
       .help = "die-average flux an air heat sink with a vapor-chamber base takes (default: catalog)", .example = "100W/cm2", .optional = true},
      {.name = "air_power_limit", .kind = InputKind::quantity, .dim = dims::power,
       .help = "heat one package's air heat sink carries (default: catalog, the largest package that ships air-cooled)",
       .example = "1000W", .optional = true},
      {.name = "cold_plate_limit", .kind = InputKind::quantity, .dim = dims::heat_flux,
       .help = "die-average flux a single-phase cold plate removes (default: catalog)", .example = "150W/cm2", .optional = true},
      {.name = "thermal_resistance", .kind = InputKind::quantity, .dim = dims::temperature / dims::power,
       .help = "junction-to-coolant thermal resistance", .example = "0.03K/W", .optional = true},
      {.name = "coolant_temp", .kind = InputKind::quantity, .dim = dims::temperature, .help = "coolant (or inlet air) temperature",
       .example = "35degC", .optional = true, .point = true},
  };
  c.outputs = {
      {"heat_flux", dims::heat_flux, "die-average heat flux", "W/cm2"},
      {"times_air_limit", dims::none, "flux / air flux limit"},
      {"share_of_air_power_limit", dims::none, "power / air package power limit", "%"},
      {"share_of_cold_plate_limit", dims::none, "flux / cold-plate limit", "%"},
      {"die_rise", dims::temperature, "die temperature above the coolant: P x R", "K"},
      {"die_temperature", dims::temperature, "coolant temperature + P x R", "", true},
  };
  c.run = run_flux;
  c.source = __FILE__;
  c.verdicts = {
      {"air", "the heat flux is within what an air heat sink takes"},
      {"cold_plate", "the heat flux is within the cold-plate limit"},
  };
  return c;
}

}  // namespace infracalc
