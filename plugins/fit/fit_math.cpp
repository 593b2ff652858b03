#include "plugins/fit/fit_math.hpp"

#include <algorithm>
#include <cmath>

#include "units/counts.hpp"

namespace infracalc::fit {

namespace {
Bytes bytes(double b) { return from_base<Bytes>(b); }
}  // namespace

std::int64_t min_devices(Bytes need, Bytes per_device, std::string_view driver) {
  // whole_count takes a ratio within 1e-9 of a whole number as that number (1.12 TB / 80 GB is 14, not 15).
  return std::max<std::int64_t>(1, whole_count(need.value() / per_device.value(), Rounding::up,
                                               {driver, "devices", "give a device with more memory, or a smaller model or format"}));
}

double routed_expert_params(const ModelArch& m) {
  if (!m.moe) return 0;
  const MoeDims& d = *m.moe;
  const double mats = m.gated_mlp ? 3.0 : 2.0;
  return static_cast<double>(m.layers - d.dense_layers) * d.experts * mats * m.hidden_size * d.expert_ffn_size;
}

ParamSplit split_params(const ModelArch& m, int tp, int pp) {
  const ParamCount c = count_params(m);
  ParamSplit s;
  s.total = c.total;
  s.experts_total = routed_expert_params(m);
  const double layers = std::max(1, m.layers);
  const double stage_layers = std::ceil(layers / std::max(1, pp));
  const int t = std::max(1, tp);
  // K and V projections: each rank holds its kv_heads / tp heads, and a whole head when there are fewer
  // heads than ranks (the head is replicated), so they shrink by at most kv_heads.
  double kv_rank = 0, kv_all = 0;
  if (!m.mla && m.kv_heads > 0) {
    kv_all = 2.0 * m.hidden_size * m.kv_heads * m.head_dim * layers;
    kv_rank = kv_all * std::max(1.0, std::floor(static_cast<double>(m.kv_heads) / t)) / m.kv_heads;
  }
  const double layer_rank = (c.attention - kv_all + c.mlp + c.router) / t + kv_rank;
  const double per_matrix = static_cast<double>(m.vocab_size) * m.hidden_size;
  // With one stage every embedding matrix is on it; with several, the first holds the input embedding
  // and the last the output head (each holds its own copy when they are tied).
  const double emb = pp <= 1 ? c.embeddings : per_matrix;
  s.per_device = layer_rank * stage_layers / layers + emb / t + c.norms * stage_layers / layers;
  s.experts_per_device = s.experts_total * stage_layers / layers / t;
  return s;
}

Bytes weight_bytes(double params, double expert_params, const StorageFormat& dtype, const StorageFormat& expert_dtype) {
  return storage_bytes(params - expert_params, dtype) + storage_bytes(expert_params, expert_dtype);
}

BytesPerToken activation_bytes_per_token(const ModelArch& m, int tp, Bytes act_bytes) {
  const double t = std::max(1, tp);
  const double h = m.hidden_size;
  const double attn = static_cast<double>(m.attention_heads + 2 * m.kv_heads) * m.head_dim / t;
  double ffn = m.ffn_size;
  if (m.moe) ffn = static_cast<double>(m.moe->expert_ffn_size) * (m.moe->experts_per_token + m.moe->shared_experts);
  const double mlp = (m.gated_mlp ? 3.0 : 2.0) * ffn / t;
  return (2.0 * h + std::max(attn, mlp)) * act_bytes / from_base<Tokens>(1.0);
}

Optimizer optimizer_of(std::string_view name) {
  if (name == "adam") return Optimizer::adam;
  if (name == "sgd") return Optimizer::sgd;
  if (name == "adafactor") return Optimizer::adafactor;
  if (name == "adam8bit") return Optimizer::adam8bit;
  return Optimizer::adamw;
}

Recompute recompute_of(std::string_view name) {
  if (name == "none") return Recompute::none;
  if (name == "full") return Recompute::full;
  return Recompute::selective;
}

Bytes waterfall_total(const Waterfall& w) { return w.weights + w.kv + w.activations + w.framework + w.comm; }

StatePerParam state_per_param(Optimizer opt, Bytes weight_bytes, Bytes grad_bytes, bool master, double hidden_size) {
  StatePerParam s;
  s.weights = weight_bytes;
  s.grads = grad_bytes;
  s.master = master ? bytes(4) : bytes(0);
  switch (opt) {
    case Optimizer::adam:
    case Optimizer::adamw: s.moments = bytes(8); break;  // m and v in FP32 (Kingma and Ba 2015; Loshchilov and Hutter 2019)
    case Optimizer::sgd: s.moments = bytes(4); break;    // one FP32 momentum buffer
    case Optimizer::adam8bit: s.moments = bytes(2); break;  // m and v in 8 bits (Dettmers et al. 2022), block statistics negligible
    case Optimizer::adafactor:
      // Factored second moment (Shazeer and Stern 2018): a row and a column vector per h × h matrix,
      // 4 (h + h) bytes for h² parameters; no first moment by default.
      s.moments = bytes(hidden_size > 0 ? 8.0 / hidden_size : 0.0);
      break;
  }
  s.total = s.weights + s.grads + s.master + s.moments;
  return s;
}

ShardedState zero_shard(const StatePerParam& s, double params, int stage, int dp) {
  const double n = std::max(1, dp);
  ShardedState z;
  z.weights = params * s.weights / (stage >= 3 ? n : 1.0);
  z.grads = params * s.grads / (stage >= 2 ? n : 1.0);
  z.optimizer = params * (s.master + s.moments) / (stage >= 1 ? n : 1.0);
  z.total = z.weights + z.grads + z.optimizer;
  return z;
}

ActivationShape activation_shape(const ModelArch& m, Tokens seq, double micro_batch, int tp, int pp, bool sequence_parallel) {
  ActivationShape a;
  a.seq = seq;
  a.micro_batch = micro_batch;
  a.hidden = m.hidden_size;
  a.heads = m.attention_heads;
  a.layers = m.layers;
  a.vocab = m.vocab_size;
  a.tp = tp;
  a.pp = pp;
  a.sequence_parallel = sequence_parallel;
  return a;
}

Bytes activation_per_layer(const ActivationShape& a, Recompute r) {
  const double s = a.seq.value();  // tokens as the count the formula multiplies
  const double sbh = s * a.micro_batch * a.hidden;
  const double t = std::max(1, a.tp);
  const double attn = 5.0 * a.heads * s / a.hidden;  // the 5as/h term: scores, softmax, dropout mask and output
  switch (r) {
    case Recompute::none:
      return bytes(a.sequence_parallel ? sbh / t * (34.0 + attn) : sbh * (10.0 + 24.0 / t + attn / t));
    case Recompute::selective:
      return bytes(a.sequence_parallel ? sbh * 34.0 / t : sbh * (10.0 + 24.0 / t));
    case Recompute::full:
      return bytes(a.sequence_parallel ? 2.0 * sbh / t : 2.0 * sbh);
  }
  return bytes(0);
}

Bytes activation_per_device(const ActivationShape& a, Recompute r) {
  const double t = std::max(1, a.tp);
  const double sbh = a.seq.value() * a.micro_batch * a.hidden;
  // Under 1F1B the first stage holds p micro-batches of L/p layers each: L layers' worth (section 4.3).
  Bytes total = a.layers * activation_per_layer(a, r);
  // Full recomputation re-runs one layer's forward before its backward: that layer's activations are live.
  if (r == Recompute::full) total += activation_per_layer(a, Recompute::none);
  // Input-embedding dropout mask for the p micro-batches in flight: sbhp/t (section 4.3).
  total += bytes(sbh * a.pp / t);
  // Output layer (final norm, logits, cross-entropy in FP32) on the only stage when p = 1: 4sbh/t (1 + v/h).
  if (a.pp <= 1) total += bytes(4.0 * sbh / t * (1.0 + a.vocab / a.hidden));
  return total;
}

std::vector<ResidentNet> rlhf_networks(RlhfMethod m, double policy, double critic, double reward, Bytes trained_per_param,
                                       Bytes frozen_per_param, bool reward_model) {
  std::vector<ResidentNet> v;
  auto add = [&](const char* role, double params, bool trained) {
    const Bytes per = trained ? trained_per_param : frozen_per_param;
    v.push_back({role, params, trained, per, params * per});
  };
  add("policy", policy, true);
  if (m == RlhfMethod::ppo) add("critic", critic, true);
  add("reference", policy, false);
  if (m != RlhfMethod::dpo && reward_model) add("reward", reward, false);
  return v;
}

}  // namespace infracalc::fit
