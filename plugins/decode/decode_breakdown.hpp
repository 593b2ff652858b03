// One decode step or prefill split by operator: embedding lookup, attention projections, attention itself,
// MLP or experts, router, norms and output head, each with its operations and bytes, summing to exactly
// what decode_step and prefill_step give for the whole step.
#pragma once

#include <string>
#include <vector>

#include "plugins/decode/decode_math.hpp"

namespace infracalc::decode {

/// One operator of a step on one device, over all the layers it runs in.
struct OperatorCost {
  /// Its name ("attention projections (q, k, v, o)", "attention (scores, softmax, values)", ...).
  std::string name;
  /// Layers it runs in (1 for the embedding lookup and the output head).
  int layers = 1;
  /// Arithmetic operations.
  Flops flops;
  /// Bytes moved between memory and the chip (weights, KV cache).
  Bytes bytes;
};

/// The operators of a decode step (`prompt` false: `batch` sequences at `context` cached tokens, one new
/// token each) or of a prefill (`prompt` true: `batch` prompts of `context` tokens) on one of `tp` devices.
/// The model needs an architecture. Their flops and bytes sum to decode_step's or prefill_step's.
[[nodiscard]] std::vector<OperatorCost> step_operators(const Workload& w, double batch, Tokens context, int tp, bool prompt,
                                                       bool causal = true);

}  // namespace infracalc::decode
