// KV-cache bytes for a whole model layout: every layer's own cache (full or sliding window, GQA/MQA/MHA
// heads or an MLA latent), cross-layer sharing, and the split across tensor- and pipeline-parallel ranks.
#pragma once

#include "plugins/catalog/model_arch.hpp"
#include "plugins/formats/storage.hpp"
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
};

/// Bytes one cached position of one layer takes on one device: 2 × kv_heads × head_dim elements for
/// MHA/GQA/MQA (kv heads divided over tp ranks, at least one), kv_lora_rank + qk_rope_head_dim for MLA.
[[nodiscard]] Bytes bytes_per_position(const ModelArch& m, const StorageFormat& dtype, int tp);

/// The cache of `batch` sequences of `context` tokens each.
[[nodiscard]] CacheSize cache_size(const ModelArch& m, const StorageFormat& dtype, Tokens context, Number batch,
                                   const Parallelism& par = {});

}  // namespace infracalc::kv
