#include "plugins/tco/tco_math.hpp"

#include <cmath>

#include "units/unit_table.hpp"

namespace infracalc::tco {

Seconds year() { return from_base<Seconds>(kSecondsPerYear); }
Seconds hour() { return from_base<Seconds>(3600.0); }

UsdPerHour equipment_per_sold_hour(Usd capex, Usd residual, Seconds life, double sold_share) {
  return (capex - residual) / (life * sold_share);
}

UsdPerHour electricity_per_sold_hour(Watts power, double pue, UsdPerJoule tariff, double sold_share,
                                     double idle_power_share) {
  // Unsold hours still draw idle power; their energy is carried by the sold ones.
  const double idle_load = idle_power_share * (1.0 - sold_share) / sold_share;
  return power * pue * tariff * (1.0 + idle_load);
}

UsdPerHour maintenance_per_sold_hour(UsdPerHour per_installed_hour, double sold_share) {
  return per_installed_hour / sold_share;
}

double annuity_factor(double rate, double years) {
  if (rate == 0.0) return years;
  // expm1/log1p keep small rates exact: 1 − (1 + r)^−n = −expm1(−n·log1p(r)).
  return -std::expm1(-years * std::log1p(rate)) / rate;
}

UsdPerHour capital_recovery(Usd capex, Usd residual, double rate, Seconds life) {
  const double n = life / year();
  const double discount = std::exp(-n * std::log1p(rate));
  return (capex - residual * discount) / (annuity_factor(rate, n) * year());
}

UsdPerHour financing_per_sold_hour(Usd capex, Usd residual, double rate, Seconds life, double sold_share) {
  return (capital_recovery(capex, residual, rate, life) - straight_line(capex, residual, life)) / sold_share;
}

UsdPerHour straight_line(Usd capex, Usd residual, Seconds life) { return (capex - residual) / life; }

Joules energy_over(Watts it_power, double pue, double load_factor, Seconds period) {
  return it_power * pue * load_factor * period;
}

Usd energy_bill(Joules energy, UsdPerJoule tariff) { return energy * tariff; }

double energy_share(UsdPerHour energy, UsdPerHour other) { return energy / (energy + other); }

UsdPerJoule tariff_for_energy_share(double share, UsdPerHour other, Watts average_power) {
  return share * other / ((1.0 - share) * average_power);
}

}  // namespace infracalc::tco
