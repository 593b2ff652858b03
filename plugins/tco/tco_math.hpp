// Cost of ownership: the typed closed forms behind `tco hour`, `tco facility`, `tco energy` and
// `tco siting`. The year-by-year ledger (tco_ledger.hpp) checks them.
#pragma once

#include "units/system.hpp"

namespace infracalc::tco {

/// One year as every tco and cost formula counts it: the Julian year of the unit parser's `yr`
/// (365.25 d = 8,766 h). A 365-day year is `--life 1460d` for four of them.
[[nodiscard]] Seconds year();
/// One hour.
[[nodiscard]] Seconds hour();

/// The owner's cost of one sold accelerator-hour, line by line.
struct HourLines {
  /// Straight-line depreciation of the equipment per sold hour.
  UsdPerHour equipment;
  /// Electricity per sold hour (idle draw in unsold hours included when asked).
  UsdPerHour electricity;
  /// Maintenance and staff per sold hour (a cost of every installed hour, spread over the sold ones).
  UsdPerHour maintenance;
  /// Financing (the cost of the capital tied up) per sold hour.
  UsdPerHour financing;

  /// Sum of the four lines.
  [[nodiscard]] UsdPerHour total() const { return equipment + electricity + maintenance + financing; }
};

/// Equipment per sold hour: (capex − residual) / (life × sold_share).
[[nodiscard]] UsdPerHour equipment_per_sold_hour(Usd capex, Usd residual, Seconds life, double sold_share);

/// Electricity per sold hour: power × PUE × tariff × (1 + idle_share × (1 − s) / s), where idle_share is
/// the power drawn in an unsold hour as a share of `power` (0 when idle equipment is switched off).
[[nodiscard]] UsdPerHour electricity_per_sold_hour(Watts power, double pue, UsdPerJoule tariff, double sold_share,
                                                   double idle_power_share);

/// Maintenance per sold hour: maintenance is a cost of every installed hour (staff, spares, service contracts
/// run whether or not the hour sells), spread over the sold ones: per installed hour / sold_share.
[[nodiscard]] UsdPerHour maintenance_per_sold_hour(UsdPerHour per_installed_hour, double sold_share);

/// Present value of 1 per year paid at the end of each of `years` years at annual `rate`:
/// (1 − (1 + r)^−n) / r, and n when r = 0. `years` may be fractional.
[[nodiscard]] double annuity_factor(double rate, double years);

/// The level capital charge (a money rate over the life) that repays `capex` less the present value of
/// `residual` at annual `rate`: (capex − residual·(1 + r)^−n) / annuity_factor(r, n) per year.
[[nodiscard]] UsdPerHour capital_recovery(Usd capex, Usd residual, double rate, Seconds life);

/// Financing per sold hour computed from a cost of capital: the capital recovery minus straight-line
/// depreciation, spread over the sold hours. Zero at a zero rate.
[[nodiscard]] UsdPerHour financing_per_sold_hour(Usd capex, Usd residual, double rate, Seconds life, double sold_share);

/// Straight-line depreciation as a money rate: (capex − residual) / life.
[[nodiscard]] UsdPerHour straight_line(Usd capex, Usd residual, Seconds life);

/// Energy a load draws from the grid over a period: IT power × PUE × load factor × period.
[[nodiscard]] Joules energy_over(Watts it_power, double pue, double load_factor, Seconds period);

/// An energy bill: energy × tariff.
[[nodiscard]] Usd energy_bill(Joules energy, UsdPerJoule tariff);

/// Annual TCO split into depreciation, energy and overheads (money rates, shown per year).
struct AnnualSplit {
  /// Capex spread over its life.
  UsdPerHour depreciation;
  /// The energy bill per year.
  UsdPerHour energy;
  /// Everything else that recurs: staff, maintenance, insurance, land, facility operations.
  UsdPerHour overheads;

  /// depreciation + energy + overheads.
  [[nodiscard]] UsdPerHour total() const { return depreciation + energy + overheads; }
  /// Energy and overheads as a share of the total.
  [[nodiscard]] double opex_share() const { return (energy + overheads) / total(); }
};

/// The energy share of a total cost: energy / (energy + other).
[[nodiscard]] double energy_share(UsdPerHour energy, UsdPerHour other);

/// The tariff at which energy makes up `share` of the total, given the other costs and the energy drawn per
/// unit time (average power): share × other / ((1 − share) × power). `share` must be in (0, 1).
[[nodiscard]] UsdPerJoule tariff_for_energy_share(double share, UsdPerHour other, Watts average_power);

}  // namespace infracalc::tco
