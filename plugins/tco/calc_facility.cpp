// `tco facility`: a site's annual cost of ownership split into depreciation, energy and overheads.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/tco/tco_calculators.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::tco {

namespace {


// IT capex from a total or from its parts; `how` describes which, `bought` what a --purchase price stands for.
Usd it_capex(Context& ctx, std::string& how, PurchaseBasis& bought) {
  bought = fill_purchase(ctx, "capex_per_accelerator");
  const bool parts = ctx.has("accelerators") || ctx.has("servers") || ctx.has("network");
  if (ctx.has("capex") && parts)
    throw UserError{{"give --capex (the IT total) or its parts (--accelerators, --servers, --network), not both",
                     "the parts add up to the total"}};
  if (ctx.has("capex")) {
    how = "IT capex given as a total";
    return ctx.get<Usd>("capex");
  }
  Usd total = from_base<Usd>(0.0);
  std::vector<std::string> items;
  if (ctx.has("accelerators")) {
    if (!ctx.has("capex_per_accelerator")) missing(ctx, "capex_per_accelerator", "price of one accelerator", "$30000", "purchase");
    const double n = static_cast<double>(ctx.integer("accelerators"));
    total += ctx.get<Usd>("capex_per_accelerator") * n;
    items.push_back(fmt::format("{} accelerators x {}", ctx.quote_count(n), ctx.quote(ctx.quantity("capex_per_accelerator"))));
  }
  for (const char* key : {"servers", "network"})
    if (ctx.has(key)) {
      total += ctx.get<Usd>(key);
      items.push_back(fmt::format("{} {}", key, ctx.quote(ctx.quantity(key))));
    }
  if (items.empty() && !ctx.has("facility_capex") && !ctx.has("facility_cost_per_power"))
    missing(ctx, "capex", "IT capex depreciated over --life", "'$30e9'");
  how = items.empty() ? "no IT capex given" : "IT capex from parts: ";
  for (std::size_t i = 0; i < items.size(); ++i) how += (i ? " + " : "") + items[i];
  return total;
}

void run_facility(Context& ctx) {
  std::string how;
  PurchaseBasis bought = PurchaseBasis::none;
  const Usd it = it_capex(ctx, how, bought);
  const Seconds life = ctx.get<Seconds>("life");
  const Seconds facility_life = ctx.get<Seconds>("facility_life");
  const double pue = ctx.number("pue");
  if (pue < 1.0) throw UserError{{fmt::format("--pue must be at least 1, got {}", pue), "PUE = facility energy / IT energy"}};

  Usd building = from_base<Usd>(0.0);
  if (ctx.has("facility_capex") && ctx.has("facility_cost_per_power"))
    throw UserError{{"give --facility-capex or --facility-cost-per-power, not both", "the second is multiplied by --it-power"}};
  if (ctx.has("facility_capex")) building = ctx.get<Usd>("facility_capex");
  if (ctx.has("facility_cost_per_power")) {
    if (!ctx.has("it_power")) missing(ctx, "it_power", "IT power the building is built for", "1GW");
    building = ctx.get<UsdPerWatt>("facility_cost_per_power") * ctx.get<Watts>("it_power");
  }

  // Energy per year: given, or from IT power, PUE and load factor.
  std::optional<Joules> annual_energy;
  if (ctx.has("energy")) annual_energy = ctx.get<Joules>("energy");
  else if (ctx.has("it_power")) annual_energy = energy_over(ctx.get<Watts>("it_power"), pue, ctx.number("load_factor"), year());
  fill_tariff(ctx, "tariff");
  UsdPerHour energy_cost;
  std::optional<UsdPerJoule> tariff;
  if (ctx.has("energy_cost")) {
    if (ctx.has("tariff") && ctx.origin("tariff") == Origin::flag)
      throw UserError{{"give --energy-cost or --tariff, not both", "--energy-cost is the bill; --tariff prices --energy or --it-power"}};
    energy_cost = ctx.get<UsdPerHour>("energy_cost");
    if (annual_energy) tariff = energy_cost * year() / *annual_energy;
  } else {
    if (!ctx.has("tariff")) missing(ctx, "energy_cost", "the yearly energy bill", "'$0.6e9/yr'", "grid");
    if (!annual_energy)
      throw UserError{{"--tariff needs the energy it prices", "give --energy (per year) or --it-power (with --pue, --load-factor)"}};
    tariff = ctx.get<UsdPerJoule>("tariff");
    energy_cost = energy_bill(*annual_energy, *tariff) / year();
  }

  AnnualSplit split{straight_line(it, from_base<Usd>(0.0), life) + straight_line(building, from_base<Usd>(0.0), facility_life),
                    energy_cost, ctx.get<UsdPerHour>("overheads")};
  const UsdPerHour total = split.total();
  ctx.set("it_capex", it);
  ctx.set("facility_capex_total", building);
  ctx.set("depreciation", split.depreciation);
  ctx.set("energy_cost_per_year", split.energy);
  ctx.set("overheads_per_year", split.overheads);
  ctx.set("tco_per_year", total);
  ctx.set_number("depreciation_share", split.depreciation / total);
  ctx.set_number("energy_share", split.energy / total);
  ctx.set_number("overheads_share", split.overheads / total);
  ctx.set_number("opex_share", split.opex_share());
  if (annual_energy) ctx.set("annual_energy", *annual_energy);
  if (tariff) ctx.set("tariff_used", *tariff);

  const auto lives = parse_series(ctx.text("lives"), expectation_of<Seconds>(), "--lives", 0);
  Table by_life{"life", "Sensitivity to the IT depreciation life",
                {{"life", dims::time, "yr"}, money_rate_column("depreciation", "$/yr"), money_rate_column("tco", "$/yr"),
                 {"depreciation_share", dims::none, ""}, {"opex_share", dims::none, ""}},
                {}};
  for (const auto& q : lives) {
    const Seconds l = as<Seconds>(q, "--lives");
    if (l.value() <= 0) throw UserError{{"--lives: every life must be positive", "e.g. 3yr,5yr,7yr"}};
    AnnualSplit s = split;
    s.depreciation = straight_line(it, from_base<Usd>(0.0), l) + straight_line(building, from_base<Usd>(0.0), facility_life);
    by_life.rows.push_back({q, to_quantity(s.depreciation), to_quantity(s.total()), Quantity::number(s.depreciation / s.total()),
                            Quantity::number(s.opex_share())});
  }
  ctx.add_table(std::move(by_life));

  if (annual_energy) {
    const auto tariffs = parse_series(ctx.text("tariffs"), expectation_of<UsdPerJoule>(), "--tariffs",
                                      ctx.count("steps"));
    Table by_tariff{"tariff", "Sensitivity to the electricity tariff",
                    {{"tariff", dims::money_per_energy, "$/MWh"}, money_rate_column("energy_cost", "$/yr"),
                     money_rate_column("tco", "$/yr"), {"energy_share", dims::none, ""}, {"opex_share", dims::none, ""}},
                    {}};
    for (const auto& q : tariffs) {
      AnnualSplit s = split;
      s.energy = energy_bill(*annual_energy, as<UsdPerJoule>(q, "--tariffs")) / year();
      by_tariff.rows.push_back({q, to_quantity(s.energy), to_quantity(s.total()), Quantity::number(s.energy / s.total()),
                                Quantity::number(s.opex_share())});
    }
    ctx.add_table(std::move(by_tariff));
  } else {
    ctx.note("no tariff table: it needs the energy drawn (--energy per year, or --it-power with --pue and --load-factor)");
  }

  if (bought == PurchaseBasis::accelerator && ctx.has("accelerators"))
    ctx.note("the purchase-price entry covers the accelerator alone; give --servers and --network for the rest of the IT bill");
  ctx.note(how + " = " + ctx.quote(it) + ", depreciated straight-line over " + ctx.quote(life, "yr"));
  if (building.value() > 0)
    ctx.note("building and power/cooling plant " + ctx.quote(building) + " depreciated over " +
             ctx.quote(facility_life, "yr"));
  if (annual_energy && ctx.has("energy_cost"))
    ctx.note("the energy bill and the energy drawn imply a tariff of " + ctx.quote(*tariff, "$/MWh"));
  ctx.note("annual TCO = capex / life + energy + overheads; no residual value, financing or taxes (see tco ledger for "
           "discounting); a year is 365.25 d");
}

}  // namespace

