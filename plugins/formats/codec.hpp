// Fast FP32 ⇄ element-code conversion: branch-light bit operations, no allocation, inlined into the
// tensor loops. Every function here is checked code by code against the exact reference in element.hpp
// by the formats kernels.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>

#include "plugins/formats/element.hpp"

namespace infracalc::formats {

/// Encodes one FP32 value into a float format of at most 16 bits whose exponent is narrower than FP32's
/// (FP16, E4M3, E5M2, E3M2, E2M3, E2M1), rounding to nearest even. Overflow saturates when `saturate`
/// is set (or the format has no Inf/NaN), else goes to Inf (IEEE-like) or NaN (E4M3). NaN input gives
/// NaN, or the largest value for formats without NaN (block formats flag NaN in the scale instead).
template <int E, int M, int Bias, Special S>
[[nodiscard]] inline std::uint32_t encode_narrow(float f, bool saturate) {
  static_assert(E >= 2 && E <= 5 && M >= 1 && M <= 10);
  constexpr std::uint32_t exp_ones = (1u << E) - 1u;
  constexpr std::uint32_t max_code = S == Special::ieee         ? (((exp_ones - 1u) << M) | ((1u << M) - 1u))
                                     : S == Special::single_nan ? ((1u << (E + M)) - 2u)
                                                                : ((1u << (E + M)) - 1u);
  constexpr std::uint32_t inf_code = exp_ones << M;
  constexpr std::uint32_t nan_code = S == Special::ieee ? (inf_code | (1u << (M - 1))) : ((1u << (E + M)) - 1u);
  constexpr std::uint32_t overflow_code = S == Special::ieee ? inf_code : S == Special::single_nan ? nan_code : max_code;
  // 2^(1 - Bias), the smallest normal, as FP32 bits.
  constexpr std::uint32_t min_normal_bits = static_cast<std::uint32_t>(127 - Bias + 1) << 23;
  // Adding 2^(24 - Bias - M) makes the FP32 adder round at the target's subnormal quantum (F. Giesen's
  // float→half method); the low bits of the sum are then the subnormal code.
  constexpr std::uint32_t magic_bits = static_cast<std::uint32_t>((127 - Bias) + (23 - M) + 1) << 23;

  // Both paths are computed and one is selected, so the loop has no data-dependent branch and vectorizes.
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (bits >> 31) << (E + M);
  const std::uint32_t a = bits & 0x7FFFFFFFu;
  const float sub = std::bit_cast<float>(a) + std::bit_cast<float>(magic_bits);
  const std::uint32_t sub_code = std::bit_cast<std::uint32_t>(sub) - magic_bits;
  const std::uint32_t odd = (a >> (23 - M)) & 1u;
  // Rebias the exponent and round the mantissa to nearest even in one add (carries ripple into the exponent).
  const std::uint32_t norm_code =
      (a + (static_cast<std::uint32_t>(Bias - 127) << 23) + (1u << (22 - M)) - 1u + odd) >> (23 - M);
  // Selections by masks (all ones or zero) rather than branches.
  const std::uint32_t is_sub = 0u - static_cast<std::uint32_t>(a < min_normal_bits);
  std::uint32_t code = (sub_code & is_sub) | (norm_code & ~is_sub);
  // Inf lands here too (its rebiased code is far above the largest): it saturates or overflows like a value.
  const std::uint32_t over = 0u - static_cast<std::uint32_t>(code > max_code);
  const std::uint32_t over_code = saturate ? max_code : overflow_code;
  code = (code & ~over) | (over_code & over);
  const std::uint32_t is_nan = 0u - static_cast<std::uint32_t>(a > 0x7F800000u);
  code = (code & ~is_nan) | ((S == Special::finite ? max_code : nan_code) & is_nan);
  return sign | code;
}

/// Decodes a code of a narrow float format to FP32 (exact: every such value is an FP32 value).
template <int E, int M, int Bias, Special S>
[[nodiscard]] inline float decode_narrow(std::uint32_t code) {
  constexpr std::uint32_t exp_ones = (1u << E) - 1u;
  const std::uint32_t sign = ((code >> (E + M)) & 1u) << 31;
  const std::uint32_t e = (code >> M) & exp_ones;
  const std::uint32_t m = code & ((1u << M) - 1u);
  if constexpr (S == Special::ieee) {
    if (e == exp_ones) return std::bit_cast<float>(sign | 0x7F800000u | (m << (23 - M)) | (m != 0 ? 0x400000u : 0u));
  }
  if constexpr (S == Special::single_nan) {
    if (e == exp_ones && m == (1u << M) - 1u) return std::bit_cast<float>(sign | 0x7FC00000u);
  }
  if (e == 0) {
    // m × 2^(1 - Bias - M), built from the exact FP32 power of two.
    constexpr float quantum = std::bit_cast<float>(static_cast<std::uint32_t>(127 + 1 - Bias - M) << 23);
    const float v = static_cast<float>(m) * quantum;
    return std::bit_cast<float>(std::bit_cast<std::uint32_t>(v) | sign);
  }
  return std::bit_cast<float>(sign | ((e + 127u - Bias) << 23) | (m << (23 - M)));
}

/// FP32 → bfloat16 with round-to-nearest-even; NaN stays NaN (quiet).
[[nodiscard]] inline std::uint32_t encode_bf16(float f, bool saturate) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return (bits >> 16) | 0x40u;
  std::uint32_t code = (bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16;
  if (saturate && (code & 0x7F80u) == 0x7F80u) code = (code & 0x8000u) | 0x7F7Fu;
  return code;
}

/// FP32 → TF32 (19-bit code: sign, 8 exponent, 10 mantissa) with round-to-nearest-even.
[[nodiscard]] inline std::uint32_t encode_tf32(float f, bool saturate) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(f);
  if ((bits & 0x7FFFFFFFu) > 0x7F800000u) return (bits >> 13) | 0x200u;
  std::uint32_t code = (bits + 0xFFFu + ((bits >> 13) & 1u)) >> 13;
  if (saturate && (code & 0x3FC00u) == 0x3FC00u) code = (code & 0x40000u) | 0x3FBFFu;
  return code;
}

