// A DC bus bar fed at one end with equal loads tapped at even spacing, solved node by node with a
// backward/forward sweep: the loss and drop the closed forms of `power distribution` approximate.
#pragma once

#include "units/system.hpp"

namespace infracalc::pwr {

/// How a tapped load draws current.
enum class LoadModel { constant_current, constant_power };

/// The solved bus bar.
struct BusbarSolution {
  /// Conduction loss in the bar (out and back).
  Watts loss;
  /// Voltage at the far tap.
  Volts far_voltage;
  /// Current at the feed.
  Amperes feed_current;
  /// Sweeps until the node voltages settled.
  int sweeps = 0;
};

/// Solves a bar of total path resistance `path` (out and back) feeding `taps` loads of power/taps each
/// from `source` volts. Constant-current loads draw (P/taps)/V_nominal; constant-power loads draw
/// (P/taps)/V at their own node.
[[nodiscard]] BusbarSolution solve_busbar(Watts power, Volts source, Ohms path, int taps, LoadModel model);

}  // namespace infracalc::pwr
