// Whole-tensor quantization into real byte buffers: plain element formats, per-tensor scaled FP8/FP6/FP4
// and integers, OCP MX block formats (E8M0 scale per block), NVFP4 (E4M3 scale per 16 plus an FP32
// tensor scale) and integers with group scales. The bytes produced are the bytes a checkpoint holds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "plugins/formats/element.hpp"
#include "plugins/formats/storage.hpp"

namespace infracalc::formats {

/// How a tensor's values are scaled before they are encoded.
enum class Scaling : std::uint8_t {
  none,    ///< values are encoded as they are (FP32, TF32, BF16, FP16)
  tensor,  ///< one FP32 scale for the whole tensor: amax / largest element value
  block,   ///< one scale per block of `block` values (MX when the scale is E8M0), optionally under a tensor scale
};

/// The layout of a quantized tensor.
struct TensorLayout {
  /// Display name ("mxfp4", "int4-g128", or a custom "fp4-e2m1/16xfp8-e4m3").
  std::string name;
  /// Element encoding.
  Elem element = Elem::fp32;
  /// Scaling scheme.
  Scaling scaling = Scaling::none;
  /// Values per block (block scaling only).
  int block = 0;
  /// Block scale encoding (block scaling only). E8M0 selects the OCP MX power-of-two rule.
  Elem scale = Elem::e8m0;
  /// True when an FP32 tensor scale sits above the block scales (NVFP4).
  bool tensor_scale = false;
  /// True for OCP MXINT8: the int8 element carries an implicit factor 2^-6.
  bool mx_int = false;
};

/// The layout a storage format describes (nvfp4 → E2M1, 16-value E4M3 blocks, FP32 tensor scale).
[[nodiscard]] TensorLayout layout_of(const StorageFormat& f);
/// A block layout with a chosen element, block size and scale format; E8M0 scales use the MX rule,
/// others the amax / largest-element rule. `tensor_scale` adds an FP32 scale above the blocks.
[[nodiscard]] TensorLayout block_layout(Elem element, int block, Elem scale, bool tensor_scale);

/// A tensor as stored: packed element codes, block scale codes and the tensor scale.
struct QuantizedTensor {
  /// Its layout.
  TensorLayout layout;
  /// Number of values.
  std::size_t count = 0;
  /// Element codes, packed tightly (two 4-bit codes per byte, four 6-bit codes per three bytes).
  std::vector<std::uint8_t> payload;
  /// Block scale codes, little-endian, one per block.
  std::vector<std::uint8_t> scales;
  /// The FP32 tensor scale (1 when there is none).
  float tensor_scale = 1.0f;

  /// Bytes the stored tensor occupies: payload, block scales and the FP32 tensor scale when present.
  [[nodiscard]] std::size_t bytes() const;
};

/// Quantizes values into `layout` (round to nearest even; elements saturate inside scaled formats).
[[nodiscard]] QuantizedTensor quantize(std::span<const float> values, const TensorLayout& layout);
/// Decodes a quantized tensor back to FP32; `out` must hold q.count values.
void dequantize(const QuantizedTensor& q, std::span<float> out);

/// The OCP MX shared exponent of a block: floor(log2(amax)) - emax(element), clamped to E8M0's range;
/// returns the E8M0 code (0xFF when amax is Inf or NaN).
[[nodiscard]] std::uint32_t mx_scale_code(float amax, int element_emax);

}  // namespace infracalc::formats
