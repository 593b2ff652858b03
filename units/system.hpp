// The compile-time unit system: Boost.Units over nine base dimensions, and the named quantity types
// that plugin code takes and returns. `Watts + Bytes` does not compile.
#pragma once

#include <boost/mpl/divides.hpp>
#include <boost/mpl/times.hpp>
#include <boost/units/absolute.hpp>
#include <boost/units/base_dimension.hpp>
#include <boost/units/base_unit.hpp>
#include <boost/units/base_units/information/byte.hpp>
#include <boost/units/base_units/si/ampere.hpp>
#include <boost/units/base_units/si/kelvin.hpp>
#include <boost/units/base_units/si/kilogram.hpp>
#include <boost/units/base_units/si/meter.hpp>
#include <boost/units/base_units/si/second.hpp>
#include <boost/units/derived_dimension.hpp>
#include <boost/units/make_system.hpp>
#include <boost/units/physical_dimensions.hpp>
#include <boost/units/quantity.hpp>
#include <boost/units/unit.hpp>

namespace infracalc::u {

namespace bu = boost::units;

/// Base dimension: money (USD).
struct currency_base_dimension : bu::base_dimension<currency_base_dimension, 101> {};
/// Base dimension: tokens.
struct token_base_dimension : bu::base_dimension<token_base_dimension, 102> {};
/// Base dimension: floating-point operations.
struct flop_base_dimension : bu::base_dimension<flop_base_dimension, 103> {};

/// Dimension of money.
using currency_dimension = currency_base_dimension::dimension_type;
/// Dimension of a token count.
using token_dimension = token_base_dimension::dimension_type;
/// Dimension of an operation count.
using flop_dimension = flop_base_dimension::dimension_type;

/// Base unit: the US dollar.
struct usd_base_unit : bu::base_unit<usd_base_unit, currency_dimension, 101> {
  /// Unit name.
  static const char* name() { return "US dollar"; }
  /// Unit symbol.
  static const char* symbol() { return "USD"; }
};
/// Base unit: one token.
struct token_base_unit : bu::base_unit<token_base_unit, token_dimension, 102> {
  /// Unit name.
  static const char* name() { return "token"; }
  /// Unit symbol.
  static const char* symbol() { return "tok"; }
};
/// Base unit: one floating-point operation.
struct flop_base_unit : bu::base_unit<flop_base_unit, flop_dimension, 103> {
  /// Unit name.
  static const char* name() { return "floating-point operation"; }
  /// Unit symbol.
  static const char* symbol() { return "FLOP"; }
};

/// The one homogeneous system: m, kg, s, K, A, B, USD, tok, FLOP.
using System = bu::make_system<bu::si::meter_base_unit, bu::si::kilogram_base_unit, bu::si::second_base_unit,
                               bu::si::kelvin_base_unit, bu::si::ampere_base_unit, bu::information::byte_base_unit,
                               usd_base_unit, token_base_unit, flop_base_unit>::type;

/// A quantity of dimension D in the system, stored as double in base units.
template <class D>
using Q = bu::quantity<bu::unit<D, System>, double>;

/// Dimension of a quotient of two dimensions.
template <class A, class B>
using per = typename boost::mpl::divides<A, B>::type;
/// Dimension of a product of two dimensions.
template <class A, class B>
using times = typename boost::mpl::times<A, B>::type;

/// Information dimension (bytes).
using information_dimension = bu::information_dimension;

}  // namespace infracalc::u

