// `cooling carbon`: embodied (manufacturing) against operational (electricity) carbon of an
// accelerator or server over its life, on the chosen grid and on every grid in the catalog.
#include <algorithm>
#include <fmt/format.h>

#include "plugins/cooling/cooling_calculators.hpp"
#include "plugins/cooling/facility_math.hpp"
#include "host/catalog_input.hpp"
#include "host/words.hpp"
#include "units/format.hpp"
#include "units/unit_table.hpp"

namespace infracalc {

namespace {

using namespace cooling;

constexpr double kHoursPerYear = kSecondsPerYear / 3600.0;  // the Julian year of the unit parser: 8,766 h

// The embodied carbon of the --gpu: the facility entry "embodied-<id>" (type embodied-carbon) with
// `embodied_per_accelerator` and a breakdown in `shares`.
const Entry* fill_embodied(Context& ctx) {
  if (ctx.has("embodied")) return nullptr;
  const Entry* g = ctx.ref("gpu");
  if (g == nullptr) return nullptr;
  const Entry* e = Catalog::instance().find("embodied-" + g->id());
  if (e == nullptr) return nullptr;
  if (auto per = ctx.catalog<Kilograms>(*e, "embodied_per_accelerator")) {
    record_input(ctx, "embodied", to_quantity(*per), Origin::catalog, ctx.quote(*per), e->id());
    return e;
  }
  return nullptr;
}

std::optional<KilogramsPerJoule> latest_intensity(const Entry& g, const Date& as_of) {
  auto f = g.dated("carbon_intensity", as_of);
  if (!f) return std::nullopt;
  auto q = node_quantity(*f->value, {dims::carbon_intensity, false}, f->location);
  if (!q) return std::nullopt;
  return from_base<KilogramsPerJoule>(q->value);
}

void run_carbon(Context& ctx) {
  const Entry* source = fill_embodied(ctx);
  if (!ctx.has("embodied"))
    throw UserError{{"missing --embodied (manufacturing carbon of the device)",
                     ctx.ref("gpu") != nullptr ? "the catalog has no embodied carbon for " + ctx.ref("gpu")->id() + "; give --embodied 150kgCO2e"
                                              : "give --embodied 150kgCO2e, or --gpu h100-sxm"}};
  const Kilograms embodied = ctx.get<Kilograms>("embodied");
  const Watts p = ctx.get<Watts>("power");
  const Number u = Number::from_value(ctx.number("utilisation"));
  const double years = ctx.number("years");
  const Number pue = Number::from_value(ctx.number("pue"));
  if (pue.value() < 1.0) throw UserError{{"--pue is below 1", "PUE is facility / IT energy, at least 1"}};
  const Seconds life = from_base<Seconds>(years * kHoursPerYear * 3600.0);
  const Joules energy = lifetime_energy(p, u, life, pue);
  ctx.set("embodied_carbon", embodied);
  ctx.set("lifetime_energy", energy);
  const KilogramsPerJoule parity = parity_intensity(embodied, energy);
  ctx.set("parity_intensity", parity);
  ctx.note(fmt::format("lifetime energy = {} x {} x {} x 8766 h x PUE {}", ctx.quote(p), ctx.quote_percent(u.value()),
                       plural(years, "year"), ctx.quote_number(pue.value())));
  if (fill_from_ref(ctx, "carbon_intensity", "grid", "carbon_intensity", {dims::carbon_intensity, false})) {
    const Kilograms op = energy * ctx.get<KilogramsPerJoule>("carbon_intensity");
    ctx.set("operational_carbon", op);
    ctx.set("total_carbon", op + embodied);
    ctx.set_number("operational_to_embodied", (op / embodied).value());
    ctx.set_number("embodied_share", (embodied / (op + embodied)).value());
    ctx.verdict("operational_dominates", op > embodied,
                op > embodied ? fmt::format("operational carbon is {}x embodied", ctx.quote_number((op / embodied).value()))
                              : fmt::format("embodied carbon is {}x operational: a cleaner grid no longer helps much",
                                            ctx.quote_number((embodied / op).value())));
  }
  // Every grid in the catalog, clean to dirty.
  struct Row {
    std::string id;
    KilogramsPerJoule ci;
  };
  std::vector<Row> grids;
  for (const Entry* g : Catalog::instance().all("grid"))
    if (auto ci = latest_intensity(*g, ctx.options().as_of)) grids.push_back({g->id(), *ci});
  std::sort(grids.begin(), grids.end(), [](const Row& a, const Row& b) { return a.ci < b.ci; });
  if (!grids.empty()) {
    Table t{"grids", "Operational against embodied carbon, grid by grid (clean to dirty)",
            {{"grid"}, {"carbon_intensity", dims::carbon_intensity, "g/kWh"}, {"operational", dims::mass}, {"total", dims::mass},
             {"operational_to_embodied", dims::none}},
            {}};
    for (const auto& r : grids) {
      const Kilograms op = energy * r.ci;
      t.rows.push_back({r.id, to_quantity(r.ci), to_quantity(op), to_quantity(op + embodied), Quantity::number((op / embodied).value())});
      if (auto f = Catalog::instance().find(r.id)->dated("carbon_intensity", ctx.options().as_of)) ctx.cite(f->provenance);
    }
    ctx.add_table(std::move(t));
  }
  // The breakdown of the embodied figure, when the catalog has one.
  if (source != nullptr && source->root().find("shares") != nullptr) {
    Table t{"embodied_breakdown", "Embodied carbon by part", {{"part"}, {"share", dims::none, "%"}, {"carbon", dims::mass}}, {}};
    double listed = 0.0;
    for (const auto& [k, v] : source->root().find("shares")->members) {
      auto s = ctx.catalog_quantity(*source, "shares." + k, {dims::none, false});
      if (!s) continue;
      listed += s->value;
      t.rows.push_back({k, *s, to_quantity(s->value * embodied)});
    }
    if (listed < 1.0 - 1e-9) t.rows.push_back({std::string("not itemised"), Quantity::number(1.0 - listed), to_quantity((1.0 - listed) * embodied)});
    ctx.add_table(std::move(t));
  }
  ctx.note("operational carbon is location-based (grid average); market-based accounting with certificates can be lower. "
           "End-of-life and transport are not included in the embodied figure");
}

}  // namespace

Calculator cooling_carbon_calculator() {
  Calculator c;
  c.name = "carbon";
  c.summary = "embodied against operational carbon of an accelerator or server over its life, clean and dirty grids";
  c.description =
      "operational = P x utilisation x years x 8766 h (Julian years) x PUE x grid carbon intensity; parity intensity = embodied / "
      "lifetime energy (below it, manufacturing dominates). Embodied carbon comes from --embodied or the facility "
      "entry embodied-<gpu id> (type embodied-carbon). The grid table uses every grid in the catalog, newest "
      "value not after --as-of.";
  c.refs = {{"gpu", {"accelerator"}, "accelerator from the catalog: sets --power (TDP) and the embodied carbon"},
            {"grid", {"grid"}, "electricity grid from the catalog: sets --carbon-intensity (honours --as-of)"}};
  c.inputs = {
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power, .help = "power of the device at full load", .example = "700W",
       .catalog = "gpu.tdp"},
      {.name = "utilisation", .kind = InputKind::quantity, .dim = dims::none, .help = "average load as a share of full",
       .default_value = "1", .example = "60%", .bound = Bound::fraction0},
      {.name = "years", .kind = InputKind::quantity, .dim = dims::none, .help = "service life in Julian years of 8766 h",
       .default_value = "5", .example = "4"},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "PUE of the facility", .default_value = "1", .example = "1.2"},
      {.name = "embodied", .kind = InputKind::quantity, .dim = dims::mass, .help = "manufacturing (cradle-to-gate) carbon of the device",
       .example = "150kgCO2e", .optional = true},
      {.name = "carbon_intensity", .kind = InputKind::quantity, .dim = dims::carbon_intensity, .help = "grid carbon intensity",
       .example = "30gCO2/kWh", .bound = Bound::non_negative, .optional = true},
  };
  c.outputs = {
      {"embodied_carbon", dims::mass, "manufacturing carbon"},
      {"lifetime_energy", dims::energy, "electricity over the life, PUE included"},
      {"parity_intensity", dims::carbon_intensity, "grid intensity at which operational equals embodied", "g/kWh"},
      {"operational_carbon", dims::mass, "lifetime energy x carbon intensity"},
      {"total_carbon", dims::mass, "embodied + operational"},
      {"operational_to_embodied", dims::none, "operational / embodied"},
      {"embodied_share", dims::none, "embodied / total", "%"},
  };
  c.run = run_carbon;
  c.source = __FILE__;
  c.tables = {
      {"embodied_breakdown", "embodied carbon by part"},
      {"grids", "operational against embodied carbon, grid by grid"},
  };
  c.verdicts = {
      {"operational_dominates", "operational carbon exceeds embodied carbon"},
  };
  return c;
}

}  // namespace infracalc
