// A time-stepped simulation of the aggregate power of a synchronous training job: every accelerator
// alternates compute and wait phases with linear ramps, optionally offset by a random skew.
#pragma once

#include <cstdint>

#include "units/system.hpp"

namespace infracalc::pwr {

/// What to simulate.
struct SwingSetup {
  /// Accelerators.
  int gpus = 1024;
  /// Power of one accelerator at full compute.
  Watts gpu_power;
  /// Load while waiting, as a share of full.
  double low_fraction = 0.3;
  /// Compute phase of one iteration.
  Seconds compute;
  /// Wait phase of one iteration (a collective or checkpoint stall).
  Seconds wait;
  /// Linear ramp between the two.
  Seconds ramp;
  /// Largest random start offset of an accelerator (0: perfectly synchronous).
  Seconds skew;
  /// Iterations simulated.
  int iterations = 4;
  /// Time step.
  Seconds dt;
};

/// What the simulation measured on the aggregate power.
struct SwingMeasured {
  /// Highest aggregate power after the first iteration.
  Watts max;
  /// Lowest aggregate power after the first iteration.
  Watts min;
  /// Steepest change of the aggregate between two steps, per second.
  WattsPerSecond max_ramp;
  /// Time-average aggregate power over whole iterations.
  Watts mean;
};

/// Runs the simulation (deterministic for a seed).
[[nodiscard]] SwingMeasured simulate_swing(const SwingSetup& s, std::uint64_t seed);

}  // namespace infracalc::pwr
