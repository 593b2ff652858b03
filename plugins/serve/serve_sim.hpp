// A discrete-event simulation of one serving replica. Events are request arrivals and the ends of engine
// steps; each step's length comes from a StepModel. Two schedulers:
//  - static batching: when the engine is idle it takes up to max_batch waiting requests, prefills their
//    prompts padded to the longest, and decodes in lockstep until the longest output is done; finished
//    slots keep being computed (padding) and answers return when the batch ends (Yu et al., "Orca", OSDI
//    2022, section 2.3);
//  - continuous (iteration-level) batching: every step, running sequences decode one token, waiting
//    requests are admitted first-come first-served while slots and KV blocks allow (backfill), finished
//    sequences leave at once; when a growing sequence needs a KV block and none is free the most recently
//    admitted one is preempted (recompute or swap, vLLM's policy). Without chunked prefill a step either
//    prefills newly admitted prompts or decodes (vLLM's default scheduler before chunking); with it, each
//    step carries every decode and fills the rest of its token budget with prompt chunks (Agrawal et al.,
//    "Sarathi-Serve", OSDI 2024).
// The KV cache is a pool of fixed-size blocks, counted (kv::BlockCount: the kv plugin's PagedAttention pool, whose
// blocks this engine never shares). Continuous batching keeps its decoding sequences as a count and a context sum, so
// a step costs the same at batch 1 and 256 wherever the step model prices such a group exactly (StepModel::prices_group).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "plugins/kv/kv_blocks.hpp"
#include "plugins/kv/kv_paged.hpp"
#include "plugins/serve/serve_requests.hpp"
#include "plugins/serve/serve_step.hpp"
#include "units/system.hpp"

namespace infracalc::serve {

/// How requests are batched.
enum class Batching : std::uint8_t {
  static_batch,  ///< a fixed batch decoded in lockstep until its longest request is done
  continuous,    ///< iteration-level scheduling: sequences join and leave between steps
};

/// The engine being simulated.
struct EngineConfig {
  /// Scheduler.
  Batching batching = Batching::continuous;
  /// Most sequences in a batch (vLLM's max_num_seqs).
  int max_batch = 256;
  /// Most tokens one step processes (vLLM's max_num_batched_tokens); without chunked prefill a prompt
  /// longer than this is still prefilled, alone.
  std::int64_t step_tokens = 8192;
  /// Split prompts into chunks that share steps with decodes.
  bool chunked_prefill = false;
  /// KV blocks in the pool; 0 means the cache is not limited.
  std::int64_t kv_blocks = 0;
  /// Tokens per block.
  std::int64_t block_size = 16;
  /// What preemption does to a decoding sequence (a sequence still prefilling is always recomputed).
  kv::Preemption preemption = kv::Preemption::recompute;
  /// Time to copy one block between device and host memory, each way (swap preemption).
  Seconds swap_time_per_block;
  /// Most steps a run may take (a guard against runaway inputs: each step keeps a sample).
  std::int64_t max_steps = 2'000'000;
};

/// A closed loop: each user sends a request, waits for the answer, thinks, and sends the next.
struct ClosedLoop {
  /// Users.
  int users = 1;
  /// Think time between an answer and the user's next request (the mean when exponential).
  Seconds think;
  /// Exponentially distributed think times (seeded) instead of fixed ones.
  bool exponential = false;
};

/// What to simulate.
struct SimInput {
  /// Requests in the order they are issued; arrival times are used unless `closed` is set.
  std::vector<Request> requests;
  /// A closed loop of users instead of the requests' own arrival times.
  std::optional<ClosedLoop> closed;
  /// Seed of the think-time stream.
  std::uint64_t seed = 1;
  /// Keep a sample of every step (SimResult::steps); false for a caller that reads only the requests' outcomes (a
  /// capacity search's trials: a lightly loaded run of a hundred thousand steps otherwise writes megabytes nobody reads).
  bool record_steps = true;
};

/// What happened to one request (times from the start of the run).
struct RequestOutcome {
  /// Prompt tokens.
  std::int64_t prompt = 0;
  /// Output tokens.
  std::int64_t output = 0;
  /// Arrival.
  Seconds arrival;
  /// Start of the step that first scheduled it.
  Seconds scheduled;
  /// End of the step that produced its first output token.
  Seconds first_token;
  /// End of the step that produced its last output token.
  Seconds last_token;
  /// When its answer returned (the last token; for static batching, the end of its batch).
  Seconds done;
  /// Times it was preempted.
  int preemptions = 0;
  /// The user that sent it (closed loop), else −1.
  int user = -1;

