// cooling climate: a site's typical year (data/climate/) through a cooling plant: hours on the economiser
// (dry or evaporative) and on chillers, and the PUE and WUE that follow, month by month and for the year.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/cooling/climate.hpp"
#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/coolant.hpp"
#include "units/bridge.hpp"

namespace infracalc::cooling {

namespace {

Plant plant_for(Context& ctx, const std::string& cooling, bool water) {
  Plant p = default_plant(cooling, water, ctx.has("supply") ? ctx.get<TemperaturePoint>("supply") : default_supply(ctx, cooling));
  if (ctx.has("dry_approach")) p.dry_approach = ctx.get<Kelvin>("dry_approach");
  if (ctx.has("wet_approach")) p.wet_approach = ctx.get<Kelvin>("wet_approach");
  if (ctx.has("chiller_cop")) p.chiller_cop = Number::from_value(ctx.number("chiller_cop"));
  if (ctx.has("fans_pumps")) p.fans_pumps = Number::from_value(ctx.number("fans_pumps"));
  p.electrical = Number::from_value(ctx.number("electrical"));
  p.cycles = Number::from_value(ctx.number("cycles"));
  return p;
}

Quantity litres_per_kwh(CubicMetersPerJoule w) { return to_quantity(w); }

void run_climate(Context& ctx) {
  const Entry* site = ctx.ref("site");
  if (site == nullptr) throw UserError{{"missing --site (a climate entry)", "e.g. --site ashburn-va; `infracalc data list --kind climate` lists them"}};
  auto read = read_climate(*site);
  if (!read) throw UserError{read.error()};
  const Climate& c = *read;
  if (auto f = site->field("month")) ctx.cite(f->provenance);
  const std::string cooling = ctx.text("cooling");
  const bool water = ctx.text("water") == "yes";
  const Plant p = plant_for(ctx, cooling, water);
  const PlantMonth y = plant_year(c, p);

  ctx.set("supply", p.supply);
  ctx.set("dry_hours", y.dry);
  ctx.set("evaporative_hours", y.evaporative);
  ctx.set("economiser_hours", y.dry + y.evaporative);
  ctx.set("mechanical_hours", y.mechanical);
  ctx.set("pue", y.pue);
  ctx.set("wue", y.wue);
  if (ctx.has("it_power")) {
    const Watts it = ctx.get<Watts>("it_power");
    const Seconds year = from_base<Seconds>(8760.0 * 3600.0);
    ctx.set("it_energy", it * year);
    ctx.set("facility_energy", it * year * y.pue.value());
    ctx.set("water", it * year * y.wue);
  }

  Table months{"months", fmt::format("{} through {} cooling, {}", site->id(), cooling, water ? "evaporative allowed" : "dry (no water)"),
               {{"month", dims::none, {}}, {"dry_bulb_mean", dims::temperature, "degC"}, {"wet_bulb_mean", dims::temperature, "degC"},
                {"dry_hours", dims::time, "h"}, {"evaporative_hours", dims::time, "h"}, {"mechanical_hours", dims::time, "h"},
                {"pue", dims::none, {}}, {"wue", dims::water_intensity, "L/kWh"}},
               {}};
  for (const auto& m : c.months) {
    const PlantMonth r = plant_month(c, m, p);
    months.rows.push_back({Quantity::number(m.month), to_quantity(m.dry_bulb_mean), to_quantity(m.wet_bulb_mean), to_quantity(r.dry),
                           to_quantity(r.evaporative), to_quantity(r.mechanical), Quantity::number(r.pue.value()), litres_per_kwh(r.wue)});
  }
  ctx.add_table(std::move(months));

  Table plants{"technologies", "the same site through each plant (given --supply, approaches and shares apply to every row)",
               {{"cooling", {}, {}}, {"water", {}, {}}, {"supply", dims::temperature, "degC"}, {"economiser_hours", dims::time, "h"},
                {"mechanical_hours", dims::time, "h"}, {"pue", dims::none, {}}, {"wue", dims::water_intensity, "L/kWh"}},
               {}};
  for (const char* tech : {"air", "direct-liquid"}) {
    for (bool w : {true, false}) {
      const Plant q = plant_for(ctx, tech, w);
      const PlantMonth r = plant_year(c, q);
      plants.rows.push_back({std::string(tech), std::string(w ? "yes" : "no"), to_quantity(q.supply), to_quantity(r.dry + r.evaporative),
                             to_quantity(r.mechanical), Quantity::number(r.pue.value()), litres_per_kwh(r.wue)});
    }
  }
  ctx.add_table(std::move(plants));

  ctx.note(fmt::format("free cooling below {} dry-bulb (supply {} - {}){}; across the next approach the chiller "
                       "takes a growing share; above it all. Chillers: COP {} at a {} lift, scaled by rated / actual lift "
                       "(at most 3x)",
                       ctx.quote(p.supply - p.dry_approach), ctx.quote(p.supply), ctx.quote(p.dry_approach),
                       water ? fmt::format(", evaporative below {} wet-bulb", ctx.quote(p.supply - p.wet_approach)) : "",
                       ctx.quote_number(p.chiller_cop.value()), ctx.quote(p.rated_lift)));
  ctx.note(fmt::format("PUE = 1 + {} electrical losses + {} fans and pumps + chiller power / IT; estimates for a modern "
                       "site: give --electrical and --fans-pumps for yours",
                       ctx.quote_percent(p.electrical.value()), ctx.quote_percent(p.fans_pumps.value())));
  if (water)
    ctx.note(fmt::format("WUE: the tower evaporates 85% of the heat it rejects (Cooling Technology Institute: evaporation = "
                         "0.00085 x flow x range in degF), at 2.43 MJ/kg, plus blow-down at {} cycles of concentration",
                         ctx.quote_number(p.cycles.value())));
  ctx.note("humidity limits of air-side economisers, part-load fan laws and the heat a liquid-cooled rack still sheds to air are "
           "not modelled; the dry and wet-bulb bins come from one typical year, not from extremes (size plant capacity on design "
           "conditions, not on these)");
}

}  // namespace

}  // namespace infracalc::cooling

