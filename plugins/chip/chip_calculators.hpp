// The chip plugin's calculators, one calc_<name>.cpp each (internal to the plugin: the descriptor lists them).
#pragma once

#include "host/plugin.hpp"

namespace infracalc {

/// `chip peak` (calc_peak.cpp).
[[nodiscard]] Calculator chip_peak_calculator();
/// `chip sram` (calc_sram.cpp).
[[nodiscard]] Calculator chip_sram_calculator();
/// `chip wafer` (calc_wafer.cpp).
[[nodiscard]] Calculator chip_wafer_calculator();

}  // namespace infracalc
