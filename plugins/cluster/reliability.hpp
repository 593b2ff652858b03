// Failures at scale: the fleet's mean time between failures, the checkpoint interval that minimises lost
// work (Young 1974; Daly 2006), the expected wall time and goodput of a run that checkpoints and restarts,
// and a Monte Carlo of exactly that process.
#pragma once

#include <cstdint>

#include "units/system.hpp"

namespace infracalc::cluster {

/// Fleet MTBF with independent exponential failures: per-device MTBF / devices.
[[nodiscard]] Seconds fleet_mtbf(Seconds per_device, double devices);

/// Young's first-order optimum checkpoint interval: sqrt(2 δ M) (Young 1974).
[[nodiscard]] Seconds young_interval(Seconds checkpoint, Seconds mtbf);

/// Daly's higher-order optimum (Daly 2006): sqrt(2δM)·[1 + (1/3)sqrt(δ/(2M)) + (1/9)(δ/(2M))] - δ
/// for δ < 2M, else M.
[[nodiscard]] Seconds daly_interval(Seconds checkpoint, Seconds mtbf);

/// Expected wall time to complete `work` of useful computation, checkpointing every `interval` of work at a
/// cost `checkpoint`, restarting in `restart` after each failure, with exponential failures of mean `mtbf`
/// that can strike at any moment, restarts included (Daly 2006): M e^{R/M} (e^{(τ+δ)/M} - 1) W / τ.
/// A last partial segment is counted as a whole one (W a multiple of τ).
[[nodiscard]] Seconds expected_wall_time(Seconds work, Seconds interval, Seconds checkpoint, Seconds restart, Seconds mtbf);

/// Expected time thrown away by a failure that strikes during a segment of length `segment`: the mean of an
/// exponential truncated to the segment, M - a/(e^{a/M} - 1) (about a/2 when a << M).
[[nodiscard]] Seconds expected_loss_per_failure(Seconds segment, Seconds mtbf);

/// What the failure Monte Carlo measured.
struct FailureSimResult {
  /// Failures that struck.
  std::int64_t failures = 0;
  /// Mean time between failures (wall time / failures).
  double mean_interval = 0;
  /// Wall time to finish the work.
  double wall = 0;
  /// Work and checkpoint time thrown away by failures that struck a work-plus-checkpoint segment.
  double lost = 0;
  /// Failures that struck a work-plus-checkpoint segment (the rest struck a restart).
  std::int64_t segment_failures = 0;
  /// Time spent restarting (completed and interrupted restarts).
  double restarting = 0;
  /// Time spent writing checkpoints that completed.
  double checkpointing = 0;
};

/// Simulates one run: segments of `interval` work plus `checkpoint`, failures drawn from an exponential of
/// mean `mtbf` (a seeded RNG), each failure discarding the segment in progress and costing `restart`
/// (itself interruptible). Times in seconds.
[[nodiscard]] FailureSimResult simulate_failures(double work, double interval, double checkpoint, double restart, double mtbf,
                                                 std::uint64_t seed);

}  // namespace infracalc::cluster
