// `cooling flux`: heat flux at the die against what air and liquid cold plates can remove, and the
// die temperature through a thermal resistance.
#include <fmt/format.h>

#include "plugins/cooling/coolant.hpp"
#include "plugins/cooling/cooling_plugin.hpp"
#include "plugins/cooling/ladder.hpp"
#include "plugins/core/catalog_input.hpp"
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
  for (auto [key, id] : {std::pair{"air_limit", "cooling-air"}, std::pair{"cold_plate_limit", "cooling-direct-liquid"}}) {
    if (ctx.has(key)) continue;
    if (const Entry* e = Catalog::instance().find(id)) {
      if (auto lim = ctx.catalog<WattsPerSquareMeter>(*e, "heat_flux_limit"))
        record_input(ctx, key, to_quantity(*lim), Origin::catalog, format_human(to_quantity(*lim)), e->id());
    }
  }
  if (ctx.has("air_limit")) {
    const WattsPerSquareMeter air = ctx.get<WattsPerSquareMeter>("air_limit");
    const double x = (flux / air).value();
    ctx.set_number("times_air_limit", x);
    ctx.verdict("air", x <= 1.0,
                x <= 1.0 ? fmt::format("{:.0f}% of what forced air removes", 100 * x)
                         : fmt::format("{:.2f}x what forced air removes: needs liquid at the die", x));
  }
  if (ctx.has("cold_plate_limit")) {
    const WattsPerSquareMeter cp = ctx.get<WattsPerSquareMeter>("cold_plate_limit");
    const double x = (flux / cp).value();
    ctx.set_number("share_of_cold_plate_limit", x);
    ctx.verdict("cold_plate", x <= 1.0,
                x <= 1.0 ? fmt::format("{:.0f}% of the cold-plate limit", 100 * x)
                         : fmt::format("{:.2f}x the cold-plate limit: two-phase or a larger spreader", x));
  }
  if (ctx.has("thermal_resistance") != ctx.has("coolant_temp"))
    throw UserError{{"--thermal-resistance and --coolant-temp go together (die temperature = coolant + P x R)",
                     "e.g. --thermal-resistance 0.03K/W --coolant-temp 35degC"}};
  if (ctx.has("thermal_resistance")) {
    const Kelvin rise = p * ctx.get<KelvinPerWatt>("thermal_resistance");
    ctx.set("die_rise", rise);
    ctx.set("die_temperature", shifted(ctx.get<TemperaturePoint>("coolant_temp"), rise));
  }
  ctx.note("die-average flux: hot spots on the die run several times higher, and the package spreads heat before it "
           "reaches the cooler, so the limits compare orders of magnitude, not exact thresholds");
}

}  // namespace

Calculator cooling_flux_calculator() {
  Calculator c;
  c.name = "flux";
  c.summary = "heat flux at the die against air and cold-plate limits, and the die temperature";
  c.description =
      "flux = P / A (W/cm2), compared with the heat flux forced air and single-phase cold plates remove (the "
      "heat_flux_limit of cooling-air and cooling-direct-liquid in the catalog, or flags). With a junction-to-coolant "
      "thermal resistance, die temperature = coolant + P x R.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator from the catalog: sets --power (TDP) and --area (die area)"}};
  c.inputs = {
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "heat the die dissipates", .example = "700W",
       .catalog = "gpu.tdp"},
      {.name = "area", .kind = InputKind::quantity, .dim = dims::area, .help = "die area", .example = "814mm2",
       .catalog = "gpu.die_area"},
      {.name = "air_limit", .kind = InputKind::quantity, .dim = dims::heat_flux, .help = "flux forced air removes (default: catalog)",
       .example = "50W/cm2", .optional = true},
      {.name = "cold_plate_limit", .kind = InputKind::quantity, .dim = dims::heat_flux,
       .help = "flux a single-phase cold plate removes (default: catalog)", .example = "300W/cm2", .optional = true},
      {.name = "thermal_resistance", .kind = InputKind::quantity, .dim = dims::temperature / dims::power,
       .help = "junction-to-coolant thermal resistance", .example = "0.03K/W", .optional = true},
      {.name = "coolant_temp", .kind = InputKind::quantity, .dim = dims::temperature, .help = "coolant (or inlet air) temperature",
       .example = "35degC", .optional = true, .point = true},
  };
  c.outputs = {
      {"heat_flux", dims::heat_flux, "die-average heat flux", "W/cm2"},
      {"times_air_limit", dims::none, "flux / air limit"},
      {"share_of_cold_plate_limit", dims::none, "flux / cold-plate limit", "%"},
      {"die_rise", dims::temperature, "die temperature above the coolant: P x R", "K"},
      {"die_temperature", dims::temperature, "coolant temperature + P x R", "", true},
  };
  c.run = run_flux;
  return c;
}

}  // namespace infracalc