/// Rounds to the nearest integer, ties to even, for |x| < 2^22 (the 1.5 × 2^23 trick: the FP32 adder rounds).
[[nodiscard]] inline float round_even(float x) {
  constexpr float magic = 12582912.0f;  // without -ffast-math the compiler keeps both operations
  return (x + magic) - magic;
}

/// Encodes x as a two's-complement integer of `bits` bits (RNE, saturating to [-2^(bits-1), 2^(bits-1)-1];
/// NaN, which no integer holds, saturates by its sign bit).
[[nodiscard]] inline std::uint32_t encode_int(float x, int bits) {
  // Integer operations only around the rounding, so the loop vectorizes: the magnitude is first capped at
  // 2^20 through its bits (far outside any integer range here, and inside the rounding trick's range).
  const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
  std::uint32_t a = b & 0x7FFFFFFFu;
  a = a < 0x49800000u ? a : 0x49800000u;  // 2^20
  const auto r = static_cast<std::int32_t>(round_even(std::bit_cast<float>((b & 0x80000000u) | a)));
  const std::int32_t hi = (1 << (bits - 1)) - 1, lo = -hi - 1;
  std::int32_t c = r < hi ? r : hi;
  c = c > lo ? c : lo;
  return static_cast<std::uint32_t>(c) & ((1u << bits) - 1u);
}

/// Decodes a two's-complement code of `bits` bits.
[[nodiscard]] inline float decode_int(std::uint32_t code, int bits) {
  const std::int32_t v = (code & (1u << (bits - 1))) != 0 ? static_cast<std::int32_t>(code) - (1 << bits)
                                                          : static_cast<std::int32_t>(code);
  return static_cast<float>(v);
}

/// Fast encode of one FP32 value into any element format (dispatches on the format).
[[nodiscard]] std::uint32_t encode_fast(Elem e, float x, bool saturate);
/// Fast decode of one code into FP32 (TF32, BF16 and narrower formats decode exactly; E8M0 0xFF → NaN).
[[nodiscard]] float decode_fast(Elem e, std::uint32_t code);

/// Encodes `in` into one code per element (formats of at most 8 bits), RNE.
void encode_bytes(Elem e, std::span<const float> in, std::span<std::uint8_t> out, bool saturate);
/// Decodes one code per byte into FP32.
void decode_bytes(Elem e, std::span<const std::uint8_t> in, std::span<float> out);

/// Packs 4-bit codes two per byte, the first value in the low nibble (the OCP MX and NVFP4 convention).
void pack4(std::span<const std::uint8_t> codes, std::span<std::uint8_t> out);
/// Unpacks 4-bit codes packed by pack4.
void unpack4(std::span<const std::uint8_t> packed, std::span<std::uint8_t> codes);
/// Packs 6-bit codes four per three bytes, little-endian bit order.
void pack6(std::span<const std::uint8_t> codes, std::span<std::uint8_t> out);
/// Unpacks 6-bit codes packed by pack6.
void unpack6(std::span<const std::uint8_t> packed, std::span<std::uint8_t> codes);
/// Bytes that `count` codes of `bits` bits occupy when packed tightly.
[[nodiscard]] constexpr std::size_t packed_size(std::size_t count, int bits) {
  return (count * static_cast<std::size_t>(bits) + 7) / 8;
}

}  // namespace infracalc::formats
