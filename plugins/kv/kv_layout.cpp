#include "plugins/kv/kv_layout.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "units/format.hpp"

namespace infracalc::kv {

// MLA caches the compressed latent c_KV (kv_lora_rank) and the decoupled RoPE key (qk_rope_head_dim)
// per layer, shared by all heads (DeepSeek-AI 2024, "DeepSeek-V2", section 2.1.3), so tensor parallelism
// cannot split it. Other layouts cache K and V per KV head; Megatron-style TP gives each rank
// kv_heads / tp heads, and replicates heads when kv_heads < tp (Pope et al. 2022, "Efficiently Scaling
// Transformer Inference", section 3.3).
int kv_heads_per_rank(const ModelArch& m, int tp) {
  const int ranks = std::max(1, tp);
  return std::max(1, (m.kv_heads + ranks - 1) / ranks);
}

VectorRuns position_vectors(const ModelArch& m, int tp) {
  if (m.mla) return {VectorRun{1, m.mla->kv_lora_rank}, VectorRun{1, m.mla->qk_rope_head_dim}};
  return {VectorRun{2 * static_cast<std::int64_t>(kv_heads_per_rank(m, tp)), m.head_dim}, VectorRun{}};
}

std::int64_t vector_elements(const VectorRuns& runs) {
  std::int64_t n = 0;
  for (const auto& r : runs) n += r.count * r.length;
  return n;
}

Bytes bytes_per_position(const ModelArch& m, const KvPrecision& precision, int tp) {
  return vectors_bytes(precision, position_vectors(m, tp));
}

Bytes bytes_per_position(const ModelArch& m, const StorageFormat& dtype, int tp) {
  return bytes_per_position(m, plain_precision(dtype), tp);
}

bool layer_cached(const ModelArch& m, int layer) {
  if (layer_state_space(m, layer)) return false;
  return layer < m.layers - std::max(0, m.kv_shared_layers);
}

bool layer_state_space(const ModelArch& m, int layer) {
  return m.ssm && layer >= 0 && static_cast<std::size_t>(layer) < m.layer_types.size() &&
         m.layer_types[static_cast<std::size_t>(layer)] == LayerAttention::state_space;
}

// A Mamba layer's recurrent state replaces the growing KV cache: it is the same size after one token as after a
// million (Gu and Dao 2023, "Mamba", section 3.4; vLLM allocates it once per sequence, MambaStateShapeCalculator).
Bytes ssm_state_bytes(const ModelArch& m, int tp) {
  if (!m.ssm) return from_base<Bytes>(0);
  const auto [conv, state] = ssm_state_elements(*m.ssm, tp);
  return storage_bytes(conv + state, storage_format_of(m.ssm->state_dtype, "ssm.state_dtype of model " + m.id));
}

bool layer_sliding(const ModelArch& m, int layer) {
  return layer >= 0 && static_cast<std::size_t>(layer) < m.layer_types.size() &&
         m.layer_types[static_cast<std::size_t>(layer)] == LayerAttention::sliding && m.sliding_window > 0;
}

Tokens layer_positions(const ModelArch& m, int layer, Tokens context) {
  if (!layer_cached(m, layer)) return from_base<Tokens>(0);
  if (layer_sliding(m, layer)) return from_base<Tokens>(std::min(context.value(), static_cast<double>(m.sliding_window)));
  return context;
}

std::string state_space_note(const ModelArch& m, Bytes per_sequence) {
  if (!m.ssm) return {};
  const auto [conv, state] = ssm_state_elements(*m.ssm, 1);
  return fmt::format("{} state-space (Mamba) layers keep a fixed recurrent state, not a KV cache: {} conv + {} SSM state elements per "
                     "layer in {} = {} B per sequence, the same at any context, included in the cache figures (vLLM "
                     "MambaStateShapeCalculator)",
                     count_layers(m, LayerAttention::state_space), format_count(conv, 15), format_count(state, 15), m.ssm->state_dtype,
                     format_count(per_sequence.value(), 15));
}

// Pipeline stages take consecutive blocks of ceil(layers / pp) layers (the usual even split); the busiest
// stage sets the per-device figure. Shared layers sit at the end of the stack and hold nothing.
CacheSize cache_size(const ModelArch& m, const KvPrecision& precision, Tokens context, Number batch, const Parallelism& par) {
  CacheSize out;
  const int tp = std::max(1, par.tp);
  const int pp = std::max(1, par.pp);
  const Bytes pos_full = bytes_per_position(m, precision, 1);
  const Bytes pos_rank = bytes_per_position(m, precision, tp);
  KvPrecision no_scales = precision;
  no_scales.scales = ScaleGranularity::tensor;
  const Bytes scale_part = pos_full - bytes_per_position(m, no_scales, 1);
  const int per_stage = std::max(1, (m.layers + pp - 1) / pp);
  std::vector<double> stage_positions(static_cast<std::size_t>(pp), 0.0);
  std::vector<int> stage_layers(static_cast<std::size_t>(pp), 0);
  std::vector<int> stage_ssm(static_cast<std::size_t>(pp), 0);
  double positions = 0;
  // layer_positions() of a cached layer, decided once here: this loop runs for every batch record.
  const double window_positions = std::min(context.value(), static_cast<double>(m.sliding_window));
  // Without state-space layers or a window every layer below the shared ones is a full cached layer: the
  // same sums in the same order, without three tests per layer (this loop runs for every batch record).
  const bool uniform = !m.ssm && m.sliding_window <= 0;
  const int uniform_cached = uniform ? std::max(0, m.layers - std::max(0, m.kv_shared_layers)) : 0;
  // A whole number of positions added n times is exactly n times it while the sums stay below 2^53 (every
  // integer there is a double): the same figures without a pass over the layers.
  const double c = context.value();
  const bool exact = c >= 0 && c == std::floor(c) && c * static_cast<double>(uniform_cached) < 9007199254740992.0;
  for (int s = 0; exact && s < pp; ++s) {
    const int first = s * per_stage;
    const int last = s + 1 == pp ? uniform_cached : std::min(uniform_cached, first + per_stage);
    const int n = std::max(0, last - first);
    stage_positions[static_cast<std::size_t>(s)] = static_cast<double>(n) * c;
    stage_layers[static_cast<std::size_t>(s)] = n;
  }
  if (exact) positions = static_cast<double>(uniform_cached) * c;
  for (int l = 0; !exact && l < uniform_cached; ++l) {
    const auto stage = static_cast<std::size_t>(std::min(pp - 1, l / per_stage));
    positions += c;
    stage_positions[stage] += c;
    stage_layers[stage] += 1;
  }
  out.cached_layers = out.full_layers = uniform_cached;
  for (int l = 0; !uniform && l < m.layers; ++l) {
    if (layer_state_space(m, l)) {
      ++out.ssm_layers;
      ++stage_ssm[static_cast<std::size_t>(std::min(pp - 1, l / per_stage))];
      continue;
    }
    if (!layer_cached(m, l)) continue;
    ++out.cached_layers;
    const bool sliding = layer_sliding(m, l);
    if (sliding) ++out.sliding_layers;
    else ++out.full_layers;
    const double p = sliding ? window_positions : context.value();
    const auto stage = static_cast<std::size_t>(std::min(pp - 1, l / per_stage));
    positions += p;
    stage_positions[stage] += p;
    stage_layers[stage] += 1;
  }
  const Bytes state_full = ssm_state_bytes(m, 1);
  const Bytes state_rank = ssm_state_bytes(m, tp);
  Bytes busiest = from_base<Bytes>(0);
  for (std::size_t s = 0; s < stage_positions.size(); ++s)
    busiest = std::max(busiest, stage_positions[s] * pos_rank + static_cast<double>(stage_ssm[s]) * state_rank);
  const int busiest_layers = *std::max_element(stage_layers.begin(), stage_layers.end());
  out.per_token = static_cast<double>(out.cached_layers) * pos_full;
  out.scales_per_token = static_cast<double>(out.cached_layers) * scale_part;
  out.per_token_per_device = static_cast<double>(busiest_layers) * pos_rank;
  out.ssm_state_per_sequence = static_cast<double>(out.ssm_layers) * state_full;
  out.per_sequence = positions * pos_full + out.ssm_state_per_sequence;
  out.total = out.per_sequence * batch;
  out.per_device = busiest * batch;
  return out;
}

CacheSize cache_size(const ModelArch& m, const StorageFormat& dtype, Tokens context, Number batch, const Parallelism& par) {
  return cache_size(m, plain_precision(dtype), context, batch, par);
}

// The per-device cache grows monotonically with the context, so a bisection over whole tokens finds the
// largest context that fits.
std::int64_t max_context(const ModelArch& m, const KvPrecision& precision, Number batch, const Parallelism& par,
                         Bytes budget, std::int64_t cap) {
  auto fits = [&](std::int64_t c) {
    return cache_size(m, precision, from_base<Tokens>(static_cast<double>(c)), batch, par).per_device <= budget;
  };
  if (!fits(1)) return 0;
  if (fits(cap)) return cap;
  std::int64_t lo = 1, hi = cap;  // fits(lo), !fits(hi)
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace infracalc::kv
