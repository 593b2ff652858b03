// Conductors: resistivity of copper and aluminium at temperature, AWG sizes, the resistance of a
// run of cable or bus bar, and how loads spread along a bus bar change its loss and drop.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "units/expected.hpp"
#include "units/system.hpp"

namespace infracalc::pwr {

/// A conductor material.
struct ConductorMaterial {
  /// Name as typed: "copper", "aluminium".
  std::string_view name;
  /// Resistivity at 20 °C.
  OhmMeters resistivity_20c;
  /// Temperature coefficient of resistance at 20 °C.
  PerKelvin alpha_20c;
  /// Density, for conductor mass.
  KilogramsPerCubicMeter density;
  /// Where the figures come from.
  std::string_view source;
};

/// Every known conductor material.
[[nodiscard]] std::span<const ConductorMaterial> conductor_materials();
/// The material with this name ("copper", "aluminium" or "aluminum"), or nullptr.
[[nodiscard]] const ConductorMaterial* find_conductor_material(std::string_view name);
/// Names for choice inputs.
[[nodiscard]] std::vector<std::string_view> conductor_material_names();

/// Resistivity at a conductor temperature: ρ(T) = ρ20 · (1 + α20 · (T − 20 °C)).
[[nodiscard]] OhmMeters resistivity_at(const ConductorMaterial& m, TemperaturePoint t);

/// Cross-section of an AWG size ("12", "1/0", "4/0", "0000"); ASTM B258: d = 0.127 mm × 92^((36 − n)/39),
/// with 1/0 = 0, 2/0 = −1, 3/0 = −2, 4/0 = −3. Sizes from 4/0 to 40 are accepted.
[[nodiscard]] Expected<SquareMeters> awg_area(std::string_view gauge);

/// Resistance of a conductor: ρ · length / area.
[[nodiscard]] Ohms conductor_resistance(OhmMeters resistivity, Meters length, SquareMeters area);

/// Cross-section that keeps the conduction loss of a path to `max_loss`: A = I² ρ L_path k / P_max
/// for `conductors_loaded` conductors of length `length` each carrying `current` (k: distribution factor).
[[nodiscard]] SquareMeters area_for_loss(Amperes current, OhmMeters resistivity, Meters length, Number conductors_loaded,
                                         Number distribution_factor, Watts max_loss);

/// Continuous ampacity of an insulated building-wire conductor of this cross-section: NEC (NFPA 70) Table
/// 310.16, 90 °C column (not more than three current-carrying conductors in a raceway, 30 °C ambient),
/// interpolated log-log between the sizes 14 AWG (2.08 mm², 25 A) and 1000 kcmil (507 mm², 615 A); outside
/// that range the current density of the nearest end (12 A/mm², 1.21 A/mm²). Aluminium: the copper figure
/// x 0.78 (the table's aluminium column runs 77-81% of copper).
[[nodiscard]] Amperes building_wire_ampacity(const ConductorMaterial& m, SquareMeters area);

/// Loss of a conductor feeding `taps` equal loads spaced evenly along it, relative to the same total
/// current carried to its far end: (N+1)(2N+1)/(6N²); 1 for one load, → 1/3 for many.
[[nodiscard]] Number distributed_loss_factor(int taps);

/// Voltage drop to the far end of the same conductor, relative to a lumped load at the end: (N+1)/(2N).
[[nodiscard]] Number distributed_drop_factor(int taps);

}  // namespace infracalc::pwr
