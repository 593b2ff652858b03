#include "plugins/chip/chip_plugin.hpp"

#include "plugins/chip/chip_calculators.hpp"

namespace infracalc {

namespace {

Plugin make_chip_plugin() {
  Plugin p;
  p.name = "chip";
  p.doc = "docs/chip.md";
  p.calculators.push_back(chip_peak_calculator());
  p.calculators.push_back(chip_sram_calculator());
  p.calculators.push_back(chip_wafer_calculator());
  p.kernels = chip_kernels();
  return p;
}

}  // namespace

const Plugin& chip_plugin() {
  static const Plugin p = make_chip_plugin();
  return p;
}

}  // namespace infracalc
