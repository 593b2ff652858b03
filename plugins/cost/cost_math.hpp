// Cost per token, answer, agent task, cached prompt and training run: the typed closed forms behind the
// cost calculators. The kernels check them, the serving ledger (cost_ledger.hpp) on serve's simulator.
#pragma once

#include <optional>
#include <vector>

#include "units/system.hpp"

namespace infracalc::cost {

/// Price per token from an hourly price: gpu_hour × gpus / (throughput × utilisation), where `throughput` is what
/// the `gpus` accelerators deliver together while busy and `utilisation` the busy share of the paid time.
[[nodiscard]] UsdPerToken price_per_token(UsdPerHour gpu_hour, double gpus, TokensPerSecond throughput, double utilisation);

/// The hourly price per accelerator that gives `target` per token: the inverse of price_per_token.
[[nodiscard]] UsdPerHour gpu_hour_for(UsdPerToken target, double gpus, TokensPerSecond throughput, double utilisation);

/// The cost of one call: input × input price + output × output price.
[[nodiscard]] Usd call_cost(Tokens input, UsdPerToken input_price, Tokens output, UsdPerToken output_price);

/// What an answer consumes.
struct AnswerTokens {
  /// Prompt tokens of one sample.
  Tokens input;
  /// Tokens the user sees.
  Tokens visible;
  /// Hidden reasoning tokens (billed as output).
  Tokens hidden;
  /// Independent samples drawn (self-consistency, best-of-N); 1 for a single answer.
  double samples = 1.0;
  /// True when the prompt is billed once for all samples (a shared, cached prefix); false bills it per sample.
  bool shared_prompt = false;
};

/// Cost of an answer: samples × (visible + hidden) × output price + input × input price (× samples unless
/// the prompt is shared).
[[nodiscard]] Usd answer_cost(const AnswerTokens& a, UsdPerToken input_price, UsdPerToken output_price);

/// Tokens billed for an answer (input counted per sample unless shared).
[[nodiscard]] Tokens answer_tokens(const AnswerTokens& a);

/// The tokens of one agent step.
struct StepTokens {
  /// Input tokens seen for the first time (billed at the input price, or as a cache write).
  Tokens fresh_input;
  /// Input tokens the previous call already carried (billed as cache reads when caching is on).
  Tokens repeated_input;
  /// Output tokens generated (hidden reasoning included).
  Tokens output;
};

/// An agent's calls: step 1 sends the prompt; each later step re-sends the history (prompt, earlier outputs and
/// tool results) when `full_history`, then appends the previous step's output and tool result.
[[nodiscard]] std::vector<StepTokens> agent_steps(int steps, Tokens prompt, Tokens output_per_step,
                                                  Tokens tool_result_per_step, bool full_history);

/// Prices for an agent's calls.
struct CallPrices {
  /// Base input price.
  UsdPerToken input;
  /// Output price.
  UsdPerToken output;
  /// Repeated input billed at this fraction of the input price (1 = no caching).
  double read_multiplier = 1.0;
  /// Fresh input billed at this multiple of the input price (1 = no write premium).
  double write_multiplier = 1.0;
};

/// The cost of one attempt: every step's tokens at the call prices, plus the tool cost of every step.
[[nodiscard]] Usd attempt_cost(const std::vector<StepTokens>& steps, const CallPrices& prices, Usd tool_cost_per_step);

/// Expected attempts when each succeeds with probability p and at most `retries` more follow a failure:
/// (1 − (1 − p)^(retries+1)) / p.
[[nodiscard]] double expected_attempts(double p, int retries);

/// Probability that one of the 1 + retries attempts succeeds: 1 − (1 − p)^(retries+1).
[[nodiscard]] double success_probability(double p, int retries);

/// Prompt-cache pricing of a prefix shared by several requests.
struct CachePricing {
  /// Base input price.
  UsdPerToken input;
  /// Cache reads cost this fraction of the input price.
  double read_multiplier = 0.1;
  /// Cache writes cost this multiple of the input price.
  double write_multiplier = 1.25;
  /// Storage fee per token and time (zero for providers that do not charge one).
  UsdPerTokenSecond storage;
};

/// Prefix cost without caching: requests × prefix × input price.
[[nodiscard]] Usd prefix_cost_uncached(Tokens prefix, double requests, UsdPerToken input);

/// Prefix cost with caching: one write, requests − 1 reads, and storage for `stored` time.
[[nodiscard]] Usd prefix_cost_cached(Tokens prefix, double requests, const CachePricing& p, Seconds stored);

/// The fewest requests sharing a prefix for which caching costs less than not caching; nullopt when it never
/// does (reads at or above the base price).
[[nodiscard]] std::optional<long> break_even_requests(const CachePricing& p, Tokens prefix, Seconds stored);

/// Accelerator time a job needs: work / (peak × achieved share of peak).
[[nodiscard]] Seconds accelerator_time(Flops work, FlopsPerSecond peak, double mfu);

/// Rent for accelerator time at an hourly price, when only `goodput` of the paid time is useful.
[[nodiscard]] Usd rent(Seconds useful_accelerator_time, UsdPerHour gpu_hour, double goodput);

}  // namespace infracalc::cost
