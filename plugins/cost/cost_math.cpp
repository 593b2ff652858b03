#include "plugins/cost/cost_math.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::cost {

UsdPerToken price_per_token(UsdPerHour gpu_hour, double gpus, TokensPerSecond throughput, double utilisation) {
  return gpu_hour * gpus / (throughput * utilisation);
}

UsdPerHour gpu_hour_for(UsdPerToken target, double gpus, TokensPerSecond throughput, double utilisation) {
  return target * throughput * utilisation / gpus;
}

Usd call_cost(Tokens input, UsdPerToken input_price, Tokens output, UsdPerToken output_price) {
  return input * input_price + output * output_price;
}

Tokens answer_tokens(const AnswerTokens& a) {
  const double prompt_copies = a.shared_prompt ? 1.0 : a.samples;
  return a.input * prompt_copies + (a.visible + a.hidden) * a.samples;
}

Usd answer_cost(const AnswerTokens& a, UsdPerToken input_price, UsdPerToken output_price) {
  const double prompt_copies = a.shared_prompt ? 1.0 : a.samples;
  return a.input * prompt_copies * input_price + (a.visible + a.hidden) * a.samples * output_price;
}

std::vector<StepTokens> agent_steps(int steps, Tokens prompt, Tokens output_per_step, Tokens tool_result_per_step,
                                    bool full_history) {
  std::vector<StepTokens> out;
  const Tokens zero = from_base<Tokens>(0.0);
  for (int k = 1; k <= steps; ++k) {
    StepTokens s;
    s.output = output_per_step;
    if (k == 1) {
      s.fresh_input = prompt;
      s.repeated_input = zero;
    } else if (full_history) {
      // The previous call's whole input comes back, followed by its answer and the tool's result.
      s.repeated_input = prompt + (output_per_step + tool_result_per_step) * static_cast<double>(k - 2);
      s.fresh_input = output_per_step + tool_result_per_step;
    } else {
      s.repeated_input = prompt;
      s.fresh_input = tool_result_per_step;
    }
    out.push_back(s);
  }
  return out;
}

Usd attempt_cost(const std::vector<StepTokens>& steps, const CallPrices& p, Usd tool_cost_per_step) {
  Usd total = from_base<Usd>(0.0);
  for (const auto& s : steps)
    total += s.fresh_input * p.input * p.write_multiplier + s.repeated_input * p.input * p.read_multiplier +
             s.output * p.output + tool_cost_per_step;
  return total;
}

double success_probability(double p, int retries) { return 1.0 - std::pow(1.0 - p, retries + 1); }

double expected_attempts(double p, int retries) {
  if (p >= 1.0) return 1.0;
  return success_probability(p, retries) / p;
}

Usd prefix_cost_uncached(Tokens prefix, double requests, UsdPerToken input) { return prefix * input * requests; }

Usd prefix_cost_cached(Tokens prefix, double requests, const CachePricing& p, Seconds stored) {
  return prefix * p.input * (p.write_multiplier + (requests - 1.0) * p.read_multiplier) + prefix * p.storage * stored;
}

std::optional<long> break_even_requests(const CachePricing& p, Tokens prefix, Seconds stored) {
  if (p.read_multiplier >= 1.0) return std::nullopt;
  // cached < uncached  ⇔  n (1 − r) > w − r + storage / (prefix × input price)
  const double storage_share = (prefix * p.storage * stored) / (prefix * p.input);
  const double x = (p.write_multiplier - p.read_multiplier + storage_share) / (1.0 - p.read_multiplier);
  if (!(x < 1e12)) return std::nullopt;
  long n = std::max(1L, static_cast<long>(std::floor(x)) + 1);
  // Settle rounding at an exact tie by comparing the costs themselves.
  auto pays = [&](long k) { return prefix_cost_cached(prefix, k, p, stored) < prefix_cost_uncached(prefix, k, p.input); };
  while (n > 1 && pays(n - 1)) --n;
  while (!pays(n)) ++n;
  return n;
}

Seconds accelerator_time(Flops work, FlopsPerSecond peak, double mfu) { return work / (peak * mfu); }

Usd rent(Seconds useful_accelerator_time, UsdPerHour gpu_hour, double goodput) {
  return useful_accelerator_time / goodput * gpu_hour;
}

}  // namespace infracalc::cost
