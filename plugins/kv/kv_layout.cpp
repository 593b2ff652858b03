#include "plugins/kv/kv_layout.hpp"

#include <algorithm>
#include <cmath>

namespace infracalc::kv {

// MLA caches the compressed latent c_KV (kv_lora_rank) and the decoupled RoPE key (qk_rope_head_dim)
// per layer, shared by all heads (DeepSeek-AI 2024, "DeepSeek-V2", section 2.1.3), so tensor parallelism
// cannot split it. Other layouts cache K and V per KV head; Megatron-style TP gives each rank
// kv_heads / tp heads, and replicates heads when kv_heads < tp (Pope et al. 2022, "Efficiently Scaling
// Transformer Inference", section 3.3).
Bytes bytes_per_position(const ModelArch& m, const StorageFormat& dtype, int tp) {
  const Bytes elem = bytes_per_value(dtype);
  if (m.mla) return static_cast<double>(m.mla->kv_lora_rank + m.mla->qk_rope_head_dim) * elem;
  const int heads_per_rank = std::max(1, m.kv_heads / std::max(1, tp));
  return 2.0 * heads_per_rank * m.head_dim * elem;
}

CacheSize cache_size(const ModelArch& m, const StorageFormat& dtype, Tokens context, Number batch, const Parallelism& par) {
  CacheSize out;
  const double ctx = context.value();
  const int tp = std::max(1, par.tp);
  const int pp = std::max(1, par.pp);
  // Layers that share an earlier layer's cache store nothing of their own (e.g. cross-layer attention).
  const int cached = std::max(0, m.layers - m.kv_shared_layers);
  out.cached_layers = cached;
  const Bytes pos_full = bytes_per_position(m, dtype, 1);
  const Bytes pos_rank = bytes_per_position(m, dtype, tp);
  double positions = 0;  // cached positions summed over layers, one sequence
  double stage_positions = 0;
  const int per_stage = (cached + pp - 1) / pp;
  double current_stage = 0;
  for (int l = 0; l < cached; ++l) {
    const bool sliding = static_cast<std::size_t>(l) < m.layer_types.size() && m.layer_types[static_cast<std::size_t>(l)] == LayerAttention::sliding;
    const double p = sliding ? std::min(ctx, static_cast<double>(m.sliding_window)) : ctx;
    positions += p;
    current_stage += p;
    if ((l + 1) % per_stage == 0 || l + 1 == cached) {
      stage_positions = std::max(stage_positions, current_stage);
      current_stage = 0;
    }
  }
  out.per_token = static_cast<double>(cached) * pos_full;
  out.per_sequence = positions * pos_full;
  out.total = out.per_sequence * batch;
  out.per_device = stage_positions * pos_rank * batch;
  return out;
}

}  // namespace infracalc::kv
