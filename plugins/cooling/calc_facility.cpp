// `cooling facility`: total power and energy at a PUE, site water from WUE, carbon from the grid (CUE),
// and energy reuse (ERE, ERF).
#include <fmt/format.h>

#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/facility_math.hpp"
#include "plugins/power/power_math.hpp"
#include "host/catalog_input.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

using namespace cooling;

void run_facility(Context& ctx) {
  if (const Entry* e = ctx.ref("site"); e != nullptr && e->text("type").value_or("") != "efficiency")
    throw UserError{{"--site: " + e->id() + " is " + (e->text("type") ? "a " + *e->text("type") + " entry" : std::string("not typed")) +
                         ", not an efficiency benchmark (PUE and WUE series)",
                     "give an efficiency-* entry (`infracalc data list --kind facility` lists them), e.g. efficiency-industry-average"}};
  const Watts it = ctx.get<Watts>("it_power");
  const Seconds period = ctx.get<Seconds>("period");
  if (!fill_from_ref(ctx, "pue", "site", "pue", {dims::none, false}))
    throw UserError{{"missing --pue (facility energy / IT energy)", "give --pue 1.3, or --site efficiency-industry-average for the industry average"}};
  const Number pue = Number::from_value(ctx.number("pue"));
  if (pue.value() < 1.0) throw UserError{{fmt::format("--pue: {} is below 1", pue.value()), "PUE is facility / IT energy, at least 1"}};
  const Watts total = facility_power(it, pue);
  const Joules e_it = pwr::energy(it, period);
  const Joules e_total = pwr::energy(total, period);
  ctx.set("facility_power", total);
  ctx.set("overhead_power", total - it);
  ctx.set_number("overhead_share", overhead_share(pue).value());
  ctx.set("it_energy", e_it);
  ctx.set("facility_energy", e_total);

  if (fill_from_ref(ctx, "wue", "site", "wue", {dims::water_intensity, false})) {
    const CubicMeters water = site_water(e_it, ctx.get<CubicMetersPerJoule>("wue"));
    ctx.set("water", water);
    ctx.set("water_gallons", water);
    ctx.note("site water only (WUE is per IT kWh); water used to generate the electricity (source WUE) is often several times larger");
  }
  if (fill_from_ref(ctx, "carbon_intensity", "grid", "carbon_intensity", {dims::carbon_intensity, false})) {
    const KilogramsPerJoule ci = ctx.get<KilogramsPerJoule>("carbon_intensity");
    ctx.set("cue", cue(pue, ci));
    ctx.set("emissions", e_total * ci);
    ctx.note("CUE = PUE x grid carbon intensity: location-based, all electricity from the grid, no on-site generation or certificates");
  } else if (ctx.ref("grid") != nullptr) {
    ctx.note(ctx.ref("grid")->id() + " has no carbon intensity in the catalog: give --carbon-intensity for CUE");
  }
  if (ctx.has("heat_reuse")) {
    const Joules reused = ctx.get<Joules>("heat_reuse");
    const Number x = ere(e_it, e_total, reused);
    ctx.set_number("ere", x.value());
    ctx.set_number("erf", erf(e_total, reused).value());
    ctx.set("reuse_power", reused / period);
    ctx.verdict("ere_below_1", x.value() < 1.0,
                x.value() < 1.0 ? "the site exports more heat than its whole overhead uses"
                                : fmt::format("exporting {} more would bring ERE below 1",
                                              ctx.quote(e_total - e_it - reused)));
    if (reused > e_total) throw UserError{{"--heat-reuse exceeds the facility's energy over --period", "check the period and the reuse figure"}};
  }
}

}  // namespace

Calculator cooling_facility_calculator() {
  Calculator c;
  c.name = "facility";
  c.summary = "facility power and energy at a PUE, water from WUE, CUE and emissions, ERE with heat reuse";
  c.description =
      "P_total = P_IT x PUE; overhead share = (PUE - 1) / PUE; water = E_IT x WUE (site WUE is per IT kWh, ISO/IEC "
      "30134-9); CUE = PUE x grid carbon intensity (ISO/IEC 30134-8); ERE = (E_total - E_reused) / E_IT (The Green "
      "Grid) and ERF = E_reused / E_total (ISO/IEC 30134-6). PUE and WUE come from --site (a dated benchmark series), "
      "carbon intensity from --grid, each honouring --as-of, unless given as flags. The default period is one year, the project's Julian year of 8766 h.";
  c.refs = {{"grid", {"grid"}, "electricity grid from the catalog: sets --carbon-intensity (honours --as-of)"},
            {"site", {"facility"}, "efficiency benchmark from the catalog (efficiency-industry-average, ...): sets --pue, --wue"}};
  c.inputs = {
      {.name = "it_power", .kind = InputKind::quantity, .dim = dims::power, .help = "average IT power", .example = "500MW"},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "power usage effectiveness", .example = "1.3", .optional = true},
      {.name = "wue", .kind = InputKind::quantity, .dim = dims::water_intensity, .help = "site water per IT energy",
       .example = "1.8L/kWh", .bound = Bound::non_negative, .optional = true},
      {.name = "carbon_intensity", .kind = InputKind::quantity, .dim = dims::carbon_intensity, .help = "grid carbon intensity",
       .example = "400gCO2/kWh", .bound = Bound::non_negative, .optional = true},
      {.name = "heat_reuse", .kind = InputKind::quantity, .dim = dims::energy, .help = "heat exported for reuse over the period",
       .example = "100000MWh", .bound = Bound::non_negative, .optional = true},
      {.name = "period", .kind = InputKind::quantity, .dim = dims::time, .help = "period of the energy figures",
       .default_value = "1yr", .example = "8760h"},
  };
  c.outputs = {
      {"facility_power", dims::power, "IT x PUE", "W"},
      {"overhead_power", dims::power, "facility minus IT power", "W"},
      {"overhead_share", dims::none, "(PUE - 1) / PUE: overhead as a share of the facility's energy", "%"},
      {"it_energy", dims::energy, "IT energy over the period"},
      {"facility_energy", dims::energy, "facility energy over the period"},
      {"water", dims::volume, "site water over the period", "L"},
      {"water_gallons", dims::volume, "the same water in US gallons", "gal"},
      {"cue", dims::carbon_intensity, "carbon usage effectiveness: CO2 per IT kWh", "g/kWh"},
      {"emissions", dims::mass, "facility energy x carbon intensity"},
      {"ere", dims::none, "energy reuse effectiveness"},
      {"erf", dims::none, "energy reuse factor: reused / facility energy", "%"},
      {"reuse_power", dims::power, "average heat export", "W"},
  };
  c.run = run_facility;
  c.source = __FILE__;
  c.verdicts = {
      {"ere_below_1", "ERE below 1: the site exports more heat than its overhead uses"},
  };
  return c;
}

}  // namespace infracalc
