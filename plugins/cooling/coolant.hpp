// Coolant properties against temperature: rows of density, specific heat and viscosity read from a
// catalog table (water, PG25), interpolated linearly, with optional fixed overrides.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog.hpp"
#include "units/expected.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// A coolant's properties at one temperature.
struct CoolantState {
  /// Density.
  KilogramsPerCubicMeter density;
  /// Specific heat capacity at constant pressure.
  JoulesPerKilogramKelvin specific_heat;
  /// Dynamic viscosity.
  PascalSeconds viscosity;
};

/// One row of a property table.
struct CoolantRow {
  /// Temperature of the row.
  TemperaturePoint temperature;
  /// Properties at that temperature.
  CoolantState state;
};

/// A coolant: a property table over a temperature range, plus fixed overrides.
class Coolant {
 public:
  /// A coolant from rows sorted by temperature (at least two).
  Coolant(std::string name, std::vector<CoolantRow> rows);
  /// Reads the `properties` rows of a catalog entry; errors name file:line:col.
  static Expected<Coolant> from_entry(const Entry& e);

  /// Properties at a temperature, interpolated linearly between rows; an error outside the table.
  [[nodiscard]] Expected<CoolantState> at(TemperaturePoint t) const;
  /// Specific enthalpy relative to `reference`: the exact integral of the piecewise-linear specific
  /// heat (an override makes it linear).
  [[nodiscard]] Expected<Joules> enthalpy_per_kg(TemperaturePoint t, TemperaturePoint reference) const;

  /// Replaces the table's density by a fixed value.
  void override_density(KilogramsPerCubicMeter v) { density_ = v; }
  /// Replaces the table's specific heat by a fixed value.
  void override_specific_heat(JoulesPerKilogramKelvin v) { cp_ = v; }
  /// Replaces the table's viscosity by a fixed value.
  void override_viscosity(PascalSeconds v) { viscosity_ = v; }

  /// Name (the catalog id).
  [[nodiscard]] const std::string& name() const { return name_; }
  /// Lowest temperature of the table.
  [[nodiscard]] TemperaturePoint lowest() const { return rows_.front().temperature; }
  /// Highest temperature of the table.
  [[nodiscard]] TemperaturePoint highest() const { return rows_.back().temperature; }

 private:
  std::string name_;
  std::vector<CoolantRow> rows_;
  std::optional<KilogramsPerCubicMeter> density_;
  std::optional<JoulesPerKilogramKelvin> cp_;
  std::optional<PascalSeconds> viscosity_;
};

/// A temperature point as text ("30 degC"), for messages.
[[nodiscard]] std::string point_text(TemperaturePoint t);
/// A temperature point from degrees Celsius (kernels and tests).
[[nodiscard]] TemperaturePoint from_celsius(double c);
/// A point shifted by a difference.
[[nodiscard]] TemperaturePoint shifted(TemperaturePoint t, Kelvin by);
/// The difference a − b of two points.
[[nodiscard]] Kelvin difference(TemperaturePoint a, TemperaturePoint b);

}  // namespace infracalc::cooling
