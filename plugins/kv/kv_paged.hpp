// A continuous-batching scheduler over a paged KV pool (PagedAttention, Kwon et al. 2023): requests
// arrive, are admitted first-come first-served while blocks are free (backfill), grow one token per step,
// are preempted (last admitted first) when a running sequence needs a block and none is free, and free
// their blocks when done.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/kv/kv_blocks.hpp"

namespace infracalc::kv {

/// One request of a stream (counts of tokens and scheduler steps).
struct PagedRequest {
  /// Prompt tokens.
  std::int64_t prompt = 0;
  /// Output tokens to generate (at least 1).
  std::int64_t output = 1;
  /// Step at which it arrives.
  std::int64_t arrival = 0;
};

/// What a preempted sequence loses.
enum class Preemption : std::uint8_t {
  recompute,  ///< its blocks are freed; on resumption its prompt and output so far are prefilled again
  swap,       ///< its blocks are copied to host memory and copied back on resumption
};

/// Scheduler and pool settings.
struct PagedConfig {
  /// Tokens per block.
  std::int64_t block_size = 16;
  /// Blocks in the pool.
  std::int64_t blocks = 0;
  /// Sequences that may run at once.
  std::int64_t max_running = 256;
  /// What preemption costs.
  Preemption preemption = Preemption::recompute;
  /// Record every scheduler event.
  bool trace = false;
  /// Give up after this many steps (a guard against runaway inputs).
  std::int64_t max_steps = 20'000'000;
};

/// The pool at the end of one step, before finished sequences free their blocks.
struct PagedSample {
  /// Step number (0-based).
  std::int64_t step = 0;
  /// Sequences running.
  std::int32_t running = 0;
  /// Requests arrived and waiting (including preempted ones).
  std::int32_t waiting = 0;
  /// Blocks in use.
  std::int64_t blocks_used = 0;
  /// Token slots filled in those blocks.
  std::int64_t tokens_stored = 0;
};

/// One scheduler event (with --trace).
struct PagedEvent {
  /// Step.
  std::int64_t step = 0;
  /// "arrive", "admit", "resume", "grow", "preempt", "finish".
  std::string what;
  /// Request index (0-based, in input order).
  std::int64_t request = 0;
  /// Blocks the event took (+) or returned (-).
  std::int64_t blocks = 0;
  /// Blocks in use after it.
  std::int64_t blocks_used = 0;
  /// Tokens the request holds after it.
  std::int64_t tokens = 0;
};

/// What happened to one request.
struct PagedOutcome {
  /// Step it was first admitted.
  std::int64_t admitted = -1;
  /// Step it finished.
  std::int64_t finished = -1;
  /// Times it was preempted.
  std::int64_t preemptions = 0;
};

/// Everything a run produced.
struct PagedReport {
  /// One sample per step.
  std::vector<PagedSample> samples;
  /// Events, when traced.
  std::vector<PagedEvent> events;
  /// Per-request outcomes, in input order.
  std::vector<PagedOutcome> outcomes;
  /// Pool counters.
  BlockStats pool;
  /// Preemptions in total.
  std::int64_t preemptions = 0;
  /// Tokens prefilled again after recompute preemptions.
  std::int64_t recomputed_tokens = 0;
  /// Blocks copied out to host memory by swap preemptions (and the same number back in).
  std::int64_t swapped_blocks = 0;
  /// Output tokens generated.
  std::int64_t generated_tokens = 0;
  /// Slots left empty in last blocks summed over requests at completion.
  std::int64_t final_slack_slots = 0;
};

/// Runs the stream to completion. Throws UserError when a request can never fit the pool.
[[nodiscard]] PagedReport simulate_paged(const std::vector<PagedRequest>& requests, const PagedConfig& config);

/// Parses a request list: comma-separated (or one per line) items "PROMPT+OUTPUT", "PROMPT+OUTPUT@ARRIVAL",
/// "NxPROMPT+OUTPUT" (N copies), or whitespace-separated "PROMPT OUTPUT [ARRIVAL]" lines; '#' starts a
/// comment. `label` names the input in errors.
[[nodiscard]] std::vector<PagedRequest> parse_requests(const std::string& text, const std::string& label);
/// The text of a --requests-file (kv paged, serve simulate); a UserError naming the flag when unreadable.
[[nodiscard]] std::string read_requests_file(const std::string& path);

/// How generated lengths are drawn.
enum class LengthDistribution : std::uint8_t { fixed, uniform, exponential };

/// A seeded random stream: `count` requests, prompt and output lengths around the means (fixed, uniform
/// on [1, 2·mean-1], or exponential with that mean, at least 1), prompt + output clipped to `max_len`;
/// arrivals a Poisson process of `rate` requests per step (all at step 0 when rate is 0).
[[nodiscard]] std::vector<PagedRequest> random_requests(std::int64_t count, std::uint64_t seed, std::int64_t prompt_mean,
                                                        std::int64_t output_mean, LengthDistribution dist, double rate,
                                                        std::int64_t max_len);

}  // namespace infracalc::kv
