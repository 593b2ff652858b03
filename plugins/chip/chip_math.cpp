#include "plugins/chip/chip_math.hpp"

#include <cmath>

namespace infracalc::chip {

double systolic_macs(std::int64_t rows, std::int64_t cols) { return static_cast<double>(rows) * static_cast<double>(cols); }

double chip_macs_per_cycle(std::int64_t compute_units, std::int64_t matrix_units, double macs_per_unit) {
  return static_cast<double>(compute_units) * static_cast<double>(matrix_units) * macs_per_unit;
}

FlopsPerSecond peak_rate(double macs_per_cycle, double ops_per_mac, PerSecond clock) {
  return from_base<FlopsPerSecond>(macs_per_cycle * ops_per_mac * clock.value());
}

PerSecond implied_clock(FlopsPerSecond peak, double macs_per_cycle, double ops_per_mac) {
  return from_base<PerSecond>(peak.value() / (macs_per_cycle * ops_per_mac));
}

TokensPerSecond decode_ceiling(BytesPerSecond bandwidth, BytesPerToken per_token) { return bandwidth / per_token; }

double orders_of_magnitude(BytesPerSecond a, BytesPerSecond b) { return std::log10(a.value() / b.value()); }

double expected_defects(PerSquareMeter d, SquareMeters area) { return (d * area).value(); }

double poisson_yield(double lambda) { return std::exp(-lambda); }

double murphy_yield(double lambda) {
  if (lambda <= 0) return 1.0;
  // -expm1 keeps (1 - e^-x) exact for the tiny lambda of one small core.
  const double y = -std::expm1(-lambda) / lambda;
  return y * y;
}

double defective_cores(double cores, PerSquareMeter d, SquareMeters core_area) {
  return cores * -std::expm1(-expected_defects(d, core_area));
}

}  // namespace infracalc::chip
