// Closed forms of serving: steady-state throughput of a saturated batch, Little's law, the padding of
// static batches, pod and rack capacity, latency budgets, multimodal prompt tokens, prefill/decode pool
// ratios and diffusion sampler time. The simulator is checked against the first three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/serve/serve_step.hpp"
#include "units/system.hpp"

namespace infracalc::serve {

/// Most decode steps decode_time prices one by one (a guard against runaway inputs).
inline constexpr std::int64_t kMaxPricedSteps = 10'000'000;

// --- steady state ---

/// Decode throughput of a batch that stays full: batch / step time (each step yields one token per sequence).
[[nodiscard]] TokensPerSecond batch_throughput(double batch, Seconds step);

/// One cycle of a saturated replica serving requests of constant length: a cohort of `batch` requests is
/// prefilled (prompts grouped up to `step_tokens` per step, at least one per step) and then decoded for
/// output − 1 steps (the first token comes out of the prefill) at contexts prompt .. prompt + output − 2.
struct SaturatedCycle {
  /// Sequences per cohort.
  int batch = 0;
  /// Prefill steps of the cohort.
  std::int64_t prefill_steps = 0;
  /// Time of those prefill steps.
  Seconds prefill;
  /// Time of the cohort's decode steps.
  Seconds decode;
  /// prefill + decode.
  Seconds cycle;
  /// Mean decode step.
  Seconds mean_step;
  /// batch × output / cycle.
  TokensPerSecond output_rate;
  /// batch / cycle.
  PerSecond request_rate;
};

/// The saturated cycle priced by `model`.
[[nodiscard]] SaturatedCycle saturated_cycle(const StepModel& model, int batch, std::int64_t prompt, std::int64_t output,
                                             std::int64_t step_tokens);

/// Steady state of a saturated continuous-batching replica whose requests arrive one at a time (staggered):
/// every slot of a full batch decodes, each request costs one prefill step of its prompt and output − 1
/// decode slot-steps. With the decode step priced at the mean slot context prompt + E[(o−1)(o−2)/2] / E[o−1]
/// (exact when the step is memory-bound, since its KV reads grow linearly with the summed context):
/// requests/s = 1 / (E[o−1] × step / batch + prefill).
struct SteadyState {
  /// Mean context of a decoding slot.
  double mean_context = 0;
  /// Decode step of a full batch at that context.
  Seconds decode_step;
  /// Prefill step of one prompt.
  Seconds prefill;
  /// Answers per second.
  PerSecond request_rate;
  /// Output tokens per second (E[o] per answer).
  TokensPerSecond output_rate;
};

/// The staggered steady state from the output-length moments E[o − 1] and E[(o − 1)(o − 2) / 2].
[[nodiscard]] SteadyState steady_state(const StepModel& model, int batch, std::int64_t prompt, double mean_decode_steps,
                                       double mean_decode_context_sum);

/// Steady state of a saturated replica with chunked prefill (Agrawal et al., "Sarathi-Serve", OSDI 2024):
/// prompts ride in the decode steps, so the weights a step reads serve both. Requests of `prompt` +
/// `output` tokens; at most `max_batch` decoding. A cycle of `steps` steps admits `prompts` prompts in its
/// first step (batch × steps = prompts × (output − 1) keeps the batch full), the others only decode, every
/// decoding slot at the mean context prompt + (output − 2) / 2.
struct ChunkedSteadyState {
  /// Sequences decoding.
  double batch = 0;
  /// Prompts admitted per cycle.
  std::int64_t prompts = 0;
  /// Steps per cycle.
  std::int64_t steps = 0;
  /// Time of one cycle.
  Seconds cycle;
  /// Answers per second.
  PerSecond request_rate;
  /// Output tokens per second.
  TokensPerSecond output_rate;
};

/// The chunked-prefill steady state priced by `model`.
[[nodiscard]] ChunkedSteadyState chunked_steady_state(const StepModel& model, std::int64_t max_batch, std::int64_t prompt,
                                                      std::int64_t output);

/// Little's law: mean number in a system = arrival rate × mean time in it (Little 1961).
[[nodiscard]] double little_concurrency(PerSecond rate, Seconds time_in_system);

/// A closed loop of `users` with mean response time R and think time Z: throughput = users / (R + Z)
/// (the interactive response-time law, Little's law applied to the whole loop).
[[nodiscard]] PerSecond closed_loop_throughput(int users, Seconds response, Seconds think);

/// Padding of static batches formed first come, first served, `batch` requests at a time: each batch
/// computes slots × its longest output token slots and uses the sum of its outputs.
struct StaticPadding {
  /// Batches formed.
  std::int64_t batches = 0;
  /// Σ slots × longest output.
  std::int64_t slot_steps = 0;
  /// Σ outputs.
  std::int64_t used = 0;
  /// slot_steps − used: the idle decode slots.
  std::int64_t idle = 0;
  /// used / slot_steps.
  double utilisation = 0;
};

/// Counts the padding of static batches of `batch` over `outputs` in order.
[[nodiscard]] StaticPadding static_padding(const std::vector<std::int64_t>& outputs, int batch);

// --- capacity ---

/// Tokens per second of `gpus` accelerators at `per_gpu` each.
[[nodiscard]] TokensPerSecond pod_throughput(double gpus, TokensPerSecond per_gpu);

/// Answers per second: token throughput / tokens per answer.
[[nodiscard]] PerSecond answers_per_second(TokensPerSecond throughput, Tokens per_answer);

/// Replicas needed for `target` answers per second when one replica sustains `per_replica` (rounded up).
[[nodiscard]] std::int64_t replicas_for(PerSecond target, PerSecond per_replica);

// --- latency ---

/// Time of a prefill of `prompt` tokens of which `cached` are already in the KV cache (a prefix-cache
/// hit): only the uncached suffix is computed, attending over the cached prefix.
[[nodiscard]] Seconds prefill_time(const StepModel& model, std::int64_t prompt, std::int64_t cached);

/// Time to decode `tokens` tokens in a batch of `batch` sequences that all start at `context` cached
/// tokens and grow together (one step per token; the model's step time at each context). Throws UserError
/// beyond kMaxPricedSteps steps.
[[nodiscard]] Seconds decode_time(const StepModel& model, int batch, std::int64_t context, std::int64_t tokens);

/// A turn with `tokens` more generated tokens at `tpot` each: base + tokens × tpot.
[[nodiscard]] Seconds turn_time(Seconds base, Tokens tokens, Seconds tpot);

// --- multimodal ---

/// Patch tokens of an image: ceil(width / patch) × ceil(height / patch) patches, divided by `merge` (the
/// patches a projector merges into one token, e.g. 4 for a 2×2 merge), rounded up.
[[nodiscard]] std::int64_t image_tokens(std::int64_t width, std::int64_t height, std::int64_t patch, std::int64_t merge);

/// Frames sampled from a clip: floor(duration × fps), at least one.
[[nodiscard]] std::int64_t video_frames(Seconds duration, PerSecond fps);

/// Tokens of `frames` frames at `per_frame` tokens, `temporal` consecutive frames merged into one
/// (Qwen2-VL merges 2): ceil(frames / temporal) × per_frame.
[[nodiscard]] std::int64_t video_tokens(std::int64_t frames, std::int64_t per_frame, std::int64_t temporal);

// --- disaggregation ---

/// Accelerators a pool needs for `rate` requests per second when each request takes `device_time`
/// accelerator-seconds of it: rate × device_time (not rounded).
[[nodiscard]] double pool_devices(PerSecond rate, Seconds device_time);

/// Time to move `bytes` over `links` parallel links of `bandwidth` each, plus one `latency`.
[[nodiscard]] Seconds transfer_time(Bytes bytes, BytesPerSecond bandwidth, int links, Seconds latency);

// --- diffusion ---

/// Wall time of a sampler: steps × passes per step × pass time + fixed time (text encoder, VAE decode).
[[nodiscard]] Seconds sampler_time(double steps, double passes_per_step, Seconds pass, Seconds fixed);

}  // namespace infracalc::serve
