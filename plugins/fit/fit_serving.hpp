// The inference memory waterfall on one device and the searches built on it: largest batch, longest
// context, fewest devices.
#pragma once

#include <cstdint>
#include <optional>

#include "plugins/fit/fit_math.hpp"

namespace infracalc::fit {

/// Everything the waterfall needs besides batch, context and the parallel layout.
struct InferenceSetup {
  /// The architecture.
  ModelArch arch;
  /// Total parameters (scales the architecture's own count when --params overrides it).
  double params = 0;
  /// Routed-expert parameters.
  double experts = 0;
  /// Weight format.
  const StorageFormat* dtype = nullptr;
  /// Routed-expert weight format.
  const StorageFormat* expert_dtype = nullptr;
  /// KV-cache format.
  const StorageFormat* kv_dtype = nullptr;
  /// Framework reserve per device.
  Bytes framework;
  /// Communication buffers per device when tp × pp > 1.
  Bytes comm;
  /// Activation bytes per device given by the user (replaces the estimate).
  std::optional<Bytes> activations;
  /// Tokens one forward step processes at most (the chunked-prefill budget).
  Tokens step_tokens = from_base<Tokens>(8192);
  /// Bytes of one activation element (BF16: 2).
  Bytes act_bytes = from_base<Bytes>(2.0);
};

/// The waterfall on the busiest device for `batch` sequences of `context` tokens under tp × pp.
[[nodiscard]] Waterfall inference_waterfall(const InferenceSetup& s, Tokens context, double batch, int tp, int pp);

/// The largest batch whose waterfall fits in `usable` (0 when not even one sequence fits).
[[nodiscard]] std::int64_t max_batch(const InferenceSetup& s, Tokens context, int tp, int pp, Bytes usable);

/// The longest context (tokens per sequence) that fits at `batch` (0 when none does); searched up to 2^40.
[[nodiscard]] Tokens max_context(const InferenceSetup& s, double batch, int tp, int pp, Bytes usable);

/// A parallel layout.
struct Layout {
  /// Tensor-parallel ranks.
  int tp = 1;
  /// Pipeline stages.
  int pp = 1;
};

/// The fewest devices whose busiest device fits: for each count n, the widest tensor parallelism of
/// 8, 4, 2 or 1 that divides n and the heads, the rest as pipeline stages; nullopt when 4096 devices do not.
[[nodiscard]] std::optional<Layout> min_layout(const InferenceSetup& s, Tokens context, double batch, Bytes usable);

}  // namespace infracalc::fit
