// Reference kernels for tco: the year-by-year ledger against the closed forms of `tco hour`, `tco facility`
// and `tco energy`, and an hour-by-hour simulation of a life against the per-sold-hour lines.
#include <fmt/format.h>

#include "plugins/tco/tco_ledger.hpp"
#include "plugins/tco/tco_math.hpp"
#include "plugins/tco/tco_plugin.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace tco;

UsdPerJoule per_kwh(double usd) { return from_base<UsdPerJoule>(usd / 3.6e6); }
UsdPerHour per_hour(double usd) { return from_base<UsdPerHour>(usd / 3600.0); }
Usd dollars(double usd) { return from_base<Usd>(usd); }
Watts watts(double w) { return from_base<Watts>(w); }

LedgerInputs source_case() {
  LedgerInputs in;
  in.capex_per_unit = dollars(40000);
  in.residual_per_unit = dollars(0);
  in.life_years = 4;
  in.horizon_years = 4;
  in.power_per_unit = watts(1200);
  in.tariff = per_kwh(0.08);
  in.sold_share = 0.7;
  in.maintenance_per_installed_hour = per_hour(0.30);
  in.fixed_per_unit = from_base<UsdPerHour>(0.0);
  return in;
}

UsdPerHour closed_hour(const LedgerInputs& in) {
  const Seconds life = year() * static_cast<double>(in.life_years);
  return equipment_per_sold_hour(in.capex_per_unit, in.residual_per_unit, life, in.sold_share) +
         financing_per_sold_hour(in.capex_per_unit, in.residual_per_unit, in.discount_rate, life, in.sold_share) +
         electricity_per_sold_hour(in.power_per_unit, in.pue, in.tariff, in.sold_share, in.idle_power_share) +
         maintenance_per_sold_hour(in.maintenance_per_installed_hour, in.sold_share) + in.fixed_per_unit / in.sold_share;
}

void trace_ledger(const Ledger& L, const KernelOptions& opt, std::string_view what) {
  if (!opt.trace) return;
  fmt::print(stderr, "ledger ({}):\n", what);
  for (const auto& r : L.rows)
    fmt::print(stderr, "  year {:>2}  purchases {:>12.2f}  depreciation {:>12.2f}  energy {:>10.2f}  maintenance {:>10.2f}  "
                       "residual {:>10.2f}  PV {:>12.2f}\n",
               r.year, r.purchases.value(), r.depreciation.value(), r.energy.value(), r.maintenance.value(),
               r.residual.value(), r.present_value.value());
}

std::vector<KernelCheck> run_ledger_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  // The source case with an 8% cost of capital, and a harsher one: residual, idle draw, PUE, fixed costs.
  LedgerInputs a = source_case();
  a.discount_rate = 0.08;
  LedgerInputs b = source_case();
  b.residual_per_unit = dollars(6000);
  b.idle_power_share = 0.3;
  b.pue = 1.25;
  b.discount_rate = 0.11;
  b.life_years = b.horizon_years = 5;
  b.fixed_per_unit = per_hour(900.0 / 8766.0);
  b.accelerators = 512;
  for (const auto& [name, in] : {std::pair{"source case, 8% cost of capital", a}, std::pair{"residual, idle draw, PUE, 11%", b}}) {
    const Ledger L = run_ledger(in);
    trace_ledger(L, opt, name);
    out.push_back({fmt::format("owner cost per sold hour ({})", name), to_quantity(closed_hour(in)), to_quantity(L.levelised()), 1e-9});
    const Seconds life = year() * static_cast<double>(in.life_years);
    const UsdPerHour capital = equipment_per_sold_hour(in.capex_per_unit, in.residual_per_unit, life, in.sold_share) +
                               financing_per_sold_hour(in.capex_per_unit, in.residual_per_unit, in.discount_rate, life, in.sold_share);
    out.push_back({fmt::format("equipment + financing per sold hour ({})", name), to_quantity(capital),
                   to_quantity(L.levelised_capital()), 1e-9});
  }
  // Undiscounted: the ledger's level cost is equipment + electricity + maintenance with no financing.
  {
    LedgerInputs c = source_case();
    const Ledger L = run_ledger(c);
    out.push_back({"owner cost per sold hour at 0% (no financing)", to_quantity(closed_hour(c)), to_quantity(L.levelised()), 1e-9});
  }
  // Facility view: the average yearly accounting cost over a life equals capex / life + energy + overheads, and both
  // depreciation schedules write off exactly capex - residual.
  for (const auto method : {Depreciation::straight_line, Depreciation::declining}) {
    LedgerInputs f = source_case();
    f.accelerators = 1000;
    f.life_years = f.horizon_years = 5;
    f.residual_per_unit = dollars(2500);
    f.method = method;
    f.fixed_per_unit = per_hour(0.05);
    f.sold_share = 1.0;
    const Ledger L = run_ledger(f);
    const char* m = method == Depreciation::straight_line ? "straight-line" : "declining";
    out.push_back({fmt::format("depreciation written off over the life ({})", m), to_quantity((f.capex_per_unit - f.residual_per_unit) * f.accelerators),
                   to_quantity(L.total_depreciation), 1e-12});
    Usd accounting = from_base<Usd>(0.0);
    for (const auto& r : L.rows) accounting += r.depreciation + r.energy + r.maintenance + r.fixed;
    const Seconds life = year() * static_cast<double>(f.life_years);
    const Joules energy = energy_over(f.power_per_unit * f.accelerators, f.pue, f.sold_share, year());
    const AnnualSplit split{straight_line(f.capex_per_unit * f.accelerators, f.residual_per_unit * f.accelerators, life),
                            energy_bill(energy, f.tariff) / year(),
                            f.maintenance_per_installed_hour * f.accelerators + f.fixed_per_unit * f.accelerators};
    out.push_back({fmt::format("annual TCO, 1,000 accelerators over 5 yr ({})", m), to_quantity(split.total() * year()),
                   to_quantity(accounting / static_cast<double>(f.life_years)), 1e-9});
  }
  // Energy bill: a year of the ledger against energy x tariff.
  {
    LedgerInputs e = source_case();
    e.accelerators = 833334;  // about 1 GW of IT load at 1.2 kW each
    e.sold_share = 0.91;
    const Ledger L = run_ledger(e);
    const Joules energy = energy_over(e.power_per_unit * e.accelerators, e.pue, e.sold_share, year());
    out.push_back({"energy bill of a year, 1 GW at 91% load", to_quantity(energy_bill(energy, e.tariff)), to_quantity(L.rows[1].energy),
                   1e-12});
  }
  return out;
}

