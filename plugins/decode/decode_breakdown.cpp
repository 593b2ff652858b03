#include "plugins/decode/decode_breakdown.hpp"

#include <algorithm>

namespace infracalc::decode {

std::vector<OperatorCost> step_operators(const Workload& w, double batch, Tokens context, int tp, bool prompt, bool causal) {
  const ModelArch& m = *w.arch;
  const ParamCount c = count_params(m);
  const double ranks = std::max(1, tp);
  const double tokens = prompt ? batch * context.value() : batch;
  const StepDetail whole = prompt ? prefill_step(w, batch, context, causal, tp) : decode_step(w, batch, context, tp);
  const StorageFormat& f = w.weights_format;
  const auto weights = [&](double params) { return storage_bytes(params, f) / ranks; };
  const auto matmul = [&](double params) { return from_base<Flops>(2.0 * params * tokens / ranks); };

  const double head = static_cast<double>(m.vocab_size) * m.hidden_size;  // the output head, tied or not
  const double active_mlp = c.active - c.embeddings - c.attention - c.router - c.norms - c.ssm;
  // Everything in the MLP but the routed experts is read whatever the batch (dense layers, shared experts);
  // of the routed experts, those the batch's tokens select (decode_step's expected count).
  double routed = 0;
  Bytes touched{};
  if (m.moe && w.moe_layers > 0) {
    routed = static_cast<double>(w.moe_layers) * w.experts * (m.gated_mlp ? 3.0 : 2.0) * m.hidden_size * m.moe->expert_ffn_size;
    touched = static_cast<double>(w.moe_layers) * expected_experts_touched(w.experts, w.experts_per_token, tokens) * w.expert_bytes / ranks;
  }
  std::vector<OperatorCost> ops;
  if (w.embedding_row.value() > 0) ops.push_back({"embedding lookup", 1, Flops{}, tokens * w.embedding_row / ranks});
  const int ssm_layers = m.ssm ? static_cast<int>(std::count(m.layer_types.begin(), m.layer_types.end(), LayerAttention::state_space)) : 0;
  ops.push_back({"attention projections (q, k, v, o)", m.layers - ssm_layers, matmul(c.attention), weights(c.attention)});
  ops.push_back({prompt ? "attention (scores, softmax, values; K and V written)"
                        : ssm_layers > 0 ? "attention and SSM state (KV read, state read and rewritten)" : "attention (scores, softmax, values; KV read)",
                 m.layers - ssm_layers, whole.attention_flops, whole.kv_read + whole.kv_write});
  if (c.ssm > 0) ops.push_back({"state-space mixers (Mamba projections)", ssm_layers, matmul(c.ssm), weights(c.ssm)});
  ops.push_back({m.moe ? "MLP and experts" : "MLP", m.layers, matmul(active_mlp), weights(c.mlp - routed) + touched});
  if (c.router > 0) ops.push_back({"router", m.layers - (m.moe ? m.moe->dense_layers : 0), matmul(c.router), weights(c.router)});
  ops.push_back({"norms", 2 * m.layers + 1, Flops{}, weights(c.norms)});
  ops.push_back({"output head (logits)", 1, matmul(head), weights(head)});
  return ops;
}

}  // namespace infracalc::decode
