// A small deterministic serving simulation with token-by-token cost accounting: requests arrive, are
// prefilled one at a time and decoded with iteration-level (continuous) batching; every second of accelerator
// time is charged to the tokens it produced, and idle time is charged to nobody. It stands in for the serve
// plugin's simulator, which does not exist yet; the cost kernels compare its sums with the closed forms.
#pragma once

#include <cstdint>
#include <vector>

#include "units/system.hpp"

namespace infracalc::cost {

/// A serving run to simulate on one accelerator (or one replica billed as one).
struct ServeConfig {
  /// Requests in the run.
  int requests = 64;
  /// Most sequences decoded together.
  int max_batch = 16;
  /// Prompt length range, tokens (uniform, inclusive).
  int prompt_min = 512;
  /// Upper end of the prompt range.
  int prompt_max = 512;
  /// Output length range, tokens (uniform, inclusive).
  int output_min = 256;
  /// Upper end of the output range.
  int output_max = 256;
  /// Mean arrival rate (Poisson); zero queues every request at t = 0.
  PerSecond arrival_rate;
  /// Time of a decode step with an empty batch (reading the weights).
  Seconds step_base;
  /// Time each sequence adds to a decode step (reading its KV cache).
  Seconds step_per_sequence;
  /// Prompt tokens processed per second during prefill.
  TokensPerSecond prefill_rate;
  /// Price of the accelerator per hour.
  UsdPerHour gpu_hour;
  /// Seed of the deterministic random stream.
  std::uint64_t seed = 1;
};

/// What the run added up to.
struct ServeRun {
  /// From t = 0 to the last completion (idle waits included).
  Seconds wall;
  /// Time spent prefilling.
  Seconds prefill_time;
  /// Time spent decoding.
  Seconds decode_time;
  /// Prompt tokens prefilled.
  Tokens input_tokens;
  /// Tokens generated.
  Tokens output_tokens;
  /// What the wall time cost.
  Usd paid;
  /// Cost charged to prompt tokens, one token at a time.
  Usd input_cost;
  /// Cost charged to generated tokens, one token at a time.
  Usd output_cost;
  /// Cost of the time nothing ran.
  Usd idle_cost;
  /// Cost charged to each request.
  std::vector<Usd> request_cost;
  /// Prompt and output length of each request.
  std::vector<std::pair<int, int>> request_tokens;
  /// Decode steps run.
  long steps = 0;
  /// Mean sequences per decode step.
  double mean_batch = 0.0;

  /// Busy share of the wall time.
  [[nodiscard]] double utilisation() const { return (prefill_time + decode_time) / wall; }
};

/// Decode throughput of a full batch: b / (step_base + b × step_per_sequence).
[[nodiscard]] TokensPerSecond batch_throughput(int batch, Seconds step_base, Seconds step_per_sequence);

/// Runs the simulation.
[[nodiscard]] ServeRun simulate_serving(const ServeConfig& cfg);

}  // namespace infracalc::cost
