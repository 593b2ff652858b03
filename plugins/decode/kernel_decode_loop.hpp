// A real decode loop over a synthetic transformer, for `verify decode`: FP32 weights in their own
// buffers (fused QKV, output projection, gated MLP, RMSNorm, untied embeddings and output head), a KV
// cache per layer and sequence, grouped-query attention over it, and a greedy next-token choice. Every
// weight matrix streams from memory once per step; the loop counts the bytes and operations it performs.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "catalog/model_arch.hpp"
#include "plugins/kernels/thread_team.hpp"
#include "units/system.hpp"

namespace infracalc::decode {

/// Sizes of the synthetic model.
struct SyntheticShape {
  /// Transformer layers.
  int layers = 2;
  /// Model width.
  int hidden = 128;
  /// Query heads.
  int heads = 4;
  /// Key/value heads.
  int kv_heads = 2;
  /// Head width.
  int head_dim = 32;
  /// MLP width (gated: three matrices).
  int ffn = 256;
  /// Vocabulary.
  int vocab = 512;
};

/// The architecture of a synthetic model, as count_params and kv::cache_size see it.
[[nodiscard]] ModelArch synthetic_arch(const SyntheticShape& s);

/// What one step did.
struct StepCount {
  /// Weight bytes streamed (matrices, norms and the embedding rows looked up).
  Bytes weights;
  /// KV-cache bytes read.
  Bytes kv_read;
  /// KV-cache bytes written.
  Bytes kv_write;
  /// Operations in matrix products.
  Flops matmul_flops;
  /// Operations in attention (QKᵀ and PV).
  Flops attention_flops;
};

/// The model, its KV cache and the loop.
class SyntheticDecoder {
 public:
  /// Allocates and fills the weights (seeded) and a cache for `max_batch` sequences of up to
  /// `max_context` positions.
  SyntheticDecoder(const SyntheticShape& shape, int max_batch, int max_context, kernels::ThreadTeam& team);
  ~SyntheticDecoder();
  SyntheticDecoder(const SyntheticDecoder&) = delete;
  SyntheticDecoder& operator=(const SyntheticDecoder&) = delete;

  /// Floats allocated for weights.
  [[nodiscard]] std::size_t weight_floats() const;
  /// Fills the first `context` cache positions of `batch` sequences with seeded values, as a prefill
  /// would, and sets each sequence's position to `context`.
  void prefill_cache(int batch, int context);
  /// One decode step for the first `batch` sequences: each appends one token. Returns what it counted.
  StepCount step(int batch);
  /// The current context length of the sequences.
  [[nodiscard]] int position() const;
  /// Next tokens chosen by the last step.
  [[nodiscard]] const std::vector<int>& tokens() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace infracalc::decode
