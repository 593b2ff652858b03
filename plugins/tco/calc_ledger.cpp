// `tco ledger`: the year-by-year cash-flow ledger, NPV and levelised cost, with the `tco hour` closed form
// beside it.
#include <fmt/format.h>

#include "host/context.hpp"
#include "plugins/tco/tco_calculators.hpp"
#include "plugins/tco/tco_inputs.hpp"
#include "plugins/tco/tco_ledger.hpp"
#include "plugins/tco/tco_math.hpp"
#include "units/format.hpp"

namespace infracalc::tco {

namespace {

void run_ledger_calc(Context& ctx) {
  fill_purchase(ctx, "capex_per_gpu");
  fill_tariff(ctx, "tariff");
  if (!ctx.has("capex_per_gpu")) missing(ctx, "capex_per_gpu", "equipment cost per accelerator", "$40000", "purchase");
  if (!ctx.has("tariff")) missing(ctx, "tariff", "electricity price in the first year", "$0.08/kWh", "grid");

  LedgerInputs in;
  in.accelerators = static_cast<double>(ctx.integer("accelerators"));
  in.capex_per_unit = ctx.get<Usd>("capex_per_gpu");
  in.residual_per_unit = ctx.get<Usd>("residual_value");
  if (in.residual_per_unit >= in.capex_per_unit)
    throw UserError{{"--residual-value must be below --capex-per-gpu", "the resale value is part of what was paid"}};
  in.life_years = whole_years(ctx.get<Seconds>("life"), "--life");
  in.horizon_years = ctx.has("horizon") ? whole_years(ctx.get<Seconds>("horizon"), "--horizon") : in.life_years;
  if (in.horizon_years > 200)
    throw UserError{{fmt::format("the ledger covers at most 200 years, got {}", in.horizon_years), "shorten --horizon (default: --life)"}};
  in.method = ctx.text("depreciation") == "declining" ? Depreciation::declining : Depreciation::straight_line;
  in.declining_factor = ctx.number("declining_factor");
  in.power_per_unit = ctx.get<Watts>("power_per_gpu");
  in.pue = ctx.number("pue");
  if (in.pue < 1.0) throw UserError{{fmt::format("--pue must be at least 1, got {}", in.pue), "PUE = facility energy / IT energy"}};
  in.idle_power_share = ctx.number("idle_power_share");
  in.tariff = ctx.get<UsdPerJoule>("tariff");
  in.escalation = ctx.number("escalation");
  if (in.escalation <= -1.0) throw UserError{{"--escalation must be above -100%", "e.g. 3% or -2%"}};
  in.sold_share = ctx.number("sold_share");
  in.maintenance_per_installed_hour = ctx.get<UsdPerHour>("maintenance");
  in.fixed_per_unit = ctx.get<UsdPerHour>("fixed_costs");
  in.discount_rate = annual_rate(ctx, "discount_rate");

  const Ledger L = run_ledger(in);
  ctx.set("npv", L.npv);
  ctx.set("undiscounted", L.undiscounted);
  ctx.set("total_depreciation", L.total_depreciation);
  ctx.set("sold_time", L.sold_time);
  ctx.set("levelised_cost", L.levelised());
  ctx.set("levelised_capital", L.levelised_capital());
  ctx.set("levelised_energy", L.levelised_energy());
  ctx.set("levelised_maintenance", L.levelised_maintenance());
  ctx.set("levelised_fixed", L.levelised_fixed());

  Table t{"ledger", "Year-by-year ledger (all accelerators)",
          {{"year", dims::none, ""}, {"purchases", dims::currency, ""}, {"depreciation", dims::currency, ""},
           {"book_value", dims::currency, ""}, {"energy", dims::currency, ""}, {"maintenance", dims::currency, ""},
           {"fixed", dims::currency, ""}, {"residual", dims::currency, ""}, {"net", dims::currency, ""},
           {"discount_factor", dims::none, ""}, {"present_value", dims::currency, ""}},
          {}};
  for (const auto& r : L.rows)
    t.rows.push_back({Quantity::number(r.year), to_quantity(r.purchases), to_quantity(r.depreciation), to_quantity(r.book_value),
                      to_quantity(r.energy), to_quantity(r.maintenance), to_quantity(r.fixed), to_quantity(r.residual),
                      to_quantity(r.net), Quantity::number(r.discount_factor), to_quantity(r.present_value)});
  ctx.add_table(std::move(t));

  // The `tco hour` closed form holds when tariffs are flat and the horizon is one life.
  const bool comparable = in.escalation == 0.0 && in.horizon_years == in.life_years;
  if (comparable) {
    const Seconds life = year() * static_cast<double>(in.life_years);
    const UsdPerHour closed = equipment_per_sold_hour(in.capex_per_unit, in.residual_per_unit, life, in.sold_share) +
                              financing_per_sold_hour(in.capex_per_unit, in.residual_per_unit, in.discount_rate, life, in.sold_share) +
                              electricity_per_sold_hour(in.power_per_unit, in.pue, in.tariff, in.sold_share, in.idle_power_share) +
                              maintenance_per_sold_hour(in.maintenance_per_installed_hour, in.sold_share) + in.fixed_per_unit / in.sold_share;
    ctx.set("closed_form_cost", closed);
    const double diff = std::fabs((L.levelised() - closed) / closed);
    ctx.set_number("closed_form_difference", diff);
    ctx.verdict("closed_form_agrees", diff < 1e-9,
                fmt::format("tco hour with --cost-of-capital {} gives {} per sold hour; the ledger {}", ctx.quote_percent(in.discount_rate),
                            ctx.quote(closed, "$/h"), ctx.quote(L.levelised(), "$/h")));
  } else {
    ctx.note("the tco hour closed form is compared only with flat tariffs (--escalation 0) over one life (--horizon = --life)");
  }
  ctx.note("cash flows fall at year ends, the first purchase at t = 0; equipment is replaced at the end of each life and sold "
           "at --residual-value; a horizon that cuts a life short values what is left at book");
  ctx.note("levelised cost = NPV of costs / discounted sold accelerator-hours (sold hours discounted like cash); "
           "depreciation is non-cash and only shapes the book value (no taxes)");
}

}  // namespace

Calculator ledger_calculator() {
  Calculator c;
  c.name = "ledger";
  c.summary = "year-by-year cash-flow ledger: purchases, depreciation, energy, maintenance, residual; NPV and levelised $/h";
  c.description =
      "Year 0: purchase. Each year: depreciation (straight-line, or declining balance at factor/life switching to "
      "straight line), energy = power x PUE x hours x tariff (escalating yearly), maintenance per installed hour, fixed costs, "
      "residual value at the end of each life; net cash discounted at (1 + r)^-year. levelised_cost = NPV / discounted "
      "sold hours, which equals the tco hour closed form with --cost-of-capital r when tariffs are flat.";
  c.refs = {purchase_ref("--capex-per-gpu"), grid_ref()};
  c.inputs = {
      {.name = "accelerators", .kind = InputKind::integer, .help = "accelerators in each purchase", .default_value = "1",
       .example = "1024"},
      {.name = "capex_per_gpu", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "equipment and installation cost per accelerator; or --purchase", .example = "$40000", .optional = true},
      {.name = "residual_value", .kind = InputKind::quantity, .dim = dims::currency,
       .help = "resale value per accelerator at the end of its life", .default_value = "$0", .bound = Bound::non_negative},
      {.name = "life", .kind = InputKind::quantity, .dim = dims::time, .help = "useful life, whole years", .example = "4yr"},
      {.name = "horizon", .kind = InputKind::quantity, .dim = dims::time,
       .help = "years the ledger covers (default: one life); equipment is replaced at each life's end", .example = "8yr",
       .optional = true},
      {.name = "depreciation", .kind = InputKind::choice, .help = "depreciation schedule", .default_value = "straight-line",
       .choices = {"straight-line", "declining"}},
      {.name = "declining_factor", .kind = InputKind::quantity, .dim = dims::none,
       .help = "declining-balance factor (2 = double declining)", .default_value = "2", .example = "1.5"},
      {.name = "power_per_gpu", .kind = InputKind::quantity, .dim = dims::power,
       .help = "power of one working accelerator with its share of the server", .example = "1.2kW"},
      {.name = "pue", .kind = InputKind::quantity, .dim = dims::none, .help = "facility energy / IT energy", .default_value = "1"},
      {.name = "idle_power_share", .kind = InputKind::quantity, .dim = dims::none,
       .help = "power in unsold hours as a share of --power-per-gpu", .default_value = "0", .bound = Bound::fraction0},
      {.name = "tariff", .kind = InputKind::quantity, .dim = dims::money_per_energy,
       .help = "electricity price in year 1; or --grid",
       .example = "$0.08/kWh", .optional = true},
      {.name = "escalation", .kind = InputKind::quantity, .dim = dims::none, .help = "yearly change of the tariff",
       .default_value = "0%", .example = "3%", .bound = Bound::any},
      {.name = "sold_share", .kind = InputKind::quantity, .dim = dims::none, .help = "share of hours sold",
       .example = "70%", .bound = Bound::fraction},
      {.name = "maintenance", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "maintenance and staff per installed accelerator-hour (every hour of the life, sold or not)", .default_value = "$0/h", .example = "$0.30/h",
       .bound = Bound::non_negative},
      {.name = "fixed_costs", .kind = InputKind::quantity, .dim = dims::money_rate,
       .help = "fixed costs per accelerator per year, sold or not (space, insurance)", .default_value = "$0/yr",
       .example = "$500/yr", .bound = Bound::non_negative},
      {.name = "discount_rate", .kind = InputKind::quantity, .dim = dims::none,
       .help = "annual discount rate (cost of capital), at most 100% a year", .default_value = "0%", .example = "8%", .bound = Bound::non_negative},
  };
  c.outputs = {
      {"npv", dims::currency, "net present value of all costs (residuals netted)"},
      {"undiscounted", dims::currency, "sum of net cash out, undiscounted"},
      {"total_depreciation", dims::currency, "sum of the depreciation column (= purchases - residuals over whole lives)"},
      {"sold_time", dims::time, "sold accelerator-hours over the horizon", "h"},
      {"levelised_cost", dims::money_rate, "NPV / discounted sold hours: the break-even price per sold hour", "$/h"},
      {"levelised_capital", dims::money_rate, "capital part (equipment and financing)", "$/h"},
      {"levelised_energy", dims::money_rate, "energy part", "$/h"},
      {"levelised_maintenance", dims::money_rate, "maintenance part", "$/h"},
      {"levelised_fixed", dims::money_rate, "fixed-cost part", "$/h"},
      {"closed_form_cost", dims::money_rate, "tco hour's closed form for the same inputs (flat tariff, one life)", "$/h"},
      {"closed_form_difference", dims::none, "|ledger - closed form| / closed form"},
  };
  c.run = run_ledger_calc;
  c.source = __FILE__;
  c.tables = {
      {"ledger", "year-by-year ledger, all accelerators"},
  };
  c.verdicts = {
      {"closed_form_agrees", "the ledger agrees with tco hour's closed form"},
  };
  return c;
}

}  // namespace infracalc::tco
