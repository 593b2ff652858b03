// `tco siting`: when the power price leads the choice of site (the energy share of the annual cost by tariff).
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "plugins/cooling/climate.hpp"
#include "plugins/tco/tco_calculators.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::tco {

namespace {

// The PUE of a site's climate through its cooling plant (cooling climate's model at its defaults), unless --pue
// was given.
void fill_climate_pue(Context& ctx) {
  const Entry* site = ctx.ref("climate");
  if (site == nullptr) return;
  const std::string cooling = ctx.text("cooling");
  const bool water = ctx.text("water") == "yes";
  if (ctx.origin("pue") == Origin::flag) {
    ctx.note("--pue given: --climate " + site->id() + " is not used for it");
    return;
  }
  auto climate = cooling::read_climate(*site);
  if (!climate) throw UserError{climate.error()};
  if (auto f = site->field("month")) ctx.cite(f->provenance);
  const cooling::PlantMonth year = cooling::plant_year(*climate, cooling::default_plant(cooling, water, cooling::default_supply(ctx, cooling)));
  record_input(ctx, "pue", Quantity::number(year.pue.value()), Origin::derived, ctx.quote_number(year.pue.value()), site->id());
  ctx.set("pue_from_climate", year.pue);
  ctx.note(fmt::format("PUE {} from {}'s typical year through {} cooling{} ({} of economiser hours; `infracalc cooling climate "
                       "--site {} --cooling {} --water {}` shows the months)",
                       ctx.quote_number(year.pue.value()), site->id(), cooling, water ? " with evaporative cooling" : " without water",
                       ctx.quote(year.dry + year.evaporative, "h"), site->id(), cooling, water ? "yes" : "no"));
}

void run_siting(Context& ctx) {
  fill_climate_pue(ctx);
  const UsdPerJoule threshold = ctx.get<UsdPerJoule>("threshold");
  ctx.set("threshold_used", threshold);
  fill_tariff(ctx, "tariff");
  const auto energy = period_energy(ctx, year());
  if (energy) {
    ctx.set("annual_energy", *energy);
    ctx.set("bill_at_threshold", energy_bill(*energy, threshold) / year());
  }
  std::optional<UsdPerHour> other;
  if (ctx.has("other_costs") && ctx.has("capex"))
    throw UserError{{"give --other-costs or --capex with --life, not both", "--other-costs is every non-energy cost per year"}};
  if (ctx.has("other_costs")) other = ctx.get<UsdPerHour>("other_costs");
  if (ctx.has("capex")) {
    if (!ctx.has("life")) missing(ctx, "life", "depreciation life of --capex", "5yr");
    other = straight_line(ctx.get<Usd>("capex"), from_base<Usd>(0.0), ctx.get<Seconds>("life")) + ctx.get<UsdPerHour>("overheads");
  }
  if (ctx.has("tariff")) {
    const UsdPerJoule t = ctx.get<UsdPerJoule>("tariff");
    const bool leads = t > threshold;
    ctx.verdict("power_leads_siting", leads,
                leads ? "above the threshold: the power bill is the first thing to optimise when choosing the site"
                      : "at or below the threshold: latency, fibre, labour, permits and time to power weigh more than the tariff");
    ctx.set_number("tariff_over_threshold", t / threshold);
    if (energy) ctx.set("energy_cost_per_year", energy_bill(*energy, t) / year());
  }
  if (energy && other) {
    const Watts avg = *energy / year();
    ctx.set("other_costs_per_year", *other);
    ctx.set_number("energy_share_at_threshold", energy_share(energy_bill(*energy, threshold) / year(), *other));
    ctx.set("tariff_for_half", tariff_for_energy_share(0.5, *other, avg));
    if (ctx.has("tariff")) ctx.set_number("energy_share", energy_share(energy_bill(*energy, ctx.get<UsdPerJoule>("tariff")) / year(), *other));
    Table t{"tariff", "Energy share of the annual cost by tariff",
            {{"tariff", dims::money_per_energy, "$/MWh"}, money_rate_column("energy_cost", "$/yr"),
             {"energy_share", dims::none, ""}, {"leads", {}, ""}},
            {}};
    for (const auto& q : parse_series(ctx.text("tariffs"), expectation_of<UsdPerJoule>(), "--tariffs",
                                      ctx.count("steps"))) {
      const UsdPerHour bill = energy_bill(*energy, as<UsdPerJoule>(q, "--tariffs")) / year();
      t.rows.push_back({q, to_quantity(bill), Quantity::number(energy_share(bill, *other)),
                        std::string(as<UsdPerJoule>(q, "--tariffs") > threshold ? "power" : "other factors")});
    }
    ctx.add_table(std::move(t));
  } else if (!energy) {
    ctx.note("give --energy (per year) or --power to size the bill and the energy share");
  } else {
    ctx.note("give --other-costs, or --capex with --life (and --overheads), for the energy share of the annual cost");
  }
  ctx.note("the threshold is a rule of thumb for a firm, delivered price (energy plus network and firming): above it the "
           "power bill is the primary siting driver; change it with --threshold");
}

}  // namespace

