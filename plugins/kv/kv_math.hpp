// The plain KV-cache formulas: bytes per token of one uniform layout (K and V for every layer and KV head)
// and the total for a batch. The size `kv size` reports, for any layout (sliding windows, latent attention,
// state-space layers) and per device under TP/PP, is `cache_size` in kv_layout.hpp, summed layer by layer;
// these closed forms are what the reference kernels (kv_kernel_buffers.cpp) check a real buffer against.
#pragma once

#include "units/system.hpp"

namespace infracalc::kv {

/// How keys and values are laid out per layer.
struct KvShape {
  /// Transformer layers that keep a KV cache.
  Number layers;
  /// Key/value heads per layer (= query heads for MHA, 1 for MQA, a divisor of them for GQA).
  Number kv_heads;
  /// Width of one head.
  Number head_dim;
  /// Storage of one cached element, scales included.
  Bytes bytes_per_element;
};

/// KV bytes one token occupies: 2 (K and V) × layers × kv_heads × head_dim × bytes per element.
[[nodiscard]] Bytes bytes_per_token(const KvShape& s);

/// KV bytes for `tokens` tokens in each of `batch` sequences.
[[nodiscard]] Bytes total(Bytes per_token, Tokens tokens, Number batch);

/// A token count as a plain number (tokens / 1 tok).
[[nodiscard]] Number token_count(Tokens t);

}  // namespace infracalc::kv
