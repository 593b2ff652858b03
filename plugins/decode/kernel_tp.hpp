// A tensor-parallel decode step among simulated ranks (Megatron-LM's split: column-parallel QKV and
// gate/up projections, row-parallel output and down projections), for `verify decode`: it counts the
// all-reduces and their bytes, the weight and KV bytes each rank holds, and checks the result against
// the same step on one device.
#pragma once

#include <vector>

#include "catalog/model_arch.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// What a tensor-parallel step did.
struct TpRun {
  /// The hidden state after the step, batch × hidden.
  std::vector<float> out;
  /// All-reduces performed.
  int allreduces = 0;
  /// Bytes of each all-reduce's buffer (all the same).
  Bytes allreduce_bytes;
  /// Bytes of matrix weights rank 0 holds.
  Bytes rank_weights;
  /// Bytes of KV cache rank 0 holds.
  Bytes rank_kv;
};

/// The small model the kernel runs (GQA, gated MLP, no embeddings).
[[nodiscard]] ModelArch tp_kernel_arch();

/// One decode step of `batch` sequences with `context` cached tokens over `tp` ranks (1 = unsplit).
[[nodiscard]] TpRun tp_step(const ModelArch& m, int tp, int batch, int context);

}  // namespace infracalc::decode
