// KV-cache bytes for a whole model layout: every layer's own cache (full or sliding window, GQA/MQA/MHA
// heads or an MLA latent), cross-layer sharing, quantization scales, and the split across tensor- and
// pipeline-parallel ranks.
#pragma once

#include <cstdint>
#include <vector>

#include "catalog/model_arch.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kv/kv_precision.hpp"
#include "units/system.hpp"

namespace infracalc::kv {

/// How a cache is spread over devices.
struct Parallelism {
  /// Tensor-parallel ranks: KV heads are split across them (replicated when there are fewer heads than
  /// ranks; an MLA latent is replicated on every rank).
  int tp = 1;
  /// Pipeline stages: layers are split across them; the busiest stage holds ceil(layers / pp) layers.
  int pp = 1;
};

/// The cache of a model at one context length.
struct CacheSize {
  /// Bytes one more token adds while every layer still grows (all layers, K and V or latent).
  Bytes per_token;
  /// Bytes of one sequence at the context length (sliding layers capped at their window).
  Bytes per_sequence;
  /// Bytes for the whole batch.
  Bytes total;
  /// Bytes the busiest device holds under the parallel split.
  Bytes per_device;
  /// Layers that store a cache (cross-layer shared layers excluded).
  int cached_layers = 0;
  /// Bytes one more token adds on the busiest device while every layer still grows.
  Bytes per_token_per_device;
  /// Of per_token, the bytes of quantization scales and zero points.
  Bytes scales_per_token;
  /// Cached layers that attend over a sliding window.
  int sliding_layers = 0;
  /// Cached layers that attend over every earlier token.
  int full_layers = 0;
  /// State-space (Mamba) layers: no KV cache, a fixed recurrent state per sequence.
  int ssm_layers = 0;
  /// Of per_sequence, the recurrent state of the state-space layers (conv and SSM state): constant in the context.
  Bytes ssm_state_per_sequence;
};

/// KV heads one tensor-parallel rank holds: ceil(kv_heads / tp), at least one (replicated past the
/// head count). MLA caches are not split (the latent serves every head).
[[nodiscard]] int kv_heads_per_rank(const ModelArch& m, int tp);

/// The vectors one cached position of one layer stores on one rank: 2 × heads of head_dim for MHA/GQA/MQA
/// (K and V), one of kv_lora_rank and one of qk_rope_head_dim for MLA.
[[nodiscard]] VectorRuns position_vectors(const ModelArch& m, int tp);
/// Elements of all the vectors in `runs`.
[[nodiscard]] std::int64_t vector_elements(const VectorRuns& runs);

/// Bytes one cached position of one layer takes on one device: 2 × kv_heads × head_dim elements for
/// MHA/GQA/MQA (kv heads divided over tp ranks, at least one), kv_lora_rank + qk_rope_head_dim for MLA.
[[nodiscard]] Bytes bytes_per_position(const ModelArch& m, const StorageFormat& dtype, int tp);

/// As above, with the scales of a quantized cache included.
[[nodiscard]] Bytes bytes_per_position(const ModelArch& m, const KvPrecision& precision, int tp);

/// True when layer `layer` (0-based) stores its own cache (false for cross-layer shared layers).
[[nodiscard]] bool layer_cached(const ModelArch& m, int layer);

/// True when layer `layer` (0-based) is a state-space (Mamba) layer: it keeps a recurrent state, not a KV cache.
[[nodiscard]] bool layer_state_space(const ModelArch& m, int layer);

/// Bytes of one state-space layer's recurrent state for one sequence on one of `tp` ranks: the conv state and the
/// SSM state in the model file's ssm.state_dtype; zero for a model without state-space layers.
[[nodiscard]] Bytes ssm_state_bytes(const ModelArch& m, int tp);

/// The note every calculator that sizes a hybrid's cache prints: the state-space layers, their conv and SSM state
/// elements and dtype, and `per_sequence` bytes of fixed state per sequence; "" for a model without them.
[[nodiscard]] std::string state_space_note(const ModelArch& m, Bytes per_sequence);

/// True when layer `layer` (0-based) attends over a sliding window.
[[nodiscard]] bool layer_sliding(const ModelArch& m, int layer);

/// Positions layer `layer` holds for one sequence of `context` tokens (the window caps sliding layers;
/// shared layers hold none).
[[nodiscard]] Tokens layer_positions(const ModelArch& m, int layer, Tokens context);

/// The cache of `batch` sequences of `context` tokens each.
[[nodiscard]] CacheSize cache_size(const ModelArch& m, const StorageFormat& dtype, Tokens context, Number batch,
                                   const Parallelism& par = {});

/// The cache of `batch` sequences of `context` tokens each, with the scales of a quantized cache.
[[nodiscard]] CacheSize cache_size(const ModelArch& m, const KvPrecision& precision, Tokens context, Number batch,
                                   const Parallelism& par = {});

/// The longest context whose cache for `batch` sequences fits `budget` on the busiest device, in whole
/// tokens; 0 when not even one token fits, `cap` when `cap` tokens fit (a model whose layers all slide
/// stops growing at its window and never runs out).
[[nodiscard]] std::int64_t max_context(const ModelArch& m, const KvPrecision& precision, Number batch,
                                       const Parallelism& par, Bytes budget, std::int64_t cap);

}  // namespace infracalc::kv
