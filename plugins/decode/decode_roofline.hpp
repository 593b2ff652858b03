// The roofline (Williams, Waterman and Patterson, "Roofline: an insightful visual performance model",
// CACM 2009): a step is bound by memory or by arithmetic, whichever takes longer.
#pragma once

#include <optional>

#include "units/system.hpp"

namespace infracalc::decode {

/// A device's roof, already scaled by any achieved fractions (MBU, MFU).
struct Roof {
  /// Memory bandwidth the step's bytes stream at.
  BytesPerSecond bandwidth;
  /// Arithmetic rate; absent when only the memory side is known (compute time is then not modelled).
  std::optional<FlopsPerSecond> peak;
  /// FP32 rate of the vector units (CUDA cores, not tensor cores), where the catalog gives it: the expected
  /// figures run a matrix multiply of a few rows there, as a GEMV kernel, when that beats a tensor-core tile.
  std::optional<FlopsPerSecond> vector_peak = std::nullopt;
};

/// Ridge point: the arithmetic intensity at which memory and compute take equally long (peak ÷ bandwidth).
[[nodiscard]] FlopsPerByte ridge_point(FlopsPerSecond peak, BytesPerSecond bandwidth);
/// Attainable rate at an intensity: min(peak, bandwidth × intensity).
[[nodiscard]] FlopsPerSecond attainable(FlopsPerSecond peak, BytesPerSecond bandwidth, FlopsPerByte intensity);

/// Work and traffic of one step on one device.
struct StepCost {
  /// Arithmetic operations.
  Flops flops;
  /// Bytes moved between memory and the chip.
  Bytes bytes;
};

/// Operations per byte of a step.
[[nodiscard]] FlopsPerByte intensity(const StepCost& c);

/// How long one step takes on a roof.
struct StepTime {
  /// bytes ÷ bandwidth.
  Seconds memory;
  /// flops ÷ peak (zero when the roof has no peak).
  Seconds compute;
  /// Communication that does not overlap the step (tensor-parallel all-reduces), when modelled.
  Seconds communication;
  /// Fixed per-step overhead (kernel launches, scheduling), when given.
  Seconds overhead;
  /// max(memory, compute) + communication + overhead.
  Seconds total;
  /// True when memory time is at least the compute time.
  bool memory_bound = true;
};

/// Step time on a roof: memory and compute overlap perfectly, communication and overhead do not.
[[nodiscard]] StepTime step_time(const StepCost& c, const Roof& r, Seconds communication = Seconds{},
                                 Seconds overhead = Seconds{});

}  // namespace infracalc::decode
