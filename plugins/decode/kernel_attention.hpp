// Reference attention kernels for `verify decode`: the standard three-pass implementation and a tiled
// one with an online softmax, both counting the operations they perform and the bytes they move between
// "HBM" (ordinary arrays) and "on-chip" tile buffers of a fixed capacity.
#pragma once

#include <cstddef>
#include <vector>

#include "units/system.hpp"

namespace infracalc::decode {

/// Q, K and V of one head, N × d each, row-major, in FP32.
struct HeadInputs {
  /// Sequence length.
  std::size_t n = 0;
  /// Head width.
  std::size_t d = 0;
  /// Queries, keys, values.
  std::vector<float> q, k, v;
};

/// What an attention kernel produced and counted.
struct AttentionRun {
  /// Output, N × d.
  std::vector<float> out;
  /// Multiply-adds × 2 in QKᵀ and PV (the operations the 4·N²·d rule counts).
  Flops flops;
  /// Bytes read from and written to the HBM arrays.
  Bytes traffic;
  /// Largest on-chip footprint of the tiles (tiled kernel only).
  Bytes on_chip;
};

/// Random Q, K, V from a seed.
[[nodiscard]] HeadInputs random_head(std::size_t n, std::size_t d, unsigned seed);

/// Standard attention: S = QKᵀ/√d written to HBM, softmax read back and P written, then O = PV.
[[nodiscard]] AttentionRun naive_attention(const HeadInputs& in, bool causal);

/// Tiled attention in FlashAttention-2's loop order with `block` rows per tile: each query tile stays on
/// chip while K and V tiles stream past; the softmax is rescaled online (Milakov and Gimelshein 2018).
[[nodiscard]] AttentionRun tiled_attention(const HeadInputs& in, bool causal, std::size_t block);

}  // namespace infracalc::decode