  /// Time to first token: first_token − arrival.
  [[nodiscard]] Seconds ttft() const { return first_token - arrival; }
  /// Time per output token after the first: (last − first) / (output − 1); zero for one-token outputs.
  [[nodiscard]] Seconds tpot() const { return output > 1 ? (last_token - first_token) / static_cast<double>(output - 1) : Seconds{}; }
  /// End-to-end latency: done − arrival.
  [[nodiscard]] Seconds latency() const { return done - arrival; }
};

/// The engine during one step.
struct StepSample {
  /// Start of the step (s).
  double start = 0;
  /// Its length (s).
  double duration = 0;
  /// Sequences holding a batch slot (static: the whole batch until it ends).
  std::int32_t running = 0;
  /// Requests arrived and waiting (preempted ones included).
  std::int32_t waiting = 0;
  /// Slots the step computed, padding included.
  std::int32_t carried = 0;
  /// Sequences that decoded a token.
  std::int32_t decoding = 0;
  /// Sequences that prefilled a chunk.
  std::int32_t prefilling = 0;
  /// Prompt tokens processed (padding excluded).
  std::int64_t prefill_tokens = 0;
  /// Output tokens produced.
  std::int32_t output_tokens = 0;
  /// KV blocks in use at the end of the step, before finished sequences free theirs.
  std::int64_t blocks_used = 0;
  /// KV tokens cached at the end of the step (all running sequences).
  std::int64_t kv_tokens = 0;
};

/// One sequence's part in a step (for observers).
struct StepItem {
  /// Request index (issue order).
  std::int32_t request = 0;
  /// Prompt tokens it prefilled (a chunk, or a whole prompt; recomputed tokens included).
  std::int64_t prefill_tokens = 0;
  /// True when the step produced one of its output tokens.
  bool output_token = false;
  /// True when its slot was computed without work for it (static batching after it finished).
  bool padding = false;
};

/// One step as observers see it.
struct StepEvent {
  /// Step number (0-based).
  std::int64_t index = 0;
  /// Start.
  Seconds start;
  /// Length.
  Seconds duration;
  /// Sequences in the step.
  std::span<const StepItem> items;
  /// Requests admitted at its start (fresh, resumed or swapped in).
  std::span<const std::int32_t> admitted;
  /// Requests preempted at its start.
  std::span<const std::int32_t> preempted;
  /// Requests whose answers returned at its end.
  std::span<const std::int32_t> finished;
  /// The engine during the step.
  const StepSample* sample = nullptr;
};

/// Called after every step.
using StepObserver = std::function<void(const StepEvent&)>;

/// Everything a run produced.
struct SimResult {
  /// One outcome per request, in issue order.
  std::vector<RequestOutcome> requests;
  /// One sample per step (none when SimInput::record_steps is false).
  std::vector<StepSample> steps;
  /// Steps run.
  std::int64_t step_count = 0;
  /// From t = 0 to the last answer.
  Seconds makespan;
  /// Time steps ran (the rest is idle, waiting for arrivals).
  Seconds busy;
  /// Preemptions (evictions).
  std::int64_t preemptions = 0;
  /// Tokens prefilled again after recompute preemptions.
  std::int64_t recomputed_tokens = 0;
  /// Blocks swapped out to host memory (each also swapped back in).
  std::int64_t swapped_blocks = 0;
  /// Admissions into a batch that was already running (continuous batching's backfill).
  std::int64_t backfills = 0;
  /// Token slots of static batches that computed padding: Σ over batches of (slots × longest output −
  /// the outputs); zero for continuous batching.
  std::int64_t idle_slot_steps = 0;
  /// Token slots of static batches: Σ over batches of slots × longest output.
  std::int64_t batch_slot_steps = 0;
  /// Prompt padding tokens of static batches (prompts padded to the batch's longest).
  std::int64_t padding_tokens = 0;
  /// Prompt tokens prefilled (recomputed ones included).
  std::int64_t prefill_tokens = 0;
  /// Output tokens generated.
  std::int64_t output_tokens = 0;
  /// Static batches run.
  std::int64_t batches = 0;
  /// Most sequences running at once.
  int peak_running = 0;
  /// Pool counters (zero when the cache is not limited).
  kv::BlockStats pool;
};

/// Runs the simulation. Throws UserError when a request can never fit the KV pool or the run exceeds
/// max_steps.
[[nodiscard]] SimResult simulate(const SimInput& input, const EngineConfig& engine, const StepModel& model,
                                 const StepObserver& observer = {});

}  // namespace infracalc::serve
