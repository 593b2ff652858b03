#include "plugins/tco/tco_ledger.hpp"

#include <algorithm>

#include "plugins/tco/tco_math.hpp"

namespace infracalc::tco {

std::vector<Usd> depreciation_schedule(Usd cost, Usd residual, int life_years, Depreciation method,
                                       double declining_factor) {
  std::vector<Usd> out;
  Usd book = cost;
  for (int y = 1; y <= life_years; ++y) {
    const int left = life_years - y + 1;
    const Usd even = (book - residual) / static_cast<double>(left);
    Usd dep = even;
    if (method == Depreciation::declining && y < life_years) {
      // Declining balance on the book value; switch to straight line over the remaining years once that
      // charges more (the usual DDB-with-switch schedule), and never depreciate below the residual.
      const Usd db = book * (declining_factor / life_years);
      dep = std::max(db, even);
      dep = std::min(dep, book - residual);
    }
    if (y == life_years) dep = book - residual;
    book -= dep;
    out.push_back(dep);
  }
  return out;
}

Ledger run_ledger(const LedgerInputs& in) {
  Ledger L;
  const double n = in.accelerators;
  const Usd cost = in.capex_per_unit * n;
  const Usd residual = in.residual_per_unit * n;
  const std::vector<Usd> schedule =
      depreciation_schedule(cost, residual, in.life_years, in.method, in.declining_factor);
  const Seconds one_year = year();
  const Usd zero = from_base<Usd>(0.0);

  LedgerRow first;
  first.year = 0;
  first.purchases = cost;
  first.book_value = cost;
  first.net = cost;
  first.present_value = cost;
  first.sold_time = from_base<Seconds>(0.0);
  L.rows.push_back(first);

  UsdPerJoule tariff = in.tariff;
  double v = 1.0;
  Usd book = cost;
  for (int y = 1; y <= in.horizon_years; ++y) {
    LedgerRow r;
    r.year = y;
    v /= 1.0 + in.discount_rate;
    const int age = (y - 1) % in.life_years;  // years the current equipment has already served
    r.depreciation = schedule[static_cast<std::size_t>(age)];
    book -= r.depreciation;
    const Seconds sold = one_year * in.sold_share * n;
    const Seconds unsold = one_year * (1.0 - in.sold_share) * n;
    const Joules used = in.power_per_unit * in.pue * sold + in.power_per_unit * in.pue * in.idle_power_share * unsold;
    r.energy = used * tariff;
    r.maintenance = in.maintenance_per_installed_hour * (sold + unsold);
    r.fixed = in.fixed_per_unit * one_year * n;
    r.sold_time = sold;
    r.purchases = zero;
    r.residual = zero;
    const bool end_of_life = age == in.life_years - 1;
    if (end_of_life) {
      r.residual = residual;  // sold at its resale value
      if (y < in.horizon_years) {
        r.purchases = cost;  // replaced at once
        book = cost;
      }
    } else if (y == in.horizon_years) {
      r.residual = book;  // the horizon cuts a life short: what is left is valued at book
    }
    r.book_value = book;
    r.net = r.purchases + r.energy + r.maintenance + r.fixed - r.residual;
    r.discount_factor = v;
    r.present_value = r.net * v;
    L.rows.push_back(r);
    tariff = tariff * (1.0 + in.escalation);
  }

  L.npv = zero;
  L.undiscounted = zero;
  L.total_depreciation = zero;
  L.pv_capital = zero;
  L.pv_energy = zero;
  L.pv_maintenance = zero;
  L.pv_fixed = zero;
  L.sold_time = from_base<Seconds>(0.0);
  L.discounted_sold_time = from_base<Seconds>(0.0);
  for (const auto& r : L.rows) {
    L.npv += r.present_value;
    L.undiscounted += r.net;
    L.total_depreciation += r.depreciation;
    L.pv_capital += (r.purchases - r.residual) * r.discount_factor;
    L.pv_energy += r.energy * r.discount_factor;
    L.pv_maintenance += r.maintenance * r.discount_factor;
    L.pv_fixed += r.fixed * r.discount_factor;
    L.sold_time += r.sold_time;
    L.discounted_sold_time += r.sold_time * r.discount_factor;
  }
  return L;
}

}  // namespace infracalc::tco
