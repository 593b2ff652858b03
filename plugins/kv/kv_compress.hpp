// KV-cache compression: quantized caches, eviction (H2O, SnapKV, StreamingLLM) and encoded caches
// (CacheGen), as the positions each keeps per layer and the bytes that leaves.
#pragma once

#include <cstdint>
#include <string_view>

#include "plugins/kv/kv_layout.hpp"

namespace infracalc::kv {

/// A compression method.
enum class Method : std::uint8_t { full, int8, int4, h2o, snapkv, streaming, cachegen };

/// Settings of every method.
struct CompressSettings {
  /// Storage of the uncompressed cache.
  KvPrecision base;
  /// Storage of the INT8 cache (scales included).
  KvPrecision int8;
  /// Storage of the INT4 cache (scales included).
  KvPrecision int4;
  /// H2O: share of the sequence kept (heavy hitters plus recent tokens).
  double h2o_ratio = 0.2;
  /// SnapKV: prompt positions kept per layer after prefill (the observation window included).
  std::int64_t snapkv_budget = 1024;
  /// StreamingLLM: attention-sink tokens kept at the start.
  std::int64_t sinks = 4;
  /// StreamingLLM: most recent tokens kept.
  std::int64_t window = 1020;
  /// CacheGen: size of the cache at the base storage divided by the encoded size.
  double cachegen_ratio = 4.0;
};

/// Positions per (full-attention) layer a method keeps after a `prompt`-token prompt and `generated`
/// output tokens: full/int8/int4/cachegen keep every position; H2O ceil(ratio × length); SnapKV
/// min(prompt, budget) + generated; StreamingLLM min(length, sinks + window).
[[nodiscard]] std::int64_t retained_positions(Method m, const CompressSettings& s, std::int64_t prompt, std::int64_t generated);

/// Bytes of `batch` sequences' caches under a method (sliding-window layers still cap at their window;
/// CacheGen divides the base-storage bytes by its ratio).
[[nodiscard]] Bytes compressed_bytes(const ModelArch& m, Method method, const CompressSettings& s, std::int64_t prompt,
                                     std::int64_t generated, Number batch);

/// The method's name as printed ("int8", "h2o", ...).
[[nodiscard]] std::string_view method_name(Method m);

/// What the method leaves out, in a few words.
[[nodiscard]] std::string_view method_caveat(Method m);

}  // namespace infracalc::kv
