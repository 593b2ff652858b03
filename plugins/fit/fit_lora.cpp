#include "plugins/fit/fit_lora.hpp"

namespace infracalc::fit {

std::vector<LoraMatrix> lora_matrices(const ModelArch& m, LoraTargets targets) {
  std::vector<LoraMatrix> out;
  const double h = m.hidden_size, layers = m.layers;
  const auto add = [&](std::string name, double d_in, double d_out, double copies, double active) {
    out.push_back({std::move(name), d_in, d_out, copies, active});
  };
  const bool qv = targets == LoraTargets::qv;
  if (targets != LoraTargets::mlp) {
    if (m.mla) {
      // DeepSeek-V2/V3 name these q_a_proj, q_b_proj, kv_a_proj_with_mqa, kv_b_proj and o_proj.
      const MlaDims& d = *m.mla;
      const double heads = m.attention_heads, qk = d.qk_nope_head_dim + d.qk_rope_head_dim;
      if (d.q_lora_rank > 0) {
        add("q_a", h, d.q_lora_rank, layers, layers);
        add("q_b", d.q_lora_rank, heads * qk, layers, layers);
      } else {
        add("q", h, heads * qk, layers, layers);
      }
      add("kv_a", h, static_cast<double>(d.kv_lora_rank) + d.qk_rope_head_dim, layers, layers);
      add("kv_b", d.kv_lora_rank, heads * (static_cast<double>(d.qk_nope_head_dim) + d.v_head_dim), layers, layers);
      if (!qv) add("o", heads * d.v_head_dim, h, layers, layers);
    } else {
      const double q = static_cast<double>(m.attention_heads) * m.head_dim, kv = static_cast<double>(m.kv_heads) * m.head_dim;
      add("q", h, q, layers, layers);
      if (!qv) add("k", h, kv, layers, layers);
      add("v", h, kv, layers, layers);
      if (!qv) add("o", q, h, layers, layers);
    }
  }
  if (targets == LoraTargets::mlp || targets == LoraTargets::all) {
    const auto mlp = [&](const std::string& prefix, double ffn, double copies, double active) {
      if (m.gated_mlp) add(prefix + "gate", h, ffn, copies, active);
      add(prefix + "up", h, ffn, copies, active);
      add(prefix + "down", ffn, h, copies, active);
    };
    if (m.moe) {
      const MoeDims& d = *m.moe;
      const double dense = d.dense_layers, moe = layers - dense;
      if (dense > 0) mlp("", m.ffn_size, dense, dense);
      mlp("expert ", d.expert_ffn_size, moe * (static_cast<double>(d.experts) + d.shared_experts),
          moe * (static_cast<double>(d.experts_per_token) + d.shared_experts));
    } else if (m.ffn_size > 0) {
      mlp("", m.ffn_size, layers, layers);
    }
  }
  return out;
}

double lora_params(const std::vector<LoraMatrix>& mats, double rank) {
  double n = 0;
  for (const auto& x : mats) n += x.copies * rank * (x.d_in + x.d_out);
  return n;
}

double lora_params_active(const std::vector<LoraMatrix>& mats, double rank) {
  double n = 0;
  for (const auto& x : mats) n += x.copies_active * rank * (x.d_in + x.d_out);
  return n;
}

double finetune_flops_per_token(FinetuneMethod method, double active_params, double active_adapter, double attention_flops) {
  if (method == FinetuneMethod::full) return 6.0 * active_params + attention_flops;
  return 4.0 * active_params + 6.0 * active_adapter + attention_flops;
}

}  // namespace infracalc::fit
