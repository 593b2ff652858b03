// Storage formats for weights and caches: how many bits one value takes, scales included.
// The single table other plugins consult for "bytes per value".
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "units/system.hpp"

namespace infracalc {

/// A storage format as other plugins see it.
struct StorageFormat {
  /// Name as typed: "fp16", "int4".
  std::string_view name;
  /// Bits of one element, without scales.
  double element_bits;
  /// Average bits per value including any block or group scales (the figure memory sizes use).
  double bits_per_value;
  /// What the scales are, when there are any.
  std::string_view note;
};

/// Every storage format.
[[nodiscard]] std::span<const StorageFormat> storage_formats();
/// The format with this name, or nullptr.
[[nodiscard]] const StorageFormat* find_storage_format(std::string_view name);
/// Names of every storage format, for choice inputs.
[[nodiscard]] std::vector<std::string_view> storage_format_names();
/// Bytes one value occupies on average (bits_per_value / 8).
[[nodiscard]] Bytes bytes_per_value(const StorageFormat& f);
/// Bytes `count` values occupy in format `f` (weights: parameters × bits per value / 8, scales included).
[[nodiscard]] Bytes storage_bytes(double count, const StorageFormat& f);

}  // namespace infracalc
