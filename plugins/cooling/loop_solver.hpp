// A heat-balance and hydraulic solver for a secondary cooling loop: racks in parallel between a
// supply and a return header fed by a CDU, each rack with a cold-plate pressure-drop curve and its
// hoses. Node pressures are solved by Newton's method on mass conservation; pipe drops use
// Darcy-Weisbach with a Colebrook friction factor at the local temperature; rack outlets and the mixed
// return follow from enthalpy balances on the coolant's table; the two are iterated to agreement.
#pragma once

#include <string>
#include <vector>

#include "plugins/cooling/coolant.hpp"
#include "plugins/cooling/hydraulics.hpp"
#include "units/expected.hpp"
#include "units/system.hpp"

namespace infracalc::cooling {

/// Pressure-drop curve of a rack's cold plates (or of its whole liquid path): dP = dP_ref (Q/Q_ref)^n.
struct PlateCurve {
  /// Drop at the reference flow.
  Pascals dp_ref;
  /// Reference volume flow.
  CubicMetersPerSecond q_ref;
  /// Exponent n.
  Number exponent;
};

/// One rack on the loop.
struct LoopRack {
  /// Label.
  std::string name;
  /// Heat the rack puts into the liquid.
  Watts heat;
  /// Its cold-plate curve.
  PlateCurve plate;
  /// Its supply and return hoses together (length 0: none).
  Pipe hose;
};

/// The loop.
struct LoopSpec {
  /// Racks in order along the headers, nearest the CDU first.
  std::vector<LoopRack> racks;
  /// One header segment between neighbouring taps, supply and return alike (length 0: ideal headers).
  Pipe header;
  /// Reverse-return headers (every rack sees the same header length) instead of direct return.
  bool reverse_return = false;
  /// Volume flow the CDU delivers, at the supply temperature.
  CubicMetersPerSecond total_flow;
  /// Supply temperature.
  TemperaturePoint supply;
};

/// One rack's solved state.
struct LoopBranch {
  /// Volume flow at the supply temperature.
  CubicMetersPerSecond flow;
  /// Mass flow.
  KilogramsPerSecond mass_flow;
  /// Pressure drop across the rack (hoses and plates).
  Pascals dp;
  /// Outlet temperature.
  TemperaturePoint outlet;
  /// Rise across the rack.
  Kelvin rise;
};

/// The solved loop.
struct LoopSolution {
  /// Racks in the order given.
  std::vector<LoopBranch> branches;
  /// Temperature of the mixed return at the CDU.
  TemperaturePoint mixed_return;
  /// Pressure drop from the CDU outlet to its inlet.
  Pascals loop_dp;
  /// Heat the coolant picked up: m_total (h(T_return) − h(T_supply)).
  Watts heat_picked_up;
  /// |sum of rack mass flows − total| / total.
  double mass_residual = 0.0;
  /// Largest |mass imbalance| at any node after the last Newton step, relative to the total.
  double node_residual = 0.0;
  /// Outer (temperature) iterations.
  int outer_iterations = 0;
  /// Newton iterations, all outer iterations together.
  int newton_iterations = 0;
};

/// Solves the loop. Errors when temperatures leave the coolant table or the iteration fails.
[[nodiscard]] Expected<LoopSolution> solve_loop(const LoopSpec& spec, const Coolant& coolant);

/// The solver's own Darcy-Weisbach drop for a mass flow in a pipe: its Colebrook factor comes from a
/// fixed-point iteration, independent of hydraulics.hpp's Newton solution (the kernels compare them).
[[nodiscard]] Pascals solver_pipe_drop(const Pipe& pipe, KilogramsPerSecond mass_flow, const CoolantState& s);

}  // namespace infracalc::cooling
