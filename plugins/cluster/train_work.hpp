// The model FLOPs of a training run, read from a calculator's inputs: one definition (6·N·D plus the
// attention-score term when the architecture is known) for every command that prices or times a run.
#pragma once

#include <vector>

#include "host/context.hpp"
#include "plugins/fit/fit_model.hpp"
#include "units/system.hpp"

namespace infracalc::cluster {

/// A run's model FLOPs, split into the dense rule and the attention-score term.
struct TrainingWork {
  /// 6 x active parameters x tokens.
  Flops dense;
  /// Attention-score FLOPs over the run, forward and backward (0 when the architecture is unknown).
  Flops attention;
  /// Whether the architecture was known, so the attention term is counted.
  bool attention_counted = false;
  /// The whole run's model FLOPs.
  [[nodiscard]] Flops total() const { return dense + attention; }
};

/// The inputs the attention term reads: --seq (training sequence length) and --attention-count.
[[nodiscard]] std::vector<Input> training_work_inputs();

/// The model FLOPs of training `model` on `tokens` tokens, with --seq and --attention-count read from `ctx`;
/// notes what the attention term adds, or that it is left out for want of an architecture.
[[nodiscard]] TrainingWork training_work(Context& ctx, const fit::ResolvedModel& model, Tokens tokens);

}  // namespace infracalc::cluster
