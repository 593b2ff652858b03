// How one cached K/V element is stored: the element format plus the scales (and zero points) that a
// quantized cache keeps beside it.
#pragma once

#include <array>

#include <cstdint>
#include <string_view>
#include <vector>

#include "plugins/formats/storage.hpp"
#include "units/system.hpp"

namespace infracalc::kv {

/// Which elements share one quantization scale.
enum class ScaleGranularity : std::uint8_t {
  tensor,  ///< one scale per tensor (or per layer): negligible, nothing stored per token
  vector,  ///< one scale per cached vector: per token per KV head (or per MLA latent / RoPE key)
  group,   ///< one scale per `group_size` consecutive elements of a vector
};

/// Storage of cached elements, scales included.
struct KvPrecision {
  /// Element format (bits per element, without scales).
  const StorageFormat* format = nullptr;
  /// Scale sharing.
  ScaleGranularity scales = ScaleGranularity::tensor;
  /// Elements per scale when `scales` is group.
  int group_size = 32;
  /// Bytes of one stored scale (2 for fp16/bf16, 4 for fp32).
  Bytes scale_bytes = from_base<Bytes>(2.0);
  /// True when an asymmetric (zero-point) quantizer stores a zero point of the scale's width too.
  bool zero_point = false;
};

/// A precision with per-tensor scales only: the element format's own bytes per value.
[[nodiscard]] KvPrecision plain_precision(const StorageFormat& f);

/// Scale groups one vector of `elements` elements needs (0 for tensor scales, 1 per vector,
/// ceil(elements / group_size) per group).
[[nodiscard]] std::int64_t scale_groups(const KvPrecision& p, std::int64_t elements);

/// `count` cached vectors of `length` elements each.
struct VectorRun {
  /// How many vectors.
  std::int64_t count = 0;
  /// Elements in each.
  std::int64_t length = 0;
};

/// The vectors of one cached position: at most two runs (K and V of the same heads; MLA's latent and RoPE key;
/// MHA's K and V when their widths differ). An unused run has count 0.
using VectorRuns = std::array<VectorRun, 2>;

/// Bytes that the vectors take: packed elements (bits rounded up to whole bytes per vector only when the format
/// packs sub-byte values) plus their scales.
[[nodiscard]] Bytes vectors_bytes(const KvPrecision& p, const VectorRuns& runs);

/// Average bytes per element of a vector of `elements` elements, scales included.
[[nodiscard]] Bytes bytes_per_element(const KvPrecision& p, std::int64_t elements);

/// "tensor", "head" or "group", as the --kv-scales flag spells it.
[[nodiscard]] std::string_view granularity_name(ScaleGranularity g);

}  // namespace infracalc::kv