namespace infracalc {

Calculator cooling_climate_calculator() {
  Calculator c;
  c.name = "climate";
  c.summary = "a site's typical year through a cooling plant: economiser and chiller hours, PUE and WUE by month and for the year";
  c.description =
      "Hours of a typical meteorological year in 1 K dry- and wet-bulb bins (data/climate/) decide the plant's mode: dry free "
      "cooling while the dry-bulb is an approach below the supply temperature, evaporative free cooling while the wet-bulb is "
      "(when water is allowed), chillers beyond, handing over linearly across one approach. Chiller COP scales with rated / "
      "actual lift from ASHRAE 90.1-2019 minimums. PUE = 1 + electrical + fans and pumps + chiller power / IT; WUE = tower "
      "make-up (85% of the heat evaporated, plus blow-down) per IT energy.";
  c.refs = {{"site", {"climate"}, "site from the catalog (data/climate/: ashburn-va, phoenix-az, dublin-ie, singapore-sg, ...)"}};
  c.inputs = {
      {.name = "cooling", .kind = InputKind::choice,
       .help = "air (24 degC supply air, air-side economiser) or direct-liquid (the catalog's 30 degC facility water, dry "
               "coolers or towers)",
       .default_value = "air", .choices = {"air", "direct-liquid"}},
      {.name = "water", .kind = InputKind::choice, .help = "allow evaporative cooling (towers, evaporative coolers)",
       .default_value = "yes", .choices = {"yes", "no"}},
      {.name = "supply", .kind = InputKind::quantity, .dim = dims::temperature,
       .help = "supply temperature (default: air 24 degC, in ASHRAE's recommended 18-27 degC inlet range; direct-liquid the "
               "catalog's cooling-direct-liquid)",
       .example = "27degC", .optional = true, .point = true},
      {.name = "dry_approach", .kind = InputKind::quantity, .dim = dims::temperature,
       .help = "dry-bulb below supply for dry free cooling (default air 2 K, direct-liquid 8 K: dry cooler and CDU)",
       .example = "5K", .bound = Bound::non_negative, .optional = true},
      {.name = "wet_approach", .kind = InputKind::quantity, .dim = dims::temperature,
       .help = "wet-bulb below supply for evaporative free cooling (default air 3 K, direct-liquid 7 K: tower and heat exchanger)",
       .example = "6K", .bound = Bound::non_negative, .optional = true},
      {.name = "chiller_cop", .kind = InputKind::quantity, .dim = dims::none,
       .help = "chiller COP at its rating (default ASHRAE 90.1-2019: 6.28 water-cooled, 2.96 air-cooled)", .example = "7",
       .optional = true},
      {.name = "fans_pumps", .kind = InputKind::quantity, .dim = dims::none,
       .help = "fans and pumps as a share of IT power (default air 5%, direct-liquid 2%; estimates)", .example = "3%",
       .bound = Bound::fraction0, .optional = true},
      {.name = "electrical", .kind = InputKind::quantity, .dim = dims::none,
       .help = "UPS, transformer and distribution losses and other overhead as a share of IT power (estimate: a double-"
               "conversion UPS at 96-97% plus 1-2% distribution)",
       .default_value = "5%", .example = "3%", .bound = Bound::fraction0},
      {.name = "cycles", .kind = InputKind::quantity, .dim = dims::none,
       .help = "cycles of concentration of tower water (make-up = evaporation x C / (C - 1); typical 3-6)", .default_value = "4",
       .example = "6"},
      {.name = "it_power", .kind = InputKind::quantity, .dim = dims::power, .help = "IT load, for annual energy and water",
       .example = "20MW", .optional = true},
  };
  c.outputs = {
      {"supply", dims::temperature, "supply temperature", "degC", true},
      {"dry_hours", dims::time, "hours a year on dry free cooling", "h"},
      {"evaporative_hours", dims::time, "hours a year on evaporative free cooling", "h"},
      {"economiser_hours", dims::time, "dry + evaporative hours", "h"},
      {"mechanical_hours", dims::time, "chiller load in full-load-equivalent hours", "h"},
      {"pue", dims::none, "annual PUE (hours-weighted)"},
      {"wue", dims::water_intensity, "annual WUE", "L/kWh"},
      {"it_energy", dims::energy, "IT energy over a year", "MWh"},
      {"facility_energy", dims::energy, "facility energy over a year", "MWh"},
      {"water", dims::volume, "water consumed over a year", "m3"},
  };
  c.run = cooling::run_climate;
  c.source = __FILE__;
  c.tables = {
      {"months", "the site month by month through the chosen plant"},
      {"technologies", "the same site through each plant"},
  };
  return c;
}

}  // namespace infracalc
