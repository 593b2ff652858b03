// Sensible-heat balance of a liquid loop: mass flow for a heat load and a temperature rise
// (m = Q / (c_p ΔT)), the rise for a given flow, and volume flow at the coolant's density.
// The plugin's other math is in files named for their model: coolant, hydraulics, loop_solver, facility_math,
// climate and ladder (the cooling technology for a rack).
#pragma once

#include "plugins/cooling/coolant.hpp"
#include "units/expected.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// Mass flow that carries `heat` at a rise `rise`: m = Q / (c_p ΔT).
[[nodiscard]] KilogramsPerSecond mass_flow_for(Watts heat, JoulesPerKilogramKelvin cp, Kelvin rise);
/// Rise a mass flow takes on carrying `heat`: ΔT = Q / (m c_p).
[[nodiscard]] Kelvin rise_for(Watts heat, KilogramsPerSecond mass_flow, JoulesPerKilogramKelvin cp);
/// Volume flow of a mass flow at a density.
[[nodiscard]] CubicMetersPerSecond volume_flow(KilogramsPerSecond mass_flow, KilogramsPerCubicMeter density);
/// Mass flow of a volume flow at a density.
[[nodiscard]] KilogramsPerSecond mass_flow(CubicMetersPerSecond volume_flow, KilogramsPerCubicMeter density);

/// An operating point of a loop carrying a heat load.
struct FlowPoint {
  /// Mass flow.
  KilogramsPerSecond mass_flow;
  /// Volume flow, metered on the supply side (at the supply temperature's density).
  CubicMetersPerSecond volume_flow;
  /// Temperature rise.
  Kelvin rise;
  /// Supply temperature.
  TemperaturePoint supply;
  /// Return temperature.
  TemperaturePoint outlet;
  /// Properties at the supply temperature (density for the volume flow).
  CoolantState at_supply;
  /// Properties at the mean of supply and return (specific heat for the balance).
  CoolantState at_mean;
  /// Iterations the mean temperature needed (1 when the rise is given).
  int iterations = 1;
};

/// The flow for a heat load and a rise: c_p at the mean temperature, density at the supply.
[[nodiscard]] Expected<FlowPoint> flow_for_rise(const Coolant& c, Watts heat, TemperaturePoint supply, Kelvin rise);
/// The rise for a heat load and a supply-side volume flow: the mean temperature is iterated until c_p
/// and the rise agree.
[[nodiscard]] Expected<FlowPoint> rise_for_flow(const Coolant& c, Watts heat, TemperaturePoint supply, CubicMetersPerSecond flow);

}  // namespace infracalc::cooling
