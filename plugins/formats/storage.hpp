// Storage formats for weights and caches: how many bits one value takes, scales included.
// The single table other plugins consult for "bytes per value": plain element formats, formats with a
// per-tensor scale, the OCP Microscaling block formats, NVFP4, and integers with group scales.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "units/system.hpp"

namespace infracalc {

/// A storage format as other plugins see it.
struct StorageFormat {
  /// Name as typed: "fp16", "int4", "mxfp4", "nvfp4", "int4-g128".
  std::string_view name;
  /// Bits of one element, without scales.
  double element_bits;
  /// Average bits per value including any block or group scales (the figure memory sizes use).
  double bits_per_value;
  /// What the scales are, when there are any.
  std::string_view note;
  /// The element encoding, as a formats element name ("fp4-e2m1", "int4", "bf16").
  std::string_view element{};
  /// Values sharing one scale (32 for MX, 16 for NVFP4, g for group-scaled integers); 0 for per-tensor or none.
  int block = 0;
  /// Encoding of the block scale ("e8m0", "fp8-e4m3", "fp16"); empty when there is none.
  std::string_view scale{};
  /// Bits of the block scale (0 when there is none).
  int scale_bits = 0;
  /// Bits of one per-tensor scale (32 for NVFP4's FP32 scale and for per-tensor scaled FP8/INT formats).
  int tensor_scale_bits = 0;
};

/// Bits per value of a block format: element bits plus the block scale spread over the block.
[[nodiscard]] constexpr double block_bits_per_value(double element_bits, int scale_bits, int block) {
  return block > 0 ? element_bits + static_cast<double>(scale_bits) / block : element_bits;
}

/// Every storage format.
[[nodiscard]] std::span<const StorageFormat> storage_formats();
/// The format with this name, or nullptr.
[[nodiscard]] const StorageFormat* find_storage_format(std::string_view name);
/// The format named by input `key` (a flag, or a catalog field such as a model's native_format): a UserError naming the
/// input when the table has no such format.
[[nodiscard]] const StorageFormat& storage_format_of(std::string_view name, std::string_view key);
/// Names of every storage format, for choice inputs.
[[nodiscard]] std::vector<std::string_view> storage_format_names();
/// Bytes one value occupies on average (bits_per_value / 8).
[[nodiscard]] Bytes bytes_per_value(const StorageFormat& f);
/// Bytes `count` values occupy in format `f` (weights: parameters × bits per value / 8, scales included;
/// per-tensor scales are left out: a few bytes per tensor).
[[nodiscard]] Bytes storage_bytes(double count, const StorageFormat& f);
/// Bytes `count` values occupy when packed without any scale (count × element bits / 8): the naive figure.
[[nodiscard]] Bytes element_bytes(double count, const StorageFormat& f);

}  // namespace infracalc
