// Chip anatomy: peak rates from the matrix units, models held in on-chip SRAM, wafer-scale cores,
// sparing and die yield. Typed formulas only; the calculators read inputs and explain.
#pragma once

#include <cstdint>

#include "units/system.hpp"

namespace infracalc::chip {

/// Defect density: defects per unit area, stored per square metre (0.1 /cm2 = 1000 /m2).
using PerSquareMeter = u::Q<u::per<boost::units::dimensionless_type, boost::units::area_dimension>>;

/// MACs one matrix unit completes per cycle: rows x cols for a systolic array (a 256x256 MXU: 65,536).
[[nodiscard]] double systolic_macs(std::int64_t rows, std::int64_t cols);

/// MACs the whole chip completes per cycle: compute units x matrix units per unit x MACs per matrix unit.
[[nodiscard]] double chip_macs_per_cycle(std::int64_t compute_units, std::int64_t matrix_units, double macs_per_unit);

/// Peak rate = MACs per cycle x operations per MAC (2: a multiply and an add) x clock.
[[nodiscard]] FlopsPerSecond peak_rate(double macs_per_cycle, double ops_per_mac, PerSecond clock);

/// The clock at which `macs_per_cycle` x `ops_per_mac` reaches `peak` (the clock a quoted peak assumes).
[[nodiscard]] PerSecond implied_clock(FlopsPerSecond peak, double macs_per_cycle, double ops_per_mac);

/// Single-stream decode ceiling: every weight byte read once per token, tokens/s = bandwidth / bytes per token.
[[nodiscard]] TokensPerSecond decode_ceiling(BytesPerSecond bandwidth, BytesPerToken per_token);

/// Orders of magnitude between two bandwidths: log10(a / b).
[[nodiscard]] double orders_of_magnitude(BytesPerSecond a, BytesPerSecond b);

/// Expected defects on `area` at defect density `d` (Poisson mean, lambda = D x A).
[[nodiscard]] double expected_defects(PerSquareMeter d, SquareMeters area);

/// Poisson yield: the share of dies (or cores) with no defect, exp(-lambda).
[[nodiscard]] double poisson_yield(double lambda);

/// Murphy's yield model: ((1 - exp(-lambda)) / lambda)^2 (Murphy 1964), 1 at lambda = 0.
[[nodiscard]] double murphy_yield(double lambda);

/// Expected defective cores among `cores` of area `core_area` each: cores x (1 - exp(-D x A_core)).
[[nodiscard]] double defective_cores(double cores, PerSquareMeter d, SquareMeters core_area);

}  // namespace infracalc::chip