Calculator facility_calculator() {
  Calculator c;
  c.name = "facility";
  c.summary = "annual TCO of a site: depreciation vs energy vs overheads, with life and tariff sensitivity";
  c.description =
      "tco_per_year = IT capex / life + facility capex / facility life + energy bill + overheads. IT capex is --capex, "
      "or --accelerators x --capex-per-accelerator + --servers + --network; the building is --facility-capex or "
      "--facility-cost-per-power x --it-power. The energy bill is --energy-cost, or --tariff x energy, where energy is "
      "--energy per year or --it-power x PUE x load factor x 1 yr. Tables vary the IT life (--lives) and the tariff "
      "(--tariffs).";
  c.refs = {purchase_ref("--capex-per-accelerator"), grid_ref()};
  c.inputs = {
      {.name = "capex", .kind = InputKind::quantity, .dim = dims::currency, .help = "IT capex in total (accelerators, servers, network)",
       .example = "$30e9", .optional = true},
      {.name = "accelerators", .kind = InputKind::integer, .help = "accelerators bought", .example = "100000", .optional = true},
      {.name = "capex_per_accelerator", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "price of one accelerator (with --accelerators)", .example = "$30000", .optional = true},
      {.name = "servers", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "servers, hosts and storage, in total", .example = "$5e9", .bound = Bound::non_negative, .optional = true},
      {.name = "network", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "network bill in total (switches, NICs, optics: see the network plugin)", .example = "$2e9",
       .bound = Bound::non_negative, .optional = true},
      {.name = "life", .kind = InputKind::quantity, .dim = dims::time, .help = "depreciation life of the IT capex", .example = "5yr"},
      {.name = "facility_capex", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "building, power and cooling plant in total", .example = "$10e9", .bound = Bound::non_negative, .optional = true},
      {.name = "facility_cost_per_power", .kind = InputKind::quantity, .dim = dims::money_per_power,
       .help = "building cost per MW of IT power (times --it-power)", .example = "$10M/MW", .optional = true},
      {.name = "facility_life", .kind = InputKind::quantity, .dim = dims::time, .help = "depreciation life of the building",
       .default_value = "20yr"},
      {.name = "it_power", .kind = InputKind::quantity, .dim = dims::power, .help = "IT power of the site", .example = "1GW",
       .optional = true},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "facility energy / IT energy", .default_value = "1",
       .example = "1.2"},
      {.name = "load_factor", .kind = InputKind::quantity, .dim = dims::none, .help = "average IT load / --it-power",
       .default_value = "100%", .example = "80%", .bound = Bound::fraction},
      {.name = "energy", .kind = InputKind::quantity, .dim = dims::energy, .help = "energy drawn per year", .example = "8TWh",
       .optional = true},
      {.name = "energy_cost", .kind = InputKind::quantity, .dim = dims::money_rate, .help = "the energy bill per year",
       .example = "$0.6e9/yr", .bound = Bound::non_negative, .optional = true},
      {.name = "tariff", .kind = InputKind::quantity, .dim = dims::money_per_energy, .help = "electricity price delivered",
       .example = "$60/MWh", .optional = true},
      {.name = "overheads", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "other recurring costs per year (staff, maintenance, facility operations, insurance)", .default_value = "$0/yr",
       .example = "$0.5e9/yr", .bound = Bound::non_negative},
      {.name = "lives", .kind = InputKind::text, .help = "IT lives for the sensitivity table (list or LOW..HIGH)",
       .default_value = "3yr,5yr,7yr", .example = "3yr,4yr,5yr,6yr"},
      {.name = "tariffs", .kind = InputKind::text, .help = "tariffs for the sensitivity table (list, or LOW..HIGH with --steps)",
       .default_value = "$30/MWh..$120/MWh", .example = "$40/MWh,$80/MWh"},
      {.name = "steps", .kind = InputKind::integer, .help = "points in a --tariffs range", .default_value = "4", .example = "10", .most = 1'000,
                      .most_why = "a sensitivity table reads well at 4 to 50 points; 1,000 already prints 100 kB"},
  };
  c.outputs = {
      {"it_capex", dims::currency, "IT capex depreciated over --life"},
      {"facility_capex_total", dims::currency, "building capex depreciated over --facility-life"},
      {"depreciation", dims::money_rate, "depreciation per year (IT and building)", "$/yr"},
      {"energy_cost_per_year", dims::money_rate, "energy bill per year", "$/yr"},
      {"overheads_per_year", dims::money_rate, "overheads per year", "$/yr"},
      {"tco_per_year", dims::money_rate, "annual total cost of ownership", "$/yr"},
      {"depreciation_share", dims::none, "depreciation / TCO"},
      {"energy_share", dims::none, "energy / TCO"},
      {"overheads_share", dims::none, "overheads / TCO"},
      {"opex_share", dims::none, "(energy + overheads) / TCO"},
      {"annual_energy", dims::energy, "energy drawn per year (when known)"},
      {"tariff_used", dims::money_per_energy, "tariff given or implied by the bill and the energy", "$/MWh"},
  };
  c.run = run_facility;
  c.source = __FILE__;
  c.tables = {
      {"life", "sensitivity to the IT depreciation life"},
      {"tariff", "sensitivity to the electricity tariff"},
  };
  return c;
}

}  // namespace infracalc::tco