// Walks every hour of a life, selling hours in an evenly spread pattern that hits the sold share, and adds up
// what the owner paid and what was sold.
struct HourWalk {
  double sold_hours = 0;
  double energy_cost = 0;
};

HourWalk walk_hours(double hours, double share, double power_w, double pue, double usd_per_kwh, double idle) {
  HourWalk w;
  double credit = 0;
  for (long h = 0; h < static_cast<long>(hours); ++h) {
    credit += share;
    const bool sold = credit >= 1.0 - 1e-12;
    if (sold) credit -= 1.0;
    const double kw = power_w * pue * (sold ? 1.0 : idle) / 1000.0;
    w.energy_cost += kw * usd_per_kwh;
    if (sold) w.sold_hours += 1;
  }
  return w;
}

std::vector<KernelCheck> run_hour_walk(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const double capex = 40000;
  const double life_h = 4 * 8766.0;
  const Seconds life = year() * 4.0;
  struct Case {
    double share, idle, pue;
  };
  std::vector<Case> cases = {{0.70, 0.0, 1.0}, {0.35, 0.0, 1.0}, {0.55, 0.3, 1.3}};
  if (!opt.quick) cases.push_back({0.9, 0.15, 1.1});
  for (const auto& c : cases) {
    const HourWalk w = walk_hours(life_h, c.share, 1200, c.pue, 0.08, c.idle);
    if (opt.trace)
      fmt::print(stderr, "hour walk: share {:g}: {:g} of {:g} h sold, electricity ${:.2f}\n", c.share, w.sold_hours, life_h,
                 w.energy_cost);
    // The walk sells whole hours, so it can miss the share by under one hour in the life.
    const double tol = 1.5 / (c.share * life_h);
    out.push_back({fmt::format("equipment per sold hour at {:g}% sold", c.share * 100),
                   to_quantity(equipment_per_sold_hour(dollars(capex), dollars(0), life, c.share)),
                   to_quantity(per_hour(capex / w.sold_hours)), tol});
    out.push_back({fmt::format("electricity per sold hour at {:g}% sold, {:g}% idle draw, PUE {:g}", c.share * 100, c.idle * 100, c.pue),
                   to_quantity(electricity_per_sold_hour(watts(1200), c.pue, per_kwh(0.08), c.share, c.idle)),
                   to_quantity(per_hour(w.energy_cost / w.sold_hours)), tol});
  }
  return out;
}

}  // namespace

std::vector<Kernel> tco_kernels() {
  return {{"ledger", "year-by-year cash-flow ledger against the tco hour, facility and energy closed forms", run_ledger_kernel},
          {"hour-walk", "walks every hour of a 4-year life, selling an even share, against the per-sold-hour lines", run_hour_walk}};
}

}  // namespace infracalc
