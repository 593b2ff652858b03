// A year-long hourly energy ledger: one row per hour of IT load, PUE, tariff, carbon intensity and
// throughput, summed into annual and monthly totals. The reference against which the closed forms of
// `power energy` and `cooling facility` are checked.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "units/system.hpp"

namespace infracalc::pwr {

/// Hours in the ledger's year (365 days).
inline constexpr int kHoursPerYear = 8760;

/// One hour of operation.
struct LedgerHour {
  /// Average IT power during the hour.
  Watts it;
  /// PUE during the hour.
  Number pue;
  /// Electricity price during the hour.
  UsdPerJoule tariff;
  /// Grid carbon intensity during the hour.
  KilogramsPerJoule carbon;
  /// Tokens per second served during the hour.
  TokensPerSecond throughput;
};

/// Totals of a ledger.
struct LedgerTotals {
  /// IT energy.
  Joules it;
  /// Facility energy.
  Joules facility;
  /// Cost of the facility energy.
  Usd bill;
  /// Emissions of the facility energy.
  Kilograms emissions;
  /// Tokens served.
  Tokens tokens;
  /// IT energy per calendar month (non-leap year).
  std::array<Joules, 12> month_it;
  /// Facility energy per calendar month.
  std::array<Joules, 12> month_facility;
};

/// Sums the ledger hour by hour (compensated summation, so 8760 rows lose no digits).
[[nodiscard]] LedgerTotals run_ledger(std::span<const LedgerHour> hours);

/// Shape of a synthetic year: a load and a PUE that swing daily and seasonally.
struct YearProfile {
  /// IT power at full load.
  Watts peak;
  /// Mean utilisation.
  double utilisation = 0.8;
  /// Amplitude of the daily utilisation swing (peak-to-mean).
  double daily_swing = 0.1;
  /// PUE at the annual mean outdoor temperature.
  double pue = 1.25;
  /// Seasonal PUE amplitude (summer above, winter below).
  double pue_seasonal = 0.08;
  /// Daily PUE amplitude (afternoons above, nights below).
  double pue_daily = 0.03;
  /// Hour of the day at which load and PUE peak together (0-23).
  double peak_hour = 15.0;
  /// Random hour-to-hour noise on the utilisation (0 for a deterministic year).
  double noise = 0.0;
};

/// 8760 hours of a synthetic year with the given shape; a constant tariff, carbon intensity and IT
/// energy per token (throughput follows the load). Deterministic for a given seed.
[[nodiscard]] std::vector<LedgerHour> synthetic_year(const YearProfile& p, UsdPerJoule tariff, KilogramsPerJoule carbon,
                                                     JoulesPerToken it_energy_per_token, std::uint64_t seed);

}  // namespace infracalc::pwr
