// Training compute: the 6·N·D rule, the attention-score term a model adds, run time for a device count and
// the device count for a deadline, and the model-FLOPs vs hardware-FLOPs utilisation under recomputation.
// The plugin's other math is in files named for their model: collectives, experts, layout, pipeline, recompute,
// reliability and train_work (a training step's work).
#pragma once

#include <span>

#include "catalog/model_arch.hpp"
#include "plugins/fit/fit_math.hpp"
#include "units/system.hpp"

namespace infracalc::cluster {

/// How the attention-score work of a token is counted.
enum class AttentionCount : std::uint8_t {
  full,    ///< every position attends to the whole sequence (PaLM appendix B, Megatron: the MFU convention)
  causal,  ///< a position attends only to itself and earlier positions (what a causal kernel executes)
};

/// Training FLOPs by the dense rule: 6 N D (2 forward + 4 backward per parameter per token; Kaplan et al.
/// 2020, section 2.1; Hoffmann et al. 2022 appendix F).
[[nodiscard]] Flops six_nd(double params, Tokens tokens);

/// Mean number of positions one token attends to in a sequence of `seq` tokens, with a sliding window of
/// `window` positions (0: none).
[[nodiscard]] double mean_context(double seq, double window, AttentionCount count);

/// Forward attention-score FLOPs per token over all layers: QK^T and the weighted sum over V, 2 x context x
/// heads x (d_qk + d_v) per layer (Hoffmann et al. 2022, appendix F; MLA: d_qk = nope + rope width, d_v its
/// value width). Sliding-window layers attend to at most their window. Softmax and masking are left out.
[[nodiscard]] FlopsPerToken attention_forward_per_token(const ModelArch& m, Tokens seq, AttentionCount count);

/// Training attention FLOPs per token: 3 x forward (the backward pass costs twice the forward); with
/// `full` counting this is PaLM's 12 L H Q T term.
[[nodiscard]] FlopsPerToken attention_training_per_token(const ModelArch& m, Tokens seq, AttentionCount count);

/// Wall time for `work` on `devices` accelerators sustaining `mfu` of `peak` each.
[[nodiscard]] Seconds run_time(Flops work, double devices, FlopsPerSecond peak, double mfu);

/// Accelerators needed to finish `work` within `deadline` (real-valued; the caller rounds up).
[[nodiscard]] double devices_for(Flops work, Seconds deadline, FlopsPerSecond peak, double mfu);

/// Hardware FLOPs executed per model FLOP under a recomputation strategy: full recomputation runs every
/// forward twice (+1/3 of the training FLOPs); selective recomputation (Korthikanti et al. 2022) re-runs only
/// the attention-score forward; none adds nothing. `attention` is the attention share of `model`.
[[nodiscard]] double hardware_per_model_flop(fit::Recompute r, Flops model, Flops attention);

/// A published utilisation figure.
struct UtilisationReference {
  /// The run.
  const char* run;
  /// Its hardware.
  const char* hardware;
  /// Model FLOPs utilisation (low end of a range).
  double mfu_low;
  /// Model FLOPs utilisation (high end; equal to the low end for a single figure).
  double mfu_high;
  /// Hardware FLOPs utilisation; 0 when not published.
  double hfu;
  /// Where it is published.
  const char* source;
};

/// Published MFU/HFU figures of large training runs (PaLM 540B, Llama 3 405B, Megatron-LM 1T).
[[nodiscard]] std::span<const UtilisationReference> utilisation_references();

}  // namespace infracalc::cluster
