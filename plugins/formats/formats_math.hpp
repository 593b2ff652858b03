// Storage cost of a format: bits per value with block and tensor scales and structured sparsity.
#pragma once

#include "units/system.hpp"

namespace infracalc::formats {

/// How a format spends its bits.
struct BitsLayout {
  /// Bits of one element.
  Bytes element;
  /// Values sharing one block scale (0: no block scale).
  int block = 0;
  /// Bits of one block scale.
  Bytes scale;
  /// Bits of one per-tensor scale (0: none).
  Bytes tensor_scale;
  /// Values in the tensor that shares the tensor scale (0: leave the tensor scale out).
  double tensor_values = 0;
  /// Kept share of values under structured sparsity (1 = dense, 0.5 = 2:4).
  double kept = 1.0;
  /// Position metadata per kept value (2 bits for 2:4).
  Bytes metadata;
};

/// The cost breakdown of a layout.
struct BitsCost {
  /// Average bits per value: element + scale / block (+ tensor scale / tensor values), times the kept
  /// share plus metadata under sparsity.
  Bytes per_value;
  /// Scale bits per value (block and tensor scales).
  Bytes scale_per_value;
  /// Bits of one block: block × element + scale (the element alone when there is no block scale).
  Bytes block;
};

/// Bits per value of a layout (OCP MX v1.0 section 5: k·w + 8 bits per block; NVFP4: 16·4 + 8 bits per
/// block plus one FP32 scale per tensor; 2:4 sparsity: Mishra et al. 2021, half the values plus 2-bit
/// position indices).
[[nodiscard]] BitsCost bits_cost(const BitsLayout& l);

/// The largest speed-up structured sparsity can give: 1 / kept share (2:4 → 2×).
[[nodiscard]] double sparse_speedup(double kept);

}  // namespace infracalc::formats
