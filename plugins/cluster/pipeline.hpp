// Pipeline parallelism: the bubble of GPipe, 1F1B and interleaved 1F1B schedules in closed form, the
// activations each schedule keeps in flight, and a step-by-step simulator that executes the schedules.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "units/system.hpp"

namespace infracalc::cluster {

/// Pipeline schedules.
enum class Schedule : std::uint8_t {
  gpipe,        ///< all forwards, then all backwards (Huang et al. 2019)
  one_f_one_b,  ///< 1F1B: warm-up forwards, then one forward one backward (PipeDream-Flush; Narayanan et al. 2021)
  interleaved,  ///< 1F1B over v model chunks per device (Narayanan et al. 2021, section 2.2.2)
};

/// Bubble fraction: idle share of a pipeline step, (P - 1) / (v·M + P - 1); v = 1 for GPipe and 1F1B
/// (Narayanan et al. 2021, sections 2.2.1 and 2.2.2, as a share of the whole step).
[[nodiscard]] double bubble_fraction(std::int64_t stages, std::int64_t microbatches, std::int64_t chunks);

/// Micro-batches whose activations the first stage holds at its peak, in units of one micro-batch through
/// one stage's layers: GPipe M; 1F1B min(P, M); interleaved P + (P - 1)/v chunks' worth when M >= P
/// (Korthikanti et al. 2022, section 4.3: L(1 + (P-1)/(P·v)) layers' worth).
[[nodiscard]] double stage_activations_in_flight(Schedule s, std::int64_t stages, std::int64_t microbatches, std::int64_t chunks);

/// One operation of a simulated schedule.
struct PipeOp {
  /// Device (stage) that runs it.
  int device = 0;
  /// Model chunk on the device (0 without interleaving).
  int chunk = 0;
  /// Micro-batch.
  int microbatch = 0;
  /// True for a backward pass.
  bool backward = false;
  /// Start time (units of one forward of one whole stage).
  double start = 0;
  /// End time.
  double end = 0;
};

/// What the simulator measured.
struct PipeSimResult {
  /// Every operation with its times, in execution order per device.
  std::vector<PipeOp> ops;
  /// Time from the first forward to the last backward.
  double makespan = 0;
  /// Busy time of one device (every device does the same work).
  double busy_per_device = 0;
  /// Idle share of the makespan, averaged over devices.
  double bubble = 0;
  /// Most micro-batch-chunks whose forward had run and backward had not, per device (index = device).
  std::vector<int> peak_in_flight;
};

/// Executes a schedule step by step: each device runs its operations in the schedule's order, each as soon
/// as the device is free and its inputs exist (a forward needs the previous stage's forward of the same
/// micro-batch, a backward the next stage's backward and its own forward). Forward of one chunk takes
/// `forward`/v, backward `backward`/v. Throws UserError on impossible inputs (interleaved with M not a
/// multiple of P).
[[nodiscard]] PipeSimResult simulate_pipeline(Schedule s, int stages, int microbatches, int chunks, double forward,
                                              double backward);

/// The layers stage `s` (0-based) holds when `layers` layers split over `stages` stages as evenly as possible
/// (earlier stages take the remainder): {first, last}, 1-based.
[[nodiscard]] std::pair<int, int> stage_layers(int layers, int stages, int s);

/// "gpipe", "1f1b", "interleaved".
[[nodiscard]] const char* schedule_name(Schedule s);

}  // namespace infracalc::cluster