namespace infracalc {

/// A plain number (counts such as layers, GPUs and parameters stay dimensionless).
using Number = u::Q<boost::units::dimensionless_type>;
/// Data size, stored in bytes.
using Bytes = u::Q<u::information_dimension>;
/// Time, stored in seconds.
using Seconds = u::Q<boost::units::time_dimension>;
/// Length, stored in metres.
using Meters = u::Q<boost::units::length_dimension>;
/// Area, stored in square metres.
using SquareMeters = u::Q<boost::units::area_dimension>;
/// Volume, stored in cubic metres.
using CubicMeters = u::Q<boost::units::volume_dimension>;
/// Mass, stored in kilograms.
using Kilograms = u::Q<boost::units::mass_dimension>;
/// Temperature difference, stored in kelvin.
using Kelvin = u::Q<boost::units::temperature_dimension>;
/// Temperature point (absolute), stored in kelvin above absolute zero.
using TemperaturePoint = boost::units::quantity<boost::units::absolute<boost::units::unit<boost::units::temperature_dimension, u::System>>, double>;
/// Current, stored in amperes.
using Amperes = u::Q<boost::units::current_dimension>;
/// Voltage, stored in volts.
using Volts = u::Q<boost::units::electric_potential_dimension>;
/// Resistance, stored in ohms.
using Ohms = u::Q<boost::units::resistance_dimension>;
/// Power, stored in watts.
using Watts = u::Q<boost::units::power_dimension>;
/// Energy, stored in joules.
using Joules = u::Q<boost::units::energy_dimension>;
/// Pressure, stored in pascals.
using Pascals = u::Q<boost::units::pressure_dimension>;
/// Frequency or a count per time, stored per second.
using PerSecond = u::Q<boost::units::frequency_dimension>;
/// Money, stored in US dollars.
using Usd = u::Q<u::currency_dimension>;
/// Token count, stored in tokens.
using Tokens = u::Q<u::token_dimension>;
/// Operation count, stored in FLOP.
using Flops = u::Q<u::flop_dimension>;
/// Data rate, stored in bytes per second.
using BytesPerSecond = u::Q<u::per<u::information_dimension, boost::units::time_dimension>>;
/// Compute rate, stored in FLOP per second.
using FlopsPerSecond = u::Q<u::per<u::flop_dimension, boost::units::time_dimension>>;
/// Token rate, stored in tokens per second.
using TokensPerSecond = u::Q<u::per<u::token_dimension, boost::units::time_dimension>>;
/// Arithmetic intensity, stored in FLOP per byte.
using FlopsPerByte = u::Q<u::per<u::flop_dimension, u::information_dimension>>;
/// Data per token, stored in bytes per token.
using BytesPerToken = u::Q<u::per<u::information_dimension, u::token_dimension>>;
/// Price per time (an hourly price), stored in USD per second.
using UsdPerHour = u::Q<u::per<u::currency_dimension, boost::units::time_dimension>>;
/// Price per token, stored in USD per token.
using UsdPerToken = u::Q<u::per<u::currency_dimension, u::token_dimension>>;
/// Energy tariff, stored in USD per joule.
using UsdPerJoule = u::Q<u::per<u::currency_dimension, boost::units::energy_dimension>>;
/// Energy per token, stored in joules per token.
using JoulesPerToken = u::Q<u::per<boost::units::energy_dimension, u::token_dimension>>;
/// Energy per data, stored in joules per byte (pJ/bit on output).
using JoulesPerByte = u::Q<u::per<boost::units::energy_dimension, u::information_dimension>>;
/// Volume flow, stored in cubic metres per second.
using CubicMetersPerSecond = u::Q<u::per<boost::units::volume_dimension, boost::units::time_dimension>>;
/// Mass flow, stored in kilograms per second.
using KilogramsPerSecond = u::Q<u::per<boost::units::mass_dimension, boost::units::time_dimension>>;
/// Density, stored in kilograms per cubic metre.
using KilogramsPerCubicMeter = u::Q<boost::units::mass_density_dimension>;
/// Specific heat capacity, stored in J/(kg·K).
using JoulesPerKilogramKelvin = u::Q<boost::units::specific_heat_capacity_dimension>;
/// Heat flux, stored in W/m².
using WattsPerSquareMeter = u::Q<u::per<boost::units::power_dimension, boost::units::area_dimension>>;
/// Thermal resistance, stored in K/W.
using KelvinPerWatt = u::Q<u::per<boost::units::temperature_dimension, boost::units::power_dimension>>;
/// Carbon intensity, stored in kg per joule.
using KilogramsPerJoule = u::Q<u::per<boost::units::mass_dimension, boost::units::energy_dimension>>;
/// Water-use intensity, stored in m³ per joule.
using CubicMetersPerJoule = u::Q<u::per<boost::units::volume_dimension, boost::units::energy_dimension>>;
/// Price per power (a build cost per MW), stored in USD per watt.
using UsdPerWatt = u::Q<u::per<u::currency_dimension, boost::units::power_dimension>>;
/// Storage price per token and time (a prompt-cache storage fee), stored in USD per token-second.
using UsdPerTokenSecond = u::Q<u::per<u::per<u::currency_dimension, u::token_dimension>, boost::units::time_dimension>>;
/// Computation per token, stored in FLOP per token.
using FlopsPerToken = u::Q<u::per<u::flop_dimension, u::token_dimension>>;

/// Wire energy per bit per distance, stored in joules per byte per metre (pJ/bit/mm on output).
using JoulesPerByteMeter = u::Q<u::per<u::per<boost::units::energy_dimension, u::information_dimension>, boost::units::length_dimension>>;
/// Length change per temperature difference (wavelength drift), stored in metres per kelvin.
using MetersPerKelvin = u::Q<u::per<boost::units::length_dimension, boost::units::temperature_dimension>>;

/// Speed, stored in metres per second.
using MetersPerSecond = u::Q<boost::units::velocity_dimension>;
/// Dynamic viscosity, stored in pascal-seconds.
using PascalSeconds = u::Q<boost::units::dynamic_viscosity_dimension>;
/// Electrical resistivity, stored in ohm-metres.
using OhmMeters = u::Q<u::times<boost::units::resistance_dimension, boost::units::length_dimension>>;
/// A coefficient per kelvin (temperature coefficient of resistance), stored per kelvin.
using PerKelvin = u::Q<u::per<boost::units::dimensionless_type, boost::units::temperature_dimension>>;
/// Coolant flow per unit of heat (L/min per kW), stored in m³ per joule.
using CubicMetersPerSecondPerWatt = u::Q<u::per<u::per<boost::units::volume_dimension, boost::units::time_dimension>, boost::units::power_dimension>>;
/// Ramp rate of a power draw, stored in watts per second.
using WattsPerSecond = u::Q<u::per<boost::units::power_dimension, boost::units::time_dimension>>;
/// Thermal conductivity, stored in W/(m·K).
using WattsPerMeterKelvin = u::Q<boost::units::thermal_conductivity_dimension>;
/// Specific energy (latent heat of vaporisation, enthalpy per mass), stored in J/kg.
using JoulesPerKilogram = u::Q<u::per<boost::units::energy_dimension, boost::units::mass_dimension>>;

/// Builds a typed quantity from a value already in base units (the only way plugin code makes one from a double).
template <class Q>
constexpr Q from_base(double v) {
  return Q::from_value(v);
}

/// The value of a typed quantity in base units (for output and kernels).
template <class Q>
constexpr double base_value(const Q& q) {
  return q.value();
}

}  // namespace infracalc
