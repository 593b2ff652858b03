// Element formats: the bit layouts of single values (IEEE 754 binary32/16, bfloat16, TF32, OCP 8-bit
// floats, OCP MX 6- and 4-bit floats, two's-complement integers, the E8M0 scale) and the exact
// reference decoder and encoder that the fast codecs are checked against.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace infracalc::formats {

/// Every element format.
enum class Elem : std::uint8_t { fp32, tf32, bf16, fp16, e4m3, e5m2, e3m2, e2m3, e2m1, int8, int4, e8m0 };

/// How a format spends its top exponent codes.
enum class Special : std::uint8_t {
  ieee,        ///< exponent all ones: infinity (mantissa 0) or NaN (IEEE 754, OCP E5M2)
  single_nan,  ///< no infinities; only S.1111.111 is NaN (OCP E4M3, "FN")
  finite,      ///< every code is a finite number (OCP FP6, FP4; integers)
  exponent,    ///< E8M0: unsigned power of two, 0xFF is NaN, no zero
};

/// The layout of one element format.
struct ElementSpec {
  /// Which format.
  Elem id;
  /// Name as typed ("fp8-e4m3").
  std::string_view name;
  /// Long name with its standard.
  std::string_view title;
  /// Bits of one code.
  int bits;
  /// Exponent bits (0 for integers).
  int exp_bits;
  /// Mantissa (trailing significand) bits (value bits for integers).
  int man_bits;
  /// Exponent bias.
  int bias;
  /// True for two's-complement integers.
  bool integer;
  /// Special-value scheme.
  Special special;
  /// True when a cast saturates at the largest finite value unless asked otherwise (formats without
  /// infinities or NaN have no other choice; FP8 casts overflow to Inf/NaN unless saturation is asked for).
  bool saturates;
};

/// Every element format.
[[nodiscard]] std::span<const ElementSpec> element_specs();
/// The spec of one format.
[[nodiscard]] const ElementSpec& spec(Elem e);
/// The format with this name (aliases "fp8" → fp8-e4m3, "e2m1" → fp4-e2m1, ...), or nullptr.
[[nodiscard]] const ElementSpec* find_element(std::string_view name);

/// What a code means.
enum class CodeClass : std::uint8_t { zero, subnormal, normal, infinity, nan };

/// One code taken apart.
struct Decoded {
  /// The value (infinities as ±inf, NaN as NaN).
  double value = 0;
  /// Its class.
  CodeClass cls = CodeClass::zero;
  /// Sign bit.
  int sign = 0;
  /// Exponent field as stored.
  std::uint32_t exp_field = 0;
  /// Mantissa field as stored.
  std::uint32_t man_field = 0;
};

/// Decodes one code exactly (double arithmetic with ldexp): the reference decoder.
[[nodiscard]] Decoded decode_code(const ElementSpec& s, std::uint32_t code);

/// The result of encoding one value.
struct Encoded {
  /// The code.
  std::uint32_t code = 0;
  /// True when the value was beyond the largest finite value and clamped to it.
  bool saturated = false;
  /// True when the value overflowed to infinity or NaN.
  bool overflowed = false;
};

/// Encodes a value with round-to-nearest-even, saturating or not (exact reference encoder on doubles).
/// Integers always saturate; NaN goes to the format's NaN (formats without NaN give code 0 and overflowed).
[[nodiscard]] Encoded encode_value(const ElementSpec& s, double x, bool saturate);

/// Number of codes (2^bits).
[[nodiscard]] std::uint32_t code_count(const ElementSpec& s);
/// Largest finite value.
[[nodiscard]] double max_finite(const ElementSpec& s);
/// Smallest positive normal value (1 for integers).
[[nodiscard]] double min_normal(const ElementSpec& s);
/// Smallest positive subnormal value (equal to min_normal when the format has none).
[[nodiscard]] double min_subnormal(const ElementSpec& s);
/// Machine epsilon: the gap between 1 and the next larger value, 2^-mantissa_bits (1 for integers).
[[nodiscard]] double epsilon(const ElementSpec& s);
/// True when the format has infinities.
[[nodiscard]] bool has_inf(const ElementSpec& s);
/// True when the format has NaN codes.
[[nodiscard]] bool has_nan(const ElementSpec& s);
/// Largest power-of-two exponent of a normal value (emax; used for MX scale selection).
[[nodiscard]] int emax(const ElementSpec& s);

}  // namespace infracalc::formats
