// KV-cache sizing: the typed formulas behind `kv size`.
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
