// Speculative decoding (Leviathan, Kalman and Matias, "Fast Inference from Transformers via Speculative
// Decoding", ICML 2023; Chen et al. 2023) and tree variants (Cai et al., "Medusa", 2024).
#pragma once

#include <optional>

#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_math.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// Expected tokens one target pass yields when k draft tokens are each accepted with probability α,
/// independently: (1 − α^(k+1)) / (1 − α). Between 1 and k + 1.
[[nodiscard]] double expected_tokens_per_pass(double alpha, int k);

/// Speed-up over plain decoding when a draft step costs `draft_cost` target steps and the verify pass
/// costs one target step (the memory-bound ideal): τ / (k·c + 1).
[[nodiscard]] double speculative_speedup(double tokens_per_pass, int k, double draft_cost);

/// Candidate continuations in a full tree of `depth` levels with `width` choices each (Medusa's m^K).
[[nodiscard]] double tree_candidates(int width, int depth);
/// Nodes of that tree (tokens verified in one pass besides the last accepted one): Σ_{i=1..K} m^i.
[[nodiscard]] double tree_nodes(int width, int depth);

/// Speculation at one batch on a roof.
struct SpeculativePoint {
  /// Sequences decoded together.
  double batch = 1;
  /// One plain decode step.
  Seconds plain_step;
  /// One verify pass carrying `verify_tokens` tokens per sequence.
  Seconds verify_step;
  /// Draft work per pass (k draft steps of draft_cost target steps each).
  Seconds draft_time;
  /// Speed-up of per-sequence token rate over plain decoding (below 1: speculation loses).
  double speedup = 1;
};

/// Speculation at `batch` sequences: the verify pass is a decode step with `verify_tokens` new tokens
/// per sequence (k + 1, or the tree's nodes + 1), which costs no more than a plain step while the
/// step is memory-bound and proportionally more once the extra tokens fill the idle compute.
[[nodiscard]] SpeculativePoint speculative_at(const Workload& w, const Roof& roof, Tokens context, double batch, int k,
                                              double tokens_per_pass, double draft_cost, int verify_tokens, int tp = 1);

/// The smallest whole batch at which speculation stops paying (speed-up below 1), searched up to
/// `limit`; empty when it pays throughout.
[[nodiscard]] std::optional<double> speculative_crossover(const Workload& w, const Roof& roof, Tokens context, int k,
                                                          double tokens_per_pass, double draft_cost, int verify_tokens,
                                                          int tp = 1, double limit = 1 << 20);

}  // namespace infracalc::decode
