#include "plugins/cluster/cluster_math.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace infracalc::cluster {

Flops six_nd(double params, Tokens tokens) { return from_base<Flops>(6.0 * params * tokens.value()); }

double mean_context(double seq, double window, AttentionCount count) {
  const double w = window > 0 ? std::min(window, seq) : seq;
  if (count == AttentionCount::full) return w;
  // Causal: position i (1-based) attends to min(i, w) positions; average over i = 1..seq.
  const double ramp = w * (w + 1) / 2.0;
  return (ramp + (seq - w) * w) / seq;
}

FlopsPerToken attention_forward_per_token(const ModelArch& m, Tokens seq, AttentionCount count) {
  double dqk = m.head_dim, dv = m.head_dim;
  if (m.mla) {
    dqk = m.mla->qk_nope_head_dim + m.mla->qk_rope_head_dim;
    dv = m.mla->v_head_dim;
  }
  const double per_position = 2.0 * m.attention_heads * (dqk + dv);  // multiply-adds of QK^T and AV
  double total = 0;
  for (int l = 0; l < m.layers; ++l) {
    const bool sliding = l < static_cast<int>(m.layer_types.size()) && m.layer_types[static_cast<std::size_t>(l)] == LayerAttention::sliding;
    const double window = sliding ? static_cast<double>(m.sliding_window) : 0.0;
    total += per_position * mean_context(seq.value(), window, count);
  }
  return from_base<FlopsPerToken>(total);
}

FlopsPerToken attention_training_per_token(const ModelArch& m, Tokens seq, AttentionCount count) {
  return 3.0 * attention_forward_per_token(m, seq, count);
}

Seconds run_time(Flops work, double devices, FlopsPerSecond peak, double mfu) { return work / (devices * peak * mfu); }

double devices_for(Flops work, Seconds deadline, FlopsPerSecond peak, double mfu) {
  return (work / (deadline * peak * mfu)).value();
}

double hardware_per_model_flop(fit::Recompute r, Flops model, Flops attention) {
  if (model.value() <= 0) return 1.0;
  switch (r) {
    case fit::Recompute::none: return 1.0;
    case fit::Recompute::selective: return 1.0 + (attention / 3.0 / model).value();  // one more attention forward
    case fit::Recompute::full: return 1.0 + 1.0 / 3.0;                                // one more forward of everything
  }
  return 1.0;
}

std::span<const UtilisationReference> utilisation_references() {
  static constexpr std::array refs = {
      UtilisationReference{"PaLM 540B", "6,144 TPU v4", 0.462, 0.462, 0.578,
                           "Chowdhery et al. 2022, PaLM, section 4 and table 3"},
      UtilisationReference{"Llama 3 405B", "8,192-16,384 H100", 0.38, 0.43, 0.0,
                           "Llama Team 2024, The Llama 3 Herd of Models, table 4 (BF16 MFU)"},
      UtilisationReference{"GPT 1T (Megatron-LM benchmark)", "A100, DP 1", 0.563, 0.563, 0.570,
                           "Korthikanti et al. 2022; Megatron-LM README, MFU/HFU table"},
  };
  return refs;
}

}  // namespace infracalc::cluster
