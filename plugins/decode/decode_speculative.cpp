#include "plugins/decode/decode_speculative.hpp"

#include <cmath>

namespace infracalc::decode {

// Each of the k draft tokens survives only if every earlier one did, so P(i accepted) = α^i and the
// expected accepted prefix plus the one token the target itself produces is Σ_{i=0..k} α^i
// (Leviathan et al. 2023, equation 1).
double expected_tokens_per_pass(double alpha, int k) {
  if (alpha >= 1.0) return k + 1.0;
  return (1.0 - std::pow(alpha, k + 1)) / (1.0 - alpha);
}

// Leviathan et al. 2023, theorem 3.8: improvement = (1 − α^(k+1)) / ((1 − α)(k·c + 1)).
double speculative_speedup(double tokens_per_pass, int k, double draft_cost) { return tokens_per_pass / (k * draft_cost + 1.0); }

double tree_candidates(int width, int depth) { return std::pow(static_cast<double>(width), depth); }

double tree_nodes(int width, int depth) {
  double sum = 0, level = 1;
  for (int i = 1; i <= depth; ++i) {
    level *= width;
    sum += level;
  }
  return sum;
}

SpeculativePoint speculative_at(const Workload& w, const Roof& roof, Tokens context, double batch, int k,
                                double tokens_per_pass, double draft_cost, int verify_tokens, int tp) {
  SpeculativePoint p;
  p.batch = batch;
  p.plain_step = step_time(decode_step(w, batch, context, tp, 1).cost(), roof).total;
  p.verify_step = step_time(decode_step(w, batch, context, tp, verify_tokens).cost(), roof).total;
  p.draft_time = static_cast<double>(k) * draft_cost * p.plain_step;
  // Per sequence: tokens_per_pass tokens per (drafts + verify) against one token per plain step.
  p.speedup = tokens_per_pass * (p.plain_step / (p.verify_step + p.draft_time)).value();
  return p;
}

std::optional<double> speculative_crossover(const Workload& w, const Roof& roof, Tokens context, int k, double tokens_per_pass,
                                            double draft_cost, int verify_tokens, int tp, double limit) {
  auto loses = [&](double b) {
    return speculative_at(w, roof, context, b, k, tokens_per_pass, draft_cost, verify_tokens, tp).speedup < 1.0;
  };
  if (loses(1)) return 1.0;
  double hi = 2;
  while (!loses(hi)) {
    hi *= 2;
    if (hi > limit) return std::nullopt;
  }
  double lo = hi / 2;  // pays at lo, loses at hi
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (loses(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace infracalc::decode