Calculator siting_calculator() {
  Calculator c;
  c.name = "siting";
  c.summary = "the delivered-price threshold above which power cost leads siting, and a site's energy share of TCO";
  c.description =
      "power leads siting when the firm delivered tariff exceeds --threshold (a rule of thumb, about $80/MWh). For a site: "
      "energy cost per year = energy x tariff, energy share = energy / (energy + other costs), where other costs are "
      "--other-costs or --capex / --life + --overheads; tariff_for_half is the tariff at which energy is half the total.";
  c.refs = {grid_ref(), {"climate", {"climate"}, "site climate (data/climate/): sets --pue through cooling climate's model of --cooling"}};
  c.inputs = {
      {.name = "tariff", .kind = InputKind::quantity, .dim = dims::money_per_energy,
       .help = "the site's firm delivered electricity price", .example = "$95/MWh", .optional = true},
      {.name = "cooling", .kind = InputKind::choice, .help = "cooling plant for --climate's PUE (see cooling climate)",
       .default_value = "air", .choices = {"air", "direct-liquid"}},
      {.name = "water", .kind = InputKind::choice, .help = "allow evaporative cooling for --climate's PUE",
       .default_value = "yes", .choices = {"yes", "no"}},
      {.name = "threshold", .kind = InputKind::quantity, .dim = dims::money_per_energy,
       .help = "delivered price above which power cost is the primary siting driver", .default_value = "$80/MWh"},
  };
  for (auto& in : energy_inputs("energy drawn per year")) c.inputs.push_back(in);
  c.inputs.push_back({.name = "other_costs", .kind = InputKind::quantity, .dim = dims::money_rate,
                      .help = "every non-energy cost per year", .example = "$6.5e9/yr", .bound = Bound::non_negative,
                      .optional = true});
  c.inputs.push_back({.name = "capex", .kind = InputKind::quantity, .dim = dims::currency, .help = "capex (with --life)",
                      .example = "$30e9", .optional = true});
  c.inputs.push_back({.name = "life", .kind = InputKind::quantity, .dim = dims::time, .help = "depreciation life of --capex",
                      .example = "5yr", .optional = true});
  c.inputs.push_back({.name = "overheads", .kind = InputKind::quantity, .dim = dims::money_rate,
                      .help = "other recurring costs per year (with --capex)", .default_value = "$0/yr",
                      .example = "$0.5e9/yr", .bound = Bound::non_negative});
  c.inputs.push_back({.name = "tariffs", .kind = InputKind::text, .help = "tariffs for the share table (list or LOW..HIGH)",
                      .default_value = "$30/MWh..$120/MWh", .example = "$40/MWh,$80/MWh,$150/MWh"});
  c.inputs.push_back({.name = "steps", .kind = InputKind::integer, .help = "points in a --tariffs range", .default_value = "4",
                      .example = "10", .most = 1'000,
                      .most_why = "a sensitivity table reads well at 4 to 50 points; 1,000 already prints 100 kB"});
  c.outputs = {
      {"threshold_used", dims::money_per_energy, "the threshold applied", "$/MWh"},
      {"pue_from_climate", dims::none, "annual PUE of --climate through --cooling (when --pue is not given)"},
      {"tariff_over_threshold", dims::none, "--tariff / threshold"},
      {"annual_energy", dims::energy, "energy drawn per year"},
      {"bill_at_threshold", dims::money_rate, "the yearly bill if the site paid exactly the threshold", "$/yr"},
      {"energy_cost_per_year", dims::money_rate, "the yearly bill at --tariff", "$/yr"},
      {"other_costs_per_year", dims::money_rate, "non-energy costs per year", "$/yr"},
      {"energy_share", dims::none, "energy / (energy + other costs) at --tariff"},
      {"energy_share_at_threshold", dims::none, "energy share if the site paid the threshold"},
      {"tariff_for_half", dims::money_per_energy, "tariff at which energy is half the annual cost", "$/MWh"},
  };
  c.run = run_siting;
  c.source = __FILE__;
  c.tables = {
      {"tariff", "energy share of the annual cost by tariff"},
  };
  c.verdicts = {
      {"power_leads_siting", "the power bill is the first thing to optimise when choosing the site"},
  };
  return c;
}

}  // namespace infracalc::tco
