// Run-time dimensions: a vector of exponents over the nine base dimensions.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace infracalc {

/// The base dimensions, in the order of Dim's exponent vector.
enum class Base : std::uint8_t { length, mass, time, temperature, current, information, currency, token, flop };

/// Number of base dimensions.
inline constexpr std::size_t kBaseCount = 9;

/// A physical dimension as integer exponents of the base dimensions (byte, USD, token and FLOP included).
struct Dim {
  /// Exponent of each base dimension, indexed by Base.
  std::array<std::int8_t, kBaseCount> e{};

  /// Dimensionless.
  constexpr Dim() = default;
  /// A single base dimension raised to `power`.
  constexpr Dim(Base b, int power) { e[static_cast<std::size_t>(b)] = static_cast<std::int8_t>(power); }

  /// Exponent of one base dimension.
  [[nodiscard]] constexpr int operator[](Base b) const { return e[static_cast<std::size_t>(b)]; }
  /// True when every exponent is zero.
  [[nodiscard]] constexpr bool dimensionless() const {
    for (auto x : e)
      if (x != 0) return false;
    return true;
  }
  /// Sum of absolute exponents: a rough measure of how composite a dimension is.
  [[nodiscard]] constexpr int complexity() const {
    int c = 0;
    for (auto x : e) c += x < 0 ? -x : x;
    return c;
  }
  /// Dimension of a product.
  constexpr Dim operator*(const Dim& o) const {
    Dim d;
    for (std::size_t i = 0; i < kBaseCount; ++i) d.e[i] = static_cast<std::int8_t>(e[i] + o.e[i]);
    return d;
  }
  /// Dimension of a quotient.
  constexpr Dim operator/(const Dim& o) const {
    Dim d;
    for (std::size_t i = 0; i < kBaseCount; ++i) d.e[i] = static_cast<std::int8_t>(e[i] - o.e[i]);
    return d;
  }
  /// Dimension raised to an integer power.
  [[nodiscard]] constexpr Dim pow(int n) const {
    Dim d;
    for (std::size_t i = 0; i < kBaseCount; ++i) d.e[i] = static_cast<std::int8_t>(e[i] * n);
    return d;
  }
  /// Equality of every exponent.
  constexpr bool operator==(const Dim& o) const = default;
};

/// Named dimensions used throughout the code and the data files.
namespace dims {
inline constexpr Dim none{};
inline constexpr Dim length{Base::length, 1};
inline constexpr Dim mass{Base::mass, 1};
inline constexpr Dim time{Base::time, 1};
inline constexpr Dim temperature{Base::temperature, 1};
inline constexpr Dim current{Base::current, 1};
inline constexpr Dim information{Base::information, 1};
inline constexpr Dim currency{Base::currency, 1};
inline constexpr Dim token{Base::token, 1};
inline constexpr Dim flop{Base::flop, 1};
inline constexpr Dim area = length * length;
inline constexpr Dim volume = area * length;
inline constexpr Dim frequency = none / time;
inline constexpr Dim energy = mass * area / time / time;
inline constexpr Dim power = energy / time;
inline constexpr Dim voltage = power / current;
inline constexpr Dim resistance = voltage / current;
inline constexpr Dim pressure = mass / length / time / time;
inline constexpr Dim data_rate = information / time;
inline constexpr Dim flop_rate = flop / time;
inline constexpr Dim token_rate = token / time;
inline constexpr Dim money_rate = currency / time;
inline constexpr Dim money_per_token = currency / token;
inline constexpr Dim money_per_energy = currency / energy;
inline constexpr Dim volume_flow = volume / time;
inline constexpr Dim mass_flow = mass / time;
inline constexpr Dim density = mass / volume;
inline constexpr Dim specific_heat = energy / mass / temperature;
inline constexpr Dim heat_flux = power / area;
inline constexpr Dim intensity = flop / information;
inline constexpr Dim bytes_per_token = information / token;
inline constexpr Dim energy_per_token = energy / token;
inline constexpr Dim energy_per_bit = energy / information;
inline constexpr Dim carbon_intensity = mass / energy;
inline constexpr Dim water_intensity = volume / energy;
inline constexpr Dim money_per_power = currency / power;
inline constexpr Dim money_per_token_time = currency / token / time;
/// Wire energy per bit per unit distance (on-chip interconnect, pJ/bit/mm).
inline constexpr Dim energy_per_bit_length = energy / information / length;
/// Wavelength shift per kelvin (thermal drift of a ring modulator, nm/K).
inline constexpr Dim length_per_temperature = length / temperature;
inline constexpr Dim velocity = length / time;
inline constexpr Dim dynamic_viscosity = pressure * time;
inline constexpr Dim resistivity = resistance * length;
inline constexpr Dim per_temperature = none / temperature;
inline constexpr Dim flow_per_power = volume_flow / power;
inline constexpr Dim power_ramp = power / time;
inline constexpr Dim thermal_conductivity = power / length / temperature;
inline constexpr Dim specific_energy = energy / mass;
inline constexpr Dim flop_per_token = flop / token;
}  // namespace dims

/// Words for a dimension: "a data rate", or a base-unit formula when it has no common name.
[[nodiscard]] std::string dim_words(const Dim& d);
/// The dimension as base dimensions in words, e.g. "information/time".
[[nodiscard]] std::string dim_formula(const Dim& d);
/// An example value of this dimension, e.g. "3.35 TB/s"; empty when there is no stock example.
[[nodiscard]] std::string dim_example(const Dim& d);
/// The base-unit string used in machine output: "B/s", "W", "USD/tok", "J/tok", "kg/s".
[[nodiscard]] std::string base_unit_string(const Dim& d);

}  // namespace infracalc
