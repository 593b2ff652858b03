// `tco energy`: the energy bill of a period over a tariff range.
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

}  // namespace infracalc::tco
