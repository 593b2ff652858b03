#include "plugins/decode/decode_math.hpp"

#include <algorithm>
#include <cmath>

#include "plugins/kv/kv_layout.hpp"

namespace infracalc::decode {

namespace {

double expert_params(const ModelArch& m) {
  if (!m.moe) return 0.0;
  return (m.gated_mlp ? 3.0 : 2.0) * static_cast<double>(m.hidden_size) * m.moe->expert_ffn_size;
}

bool sliding(const ModelArch& m, int layer) {
  const auto l = static_cast<std::size_t>(layer);
  return l < m.layer_types.size() && m.layer_types[l] == LayerAttention::sliding && m.sliding_window > 0;
}

// Operations per (query, key) pair of one layer. MHA/GQA/MQA: QKᵀ and PV each take head_dim multiply-adds
// per query head (KV heads shared by a group still meet every query head). MLA decoding in the absorbed
// form (DeepSeek-V2, section 2.1.2) scores against the latent plus the RoPE key and sums values in the
// latent; MLA prefill up-projects K and V and attends per head.
double flops_per_pair(const ModelArch& m, bool decoding) {
  const double heads = m.attention_heads;
  if (m.mla) {
    const MlaDims& d = *m.mla;
    if (decoding) return 2.0 * heads * (2.0 * d.kv_lora_rank + d.qk_rope_head_dim);
    return 2.0 * heads * (d.qk_nope_head_dim + d.qk_rope_head_dim + d.v_head_dim);
  }
  return 4.0 * heads * m.head_dim;
}

}  // namespace

Workload workload_from_arch(const ModelArch& m, const StorageFormat& weights, const StorageFormat& kv) {
  Workload w;
  w.arch = m;
  w.weights_format = weights;
  w.kv_format = kv;
  const ParamCount pc = count_params(m);
  // Lookups, not matrix products: the input embedding (when untied) and learned position embeddings (GPT-2):
  // a step reads one row of each per token.
  const double positions = static_cast<double>(m.learned_positions) * m.hidden_size;
  const double input_embedding = (m.tied_embeddings ? 0.0 : static_cast<double>(m.vocab_size) * m.hidden_size) + positions;
  const double expert = expert_params(m);
  double routed = 0;
  if (m.moe) {
    w.moe_layers = m.layers - m.moe->dense_layers;
    w.experts = m.moe->experts;
    w.experts_per_token = m.moe->experts_per_token;
    routed = static_cast<double>(w.moe_layers) * w.experts * expert;
  }
  w.params_total = pc.total;
  w.params_active = pc.active;
  w.weights_resident = storage_bytes(pc.total, weights);
  w.weights_always_read = storage_bytes(pc.total - input_embedding - routed, weights);
  w.expert_bytes = storage_bytes(expert, weights);
  w.embedding_row = storage_bytes((m.tied_embeddings ? 0.0 : m.hidden_size) + (positions > 0 ? m.hidden_size : 0.0), weights);
  // Norm weights scale elementwise and the input embedding is a lookup: neither is a matrix product.
  w.matmul_flops_per_token = from_base<Flops>(2.0 * (pc.active - pc.norms - input_embedding));
  return w;
}

Workload workload_from_params(double params, const StorageFormat& weights) {
  Workload w;
  w.weights_format = weights;
  w.kv_format = weights;
  w.params_total = params;
  w.params_active = params;
  w.weights_resident = storage_bytes(params, weights);
  w.weights_always_read = w.weights_resident;
  w.matmul_flops_per_token = from_base<Flops>(2.0 * params);
  return w;
}

double expected_experts_touched(int experts, int k, double tokens) {
  if (experts <= 0 || k <= 0 || tokens <= 0) return 0.0;
  // P(an expert is missed by one token) = 1 − k/E exactly when a token picks k distinct experts uniformly.
  const double miss = 1.0 - static_cast<double>(k) / experts;
  return experts * (1.0 - std::pow(miss, tokens));
}

Bytes weights_read(const Workload& w, double tokens) {
  Bytes b = w.weights_always_read + tokens * w.embedding_row;
  if (w.moe_layers > 0)
    b += static_cast<double>(w.moe_layers) * expected_experts_touched(w.experts, w.experts_per_token, tokens) * w.expert_bytes;
  return b;
}

Flops attention_flops_per_token(const Workload& w, Tokens context) {
  if (!w.arch) return Flops{};
  const ModelArch& m = *w.arch;
  const double attended = context.value() + 1.0;  // the cached positions and the new token itself
  double ops = 0;
  const double per_pair = flops_per_pair(m, true);
  for (int l = 0; l < m.layers; ++l)
    if (!kv::layer_state_space(m, l))
      ops += per_pair * (sliding(m, l) ? std::min(attended, static_cast<double>(m.sliding_window)) : attended);
  return from_base<Flops>(ops);
}

Flops attention_flops_prefill(const Workload& w, Tokens prompt, bool causal) {
  if (!w.arch) return Flops{};
  const ModelArch& m = *w.arch;
  const double n = prompt.value();
  const double per_pair = flops_per_pair(m, false);
  double ops = 0;
  for (int l = 0; l < m.layers; ++l) {
    if (kv::layer_state_space(m, l)) continue;  // a Mamba layer scans its state, it attends to nothing
    double pairs = 0;
    if (sliding(m, l)) {
      const double win = static_cast<double>(m.sliding_window);
      if (!causal) pairs = n * std::min(n, win);
      else pairs = n <= win ? n * (n + 1) / 2 : win * (win + 1) / 2 + (n - win) * win;
    } else {
      pairs = causal ? n * (n + 1) / 2 : n * n;
    }
    ops += per_pair * pairs;
  }
  return from_base<Flops>(ops);
}

StepDetail decode_step(const Workload& w, double batch, Tokens context, int tp, int new_tokens) {
  StepDetail d;
  const double ranks = std::max(1, tp);
  const double tokens = batch * new_tokens;
  d.weights = weights_read(w, tokens) / ranks;
  d.matmul_flops = tokens * w.matmul_flops_per_token / ranks;
  if (w.arch) {
    const kv::Parallelism par{std::max(1, tp), 1};
    const kv::CacheSize cache = kv::cache_size(*w.arch, w.kv_format, context, Number::from_value(batch), par);
    d.kv_read = cache.per_device;
    d.kv_write = static_cast<double>(cache.cached_layers) * tokens * kv::bytes_per_position(*w.arch, w.kv_format, std::max(1, tp));
    // Every step reads each sequence's Mamba state (in kv_read above) and writes all of it back.
    d.kv_write += static_cast<double>(cache.ssm_layers) * batch * kv::ssm_state_bytes(*w.arch, std::max(1, tp));
    Flops attn{};
    for (int j = 0; j < new_tokens; ++j) attn += attention_flops_per_token(w, context + from_base<Tokens>(j));
    d.attention_flops = batch * attn / ranks;
  }
  return d;
}

StepDetail prefill_step(const Workload& w, double batch, Tokens prompt, bool causal, int tp) {
  StepDetail d;
  const double ranks = std::max(1, tp);
  const double tokens = batch * prompt.value();
  d.weights = weights_read(w, tokens) / ranks;
  d.matmul_flops = tokens * w.matmul_flops_per_token / ranks;
  if (w.arch) {
    const kv::Parallelism par{std::max(1, tp), 1};
    d.kv_write = kv::cache_size(*w.arch, w.kv_format, prompt, Number::from_value(batch), par).per_device;
    d.attention_flops = batch * attention_flops_prefill(w, prompt, causal) / ranks;
  }
  return d;
}

std::optional<double> ridge_batch(const Workload& w, const Roof& roof, Tokens context, int tp) {
  if (!roof.peak) return std::nullopt;
  // Compute time minus memory time: negative at small batches, convex in the batch (the experts touched
  // grow ever more slowly), so it crosses zero at most once.
  auto gap = [&](double b) {
    const StepCost c = decode_step(w, b, context, tp).cost();
    return (c.flops / *roof.peak - c.bytes / roof.bandwidth).value();
  };
  double hi = 1.0, f_hi = gap(hi), lo = 0.0, f_lo = 0.0;
  if (f_hi >= 0) {
    // Compute-bound at batch 1 already: bisect (0, 1], where batch 0 has no step to time.
    for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
      const double mid = 0.5 * (lo + hi);
      (gap(mid) < 0 ? lo : hi) = mid;
    }
    return hi;
  }
  // Crossing at most once, the gap is still negative at the largest batch searched (2^39, about 5e11) exactly when
  // it never turns: one step answers what doubling up to there took forty for (KV reads that grow with the batch
  // keep a long context memory-bound at any batch).
  constexpr double kLargest = 549755813888.0;  // 2^39
  if (gap(kLargest) < 0) return std::nullopt;
  while (f_hi < 0) {
    lo = hi;
    f_lo = f_hi;
    hi *= 2;
    f_hi = gap(hi);
  }
  // Regula falsi with the Illinois correction (an end kept twice in a row has its gap halved, so both ends close
  // in): the gap is nearly linear in the batch, so a handful of steps reach what bisection needs thirty for.
  int kept = 0;  // -1: lo was kept last time, +1: hi was
  for (int i = 0; i < 200 && hi - lo > 1e-9 * hi; ++i) {
    double x = (lo * f_hi - hi * f_lo) / (f_hi - f_lo);
    if (!(x > lo && x < hi)) x = 0.5 * (lo + hi);
    const double f_x = gap(x);
    if (f_x == 0) return x;
    if (f_x < 0) {
      lo = x;
      f_lo = f_x;
      if (kept == 1) f_hi *= 0.5;
      kept = 1;
    } else {
      hi = x;
      f_hi = f_x;
      if (kept == -1) f_lo *= 0.5;
      kept = -1;
    }
  }
  return hi;
}

}  // namespace infracalc::decode
