// Attention arithmetic and memory traffic: the 4·N²·d rule, and what a naive implementation moves
// through HBM against a tiled one with an online softmax (Dao et al., "FlashAttention", NeurIPS 2022;
// Dao, "FlashAttention-2", 2023), for one head of one layer.
#pragma once

#include "units/system.hpp"

namespace infracalc::decode {

/// One attention head's problem.
struct AttentionShape {
  /// Sequence length (queries = keys = N for a prefill).
  double tokens = 0;
  /// Width of one head.
  int head_dim = 0;
  /// Only keys at or before each query (a causal mask), as a decoder's prefill.
  bool causal = false;
  /// Storage of Q, K, V, O and of the score matrices a naive implementation writes.
  Bytes element;
};

/// Operations of one head: QKᵀ and PV, d multiply-adds each per (query, key) pair, 2 operations per
/// multiply-add: 4·N²·d without a mask, 2·d·N(N+1) with a causal one.
[[nodiscard]] Flops attention_flops(const AttentionShape& s);

/// Operations of one head when each query sees at most `window` keys (sliding-window attention, linear in N).
[[nodiscard]] Flops windowed_attention_flops(const AttentionShape& s, double window);

/// HBM traffic of the standard implementation (FlashAttention paper, Algorithm 0): read Q and K, write
/// S = QKᵀ, read S, write P = softmax(S), read P and V, write O: (4·N·d + 4·N²) elements. A causal mask
/// does not shrink it: the full N×N matrices are still written and read.
[[nodiscard]] Bytes naive_attention_traffic(const AttentionShape& s);

/// Rows of Q (and of K and V) per tile so that one tile of Q, K and V, the output accumulator, the score
/// tile and the running max and sum fit in `on_chip` bytes: the largest b with
/// (2·b·d + 2·b·d + b² + 2·b) × element ≤ on_chip. Zero when not even one row fits.
[[nodiscard]] int flash_block_rows(const AttentionShape& s, Bytes on_chip);

/// HBM traffic of the tiled kernel with an online softmax in FlashAttention-2's loop order: each block of
/// `block` queries is read once and its output written once, while K and V stream past it
/// (all of them, or with a causal mask only the blocks up to the diagonal):
/// N·d + N·d + 2·d·Σ(keys each query block visits) elements. The N×N scores never leave the chip.
[[nodiscard]] Bytes flash_attention_traffic(const AttentionShape& s, int block);

}  // namespace infracalc::decode
