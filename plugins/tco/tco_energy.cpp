// `tco energy` (a bill over a tariff range) and `tco siting` (when power price leads the choice of site).
#include <fmt/format.h>

#include "host/catalog_input.hpp"
#include "host/context.hpp"
#include "plugins/cooling/climate.hpp"
#include "plugins/tco/tco_calcs.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::tco {

namespace {


// The energy of the period: --energy, or --power x PUE x load factor x --period. nullopt when neither is given.
std::optional<Joules> period_energy(Context& ctx, Seconds period) {
  const double pue = ctx.number("pue");
  if (pue < 1.0) throw UserError{{fmt::format("--pue must be at least 1, got {}", pue), "PUE = facility energy / IT energy"}};
  if (ctx.has("energy")) {
    const Joules e = ctx.get<Joules>("energy");
    if (ctx.has("power")) {
      const double lf = e / (ctx.get<Watts>("power") * pue * period);
      ctx.set_number("load_factor_implied", lf);
      if (lf > 1.0 + 1e-12)
        ctx.note(fmt::format("--energy is more than --power x PUE can draw in the period (load factor {})", ctx.quote_number(lf)));
    }
    return e;
  }
  if (ctx.has("power")) return energy_over(ctx.get<Watts>("power"), pue, ctx.number("load_factor"), period);
  return std::nullopt;
}

std::vector<Input> energy_inputs(std::string_view energy_help) {
  return {
      {.name = "energy", .kind = InputKind::quantity, .dim = dims::energy, .help = energy_help, .example = "8TWh",
       .optional = true},
      {.name = "power", .kind = InputKind::quantity, .dim = dims::power,
       .help = "IT power (energy = power x PUE x load factor x period when --energy is absent)", .example = "1GW",
       .optional = true},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "facility energy / IT energy", .default_value = "1",
       .example = "1.2"},
      {.name = "load_factor", .kind = InputKind::quantity, .dim = dims::none, .help = "average load / --power",
       .default_value = "100%", .example = "91%", .bound = Bound::fraction},
  };
}

void run_energy(Context& ctx) {
  const Seconds period = ctx.get<Seconds>("period");
  const auto energy = period_energy(ctx, period);
  if (!energy) missing(ctx, "energy", "energy over --period", "8TWh");
  fill_tariff(ctx, "tariff");
  if (!ctx.has("tariff") && !ctx.has("tariff_range"))
    throw UserError{{"missing --tariff or --tariff-range",
                     "give --tariff $0.08/kWh, --tariff-range $30/MWh..$120/MWh or --grid ID"}};
  ctx.set("energy_used", *energy);
  ctx.set("average_power", *energy / period);
  if (ctx.has("tariff")) ctx.set("bill", energy_bill(*energy, ctx.get<UsdPerJoule>("tariff")));
  if (ctx.has("tariff_range")) {
    const auto [lo_q, hi_q] = parse_range(ctx.text("tariff_range"), expectation_of<UsdPerJoule>(), "--tariff-range");
    const UsdPerJoule lo = as<UsdPerJoule>(lo_q, "--tariff-range"), hi = as<UsdPerJoule>(hi_q, "--tariff-range");
    if (lo.value() <= 0) throw UserError{{"--tariff-range: the low end must be above zero", "e.g. $30/MWh..$120/MWh"}};
    const Usd low = energy_bill(*energy, lo), high = energy_bill(*energy, hi);
    ctx.set("bill_low", low);
    ctx.set("bill_high", high);
    ctx.set("swing", high - low);
    ctx.set_number("high_over_low", high / low);
    Table t{"tariff", "Energy bill over the tariff range",
            {{"tariff", dims::money_per_energy, "$/MWh"}, {"bill", dims::currency, ""}, {"vs_low", dims::currency, ""}}, {}};
    for (const auto& q : parse_series(ctx.text("tariff_range"), expectation_of<UsdPerJoule>(), "--tariff-range",
                                      ctx.count("steps"))) {
      const Usd b = energy_bill(*energy, as<UsdPerJoule>(q, "--tariff-range"));
      t.rows.push_back({q, to_quantity(b), to_quantity(b - low)});
    }
    ctx.add_table(std::move(t));
    if (ctx.has("connection_capex")) {
      const UsdPerHour amortised = straight_line(ctx.get<Usd>("connection_capex"), from_base<Usd>(0.0), ctx.get<Seconds>("connection_life"));
      ctx.set("connection_per_year", amortised);
      ctx.set_number("swing_vs_connection", ((high - low) / period) / amortised);
    }
  } else if (ctx.has("connection_capex")) {
    ctx.note("--connection-capex is compared with the swing of a --tariff-range; no range given");
  }
  ctx.note("bill = energy x tariff over " + ctx.quote(ctx.quantity("period"), "yr") +
           "; the tariff is the delivered price (energy, network and fees per MWh); demand charges per kW are not included");
}

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

Calculator energy_calculator() {
  Calculator c;
  c.name = "energy";
  c.summary = "energy bill at a tariff or over a tariff range, and the swing between the ends";
  c.description =
      "bill = energy x tariff; over --tariff-range LOW..HIGH: bill_low, bill_high and swing = bill_high - bill_low, with a "
      "table of --steps points. Energy is --energy, or --power x PUE x load factor x --period. With --connection-capex the "
      "yearly swing is compared with the grid connection amortised over --connection-life.";
  c.refs = {grid_ref()};
  c.inputs = energy_inputs("energy drawn over --period");
  c.inputs.push_back({.name = "period", .kind = InputKind::quantity, .dim = dims::time,
                      .help = "the period the energy and the bill cover", .default_value = "1yr", .example = "30d"});
  c.inputs.push_back({.name = "tariff", .kind = InputKind::quantity, .dim = dims::money_per_energy,
                      .help = "one delivered electricity price", .example = "$0.10/kWh", .optional = true});
  c.inputs.push_back({.name = "tariff_range", .kind = InputKind::text, .help = "tariff range LOW..HIGH",
                      .example = "$30/MWh..$120/MWh", .optional = true});
  c.inputs.push_back({.name = "steps", .kind = InputKind::integer, .help = "points in the range table", .default_value = "4",
                      .example = "10", .most = 1'000,
                      .most_why = "a sensitivity table reads well at 4 to 50 points; 1,000 already prints 100 kB"});
  c.inputs.push_back({.name = "connection_capex", .kind = InputKind::quantity, .dim = dims::currency,
                      .help = "cost of the site's grid connection (transmission, substation)", .example = "$7.2e9",
                      .optional = true});
  c.inputs.push_back({.name = "connection_life", .kind = InputKind::quantity, .dim = dims::time,
                      .help = "years the connection is amortised over", .default_value = "20yr"});
  c.outputs = {
      {"energy_used", dims::energy, "energy over the period"},
      {"average_power", dims::power, "energy / period"},
      {"load_factor_implied", dims::none, "--energy / (--power x PUE x period), when both are given"},
      {"bill", dims::currency, "bill at --tariff"},
      {"bill_low", dims::currency, "bill at the low end of --tariff-range"},
      {"bill_high", dims::currency, "bill at the high end of --tariff-range"},
      {"swing", dims::currency, "bill_high - bill_low"},
      {"high_over_low", dims::none, "bill_high / bill_low"},
      {"connection_per_year", dims::money_rate, "grid connection amortised per year", "$/yr"},
      {"swing_vs_connection", dims::none, "yearly swing / amortised connection"},
  };
  c.run = run_energy;
  c.source = __FILE__;
  c.tables = {
      {"tariff", "the energy bill over the tariff range"},
  };
  return c;
}

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
