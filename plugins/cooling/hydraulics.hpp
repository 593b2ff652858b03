// Pipe hydraulics: Reynolds number, the Darcy friction factor (laminar 64/Re, Colebrook-White when
// turbulent), Darcy-Weisbach pressure drop, pipe size for a design velocity, how the drop scales with
// flow, and pumping power.
#pragma once

#include "plugins/cooling/coolant.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// Reynolds number ρ v D / μ.
[[nodiscard]] Number reynolds(KilogramsPerCubicMeter density, MetersPerSecond velocity, Meters diameter, PascalSeconds viscosity);
/// Darcy friction factor: 64/Re below Re 2300; above, the Colebrook-White equation
/// 1/√f = −2 log10(ε/(3.7 D) + 2.51/(Re √f)) (Colebrook 1939), solved by Newton's method on 1/√f.
[[nodiscard]] Number friction_factor(Number re, Number relative_roughness);
/// Mean velocity of a volume flow in a round pipe.
[[nodiscard]] MetersPerSecond mean_velocity(CubicMetersPerSecond flow, Meters diameter);
/// Inside diameter that carries a flow at a mean velocity: d = √(4 Q / (π v)).
[[nodiscard]] Meters diameter_for_velocity(CubicMetersPerSecond flow, MetersPerSecond velocity);

/// A round pipe.
struct Pipe {
  /// Length.
  Meters length;
  /// Inside diameter.
  Meters diameter;
  /// Absolute roughness of the wall.
  Meters roughness;
};

/// The state of a flow in a pipe.
struct PipeFlow {
  /// Mean velocity.
  MetersPerSecond velocity;
  /// Reynolds number.
  Number reynolds;
  /// Darcy friction factor.
  Number friction;
  /// Pressure drop over the pipe: f (L/D) ρ v²/2 (Darcy-Weisbach).
  Pascals pressure_drop;
};

/// Darcy-Weisbach for a flow through a pipe at the coolant state.
[[nodiscard]] PipeFlow pipe_flow(CubicMetersPerSecond flow, const Pipe& pipe, const CoolantState& s);

/// Local exponent n = d ln ΔP / d ln Q of a pipe at a flow (fixed geometry and fluid): 2 + d ln f / d ln Re;
/// 1 when laminar, approaching 2 when fully rough.
[[nodiscard]] Number local_exponent(CubicMetersPerSecond flow, const Pipe& pipe, const CoolantState& s);
/// Exponent between two measured points: n = ln(ΔP2/ΔP1) / ln(Q2/Q1).
[[nodiscard]] Number exponent_between(Pascals dp1, CubicMetersPerSecond q1, Pascals dp2, CubicMetersPerSecond q2);
/// A pressure drop scaled from a reference point: ΔP = ΔP_ref (Q/Q_ref)^n.
[[nodiscard]] Pascals scale_pressure_drop(Pascals dp_ref, CubicMetersPerSecond q_ref, CubicMetersPerSecond q, Number n);
/// Hydraulic power Q ΔP (divide by the pump's wire-to-water efficiency for its electric power).
[[nodiscard]] Watts hydraulic_power(CubicMetersPerSecond flow, Pascals dp);

}  // namespace infracalc::cooling
