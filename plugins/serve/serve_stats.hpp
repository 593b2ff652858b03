// What a simulation run adds up to: throughput, latency percentiles, occupancy over time, and the
// time averages Little's law relates.
#pragma once

#include <cstdint>
#include <vector>

#include "plugins/serve/serve_sim.hpp"
#include "units/system.hpp"

namespace infracalc::serve {

/// The q-quantile (0 ≤ q ≤ 1) of a sample by linear interpolation between order statistics (Hyndman and
/// Fan's definition 7, the default of R and NumPy); 0 for an empty sample. Sorts `values`.
[[nodiscard]] double quantile(std::vector<double>& values, double q);

/// A latency distribution.
struct Percentiles {
  /// Median.
  Seconds p50;
  /// 95th percentile.
  Seconds p95;
  /// 99th percentile.
  Seconds p99;
  /// Mean.
  Seconds mean;
  /// Largest.
  Seconds max;
  /// Values behind it.
  std::int64_t count = 0;
};

/// Percentiles of a sample of times in seconds.
[[nodiscard]] Percentiles percentiles(std::vector<double> seconds);

/// The headline figures of a run.
struct Summary {
  /// Requests answered.
  std::int64_t requests = 0;
  /// From t = 0 to the last answer.
  Seconds makespan;
  /// Output tokens per second over the makespan.
  TokensPerSecond output_rate;
  /// Prompt and output tokens per second over the makespan (recomputed prompt tokens not counted).
  TokensPerSecond total_rate;
  /// Answers per second over the makespan.
  PerSecond request_rate;
  /// Time to first token.
  Percentiles ttft;
  /// Time per output token after the first (requests with one output token excluded).
  Percentiles tpot;
  /// End-to-end latency (arrival to answer).
  Percentiles latency;
  /// Queueing delay (arrival to first scheduled).
  Percentiles queue;
  /// Sequences in the batch, averaged over the makespan (idle time counts as zero).
  double mean_running = 0;
  /// Sequences in the batch, averaged over the time steps ran.
  double mean_running_busy = 0;
  /// Requests in the system (waiting or running), averaged over the makespan: ∫N(t)dt / makespan,
  /// integrated over arrival and answer events.
  double mean_in_system = 0;
  /// Mean time from first scheduled to answer.
  Seconds mean_residence;
  /// Share of the makespan spent running steps.
  double busy_fraction = 0;
  /// Mean length of steps that decoded without prefilling.
  Seconds mean_decode_step;
  /// Mean length of steps that prefilled.
  Seconds mean_prefill_step;
  /// KV pool in use, averaged over the time steps ran (0 when the cache is not limited).
  double mean_kv_use = 0;
  /// Most of the pool in use at once.
  double peak_kv_use = 0;
};

/// Summarises a run; `kv_blocks` is the pool size (0: not limited).
[[nodiscard]] Summary summarize(const SimResult& r, std::int64_t kv_blocks);

/// The p95 TTFT and TPOT of a run, as summarize gives them, without the rest of its summary.
struct TargetLatencies {
  /// 95th percentile of the time to first token.
  Seconds ttft_p95;
  /// 95th percentile of the time per output token (0 when no request has more than one).
  Seconds tpot_p95;
  /// Requests with more than one output token, behind tpot_p95.
  std::int64_t tpot_count = 0;
};

/// The latencies a latency-target search compares with its targets: what summarize(r).ttft.p95 and .tpot.p95 are,
/// for the search's dozens of runs, without sorting the run's other latencies and events.
[[nodiscard]] TargetLatencies target_latencies(const SimResult& r);

/// Requests answered within both targets (a target of zero is not checked).
[[nodiscard]] std::int64_t within_targets(const SimResult& r, Seconds ttft_target, Seconds tpot_target);

/// The engine over one interval of time.
struct OccupancyBin {
  /// Start (s).
  double start = 0;
  /// End (s).
  double end = 0;
  /// Sequences in the batch, time-averaged.
  double running = 0;
  /// Requests waiting, time-averaged.
  double waiting = 0;
  /// KV pool in use, time-averaged.
  double kv_use = 0;
  /// Output tokens produced in the interval, per second.
  double output_rate = 0;
  /// Steps that started in the interval.
  std::int64_t steps = 0;
};

/// `bins` equal intervals over the makespan (at least one).
[[nodiscard]] std::vector<OccupancyBin> occupancy(const SimResult& r, int bins, std::int64_t kv_blocks);

}  // namespace infracalc::serve
