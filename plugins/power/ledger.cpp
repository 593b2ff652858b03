#include "plugins/power/ledger.hpp"

#include <cmath>
#include <random>

namespace infracalc::pwr {

namespace {

constexpr std::array<int, 12> kDaysPerMonth = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

// Kahan-Babuška summation: 8760 terms of similar size, but the checks compare to 1e-12.
struct Sum {
  double s = 0.0, c = 0.0;
  void add(double x) {
    const double t = s + x;
    c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
    s = t;
  }
  [[nodiscard]] double value() const { return s + c; }
};

}  // namespace

LedgerTotals run_ledger(std::span<const LedgerHour> hours) {
  const Seconds hour = from_base<Seconds>(3600.0);
  Sum it, fac, bill, co2, tok;
  std::array<Sum, 12> m_it{}, m_fac{};
  std::size_t month = 0;
  std::size_t month_end = static_cast<std::size_t>(kDaysPerMonth[0]) * 24;
  for (std::size_t h = 0; h < hours.size(); ++h) {
    while (h >= month_end && month + 1 < 12) {
      ++month;
      month_end += static_cast<std::size_t>(kDaysPerMonth[month]) * 24;
    }
    const LedgerHour& r = hours[h];
    const Joules e_it = r.it * hour;
    const Joules e_fac = e_it * r.pue;
    it.add(e_it.value());
    fac.add(e_fac.value());
    bill.add((e_fac * r.tariff).value());
    co2.add((e_fac * r.carbon).value());
    tok.add((r.throughput * hour).value());
    m_it[month].add(e_it.value());
    m_fac[month].add(e_fac.value());
  }
  LedgerTotals t{};
  t.it = from_base<Joules>(it.value());
  t.facility = from_base<Joules>(fac.value());
  t.bill = from_base<Usd>(bill.value());
  t.emissions = from_base<Kilograms>(co2.value());
  t.tokens = from_base<Tokens>(tok.value());
  for (std::size_t m = 0; m < 12; ++m) {
    t.month_it[m] = from_base<Joules>(m_it[m].value());
    t.month_facility[m] = from_base<Joules>(m_fac[m].value());
  }
  return t;
}

std::vector<LedgerHour> synthetic_year(const YearProfile& p, UsdPerJoule tariff, KilogramsPerJoule carbon,
                                       JoulesPerToken it_energy_per_token, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  std::vector<LedgerHour> rows;
  rows.reserve(kHoursPerYear);
  const double two_pi = 2.0 * M_PI;
  for (int h = 0; h < kHoursPerYear; ++h) {
    const double day_phase = two_pi * (h % 24 - p.peak_hour) / 24.0;
    // Warmest around day 200 (mid-July) in the northern hemisphere.
    const double season_phase = two_pi * (static_cast<double>(h) / 24.0 - 200.0) / 365.0;
    double u = p.utilisation + p.daily_swing * std::cos(day_phase) + p.noise * unit(rng);
    u = std::clamp(u, 0.0, 1.0);
    const double pue = p.pue + p.pue_seasonal * std::cos(season_phase) + p.pue_daily * std::cos(day_phase);
    LedgerHour r;
    r.it = u * p.peak;
    r.pue = Number::from_value(pue);
    r.tariff = tariff;
    r.carbon = carbon;
    r.throughput = r.it / it_energy_per_token;
    rows.push_back(r);
  }
  return rows;
}

}  // namespace infracalc::pwr
