#include "plugins/formats/element.hpp"

#include <array>
#include <cmath>

namespace infracalc::formats {

namespace {

// Layouts: IEEE 754-2019 (binary32, binary16); bfloat16 and TF32 as NVIDIA's A100 architecture
// whitepaper (2020) describes them (FP32's 8-bit exponent with 7 and 10 mantissa bits); OCP 8-bit
// Floating Point Specification (OFP8) rev 1.0 (2023) for E4M3 and E5M2; OCP Microscaling Formats (MX)
// v1.0 (2023), section 5, for E3M2, E2M3, E2M1 and the E8M0 scale.
constexpr std::array kSpecs = {
    ElementSpec{Elem::fp32, "fp32", "IEEE 754 binary32", 32, 8, 23, 127, false, Special::ieee, false},
    ElementSpec{Elem::tf32, "tf32", "NVIDIA TensorFloat-32 (19 significant bits of an FP32 word)", 19, 8, 10, 127, false,
                Special::ieee, false},
    ElementSpec{Elem::bf16, "bf16", "bfloat16 (the top half of an FP32 word)", 16, 8, 7, 127, false, Special::ieee, false},
    ElementSpec{Elem::fp16, "fp16", "IEEE 754 binary16", 16, 5, 10, 15, false, Special::ieee, false},
    ElementSpec{Elem::e4m3, "fp8-e4m3", "OCP FP8 E4M3 (no infinities, S.1111.111 is NaN)", 8, 4, 3, 7, false,
                Special::single_nan, false},
    ElementSpec{Elem::e5m2, "fp8-e5m2", "OCP FP8 E5M2 (IEEE-like infinities and NaNs)", 8, 5, 2, 15, false, Special::ieee, false},
    ElementSpec{Elem::e3m2, "fp6-e3m2", "OCP MX FP6 E3M2 (no infinities or NaNs)", 6, 3, 2, 3, false, Special::finite, true},
    ElementSpec{Elem::e2m3, "fp6-e2m3", "OCP MX FP6 E2M3 (no infinities or NaNs)", 6, 2, 3, 1, false, Special::finite, true},
    ElementSpec{Elem::e2m1, "fp4-e2m1", "OCP MX FP4 E2M1 (no infinities or NaNs)", 4, 2, 1, 1, false, Special::finite, true},
    ElementSpec{Elem::int8, "int8", "8-bit two's-complement integer", 8, 0, 7, 0, true, Special::finite, true},
    ElementSpec{Elem::int4, "int4", "4-bit two's-complement integer", 4, 0, 3, 0, true, Special::finite, true},
    ElementSpec{Elem::e8m0, "e8m0", "OCP MX E8M0 scale (unsigned power of two, 0xFF is NaN)", 8, 8, 0, 127, false,
                Special::exponent, true},
};

struct Alias {
  std::string_view name;
  Elem id;
};
constexpr std::array kAliases = {
    Alias{"fp8", Elem::e4m3},  Alias{"e4m3", Elem::e4m3},  Alias{"e5m2", Elem::e5m2}, Alias{"e3m2", Elem::e3m2},
    Alias{"e2m3", Elem::e2m3}, Alias{"e2m1", Elem::e2m1},  Alias{"fp4", Elem::e2m1},  Alias{"ue8m0", Elem::e8m0},
};

std::uint32_t mask(int bits) { return bits >= 32 ? 0xFFFFFFFFu : ((1u << bits) - 1u); }
std::uint32_t exp_all_ones(const ElementSpec& s) { return mask(s.exp_bits); }

std::uint32_t nan_code(const ElementSpec& s) {
  switch (s.special) {
    case Special::ieee: return (exp_all_ones(s) << s.man_bits) | (1u << (s.man_bits - 1));
    case Special::single_nan: return mask(s.bits - 1);
    case Special::exponent: return 0xFFu;
    case Special::finite: return 0;
  }
  return 0;
}

std::uint32_t inf_code(const ElementSpec& s) { return exp_all_ones(s) << s.man_bits; }

// Code of the largest finite magnitude (sign bit clear).
std::uint32_t max_code(const ElementSpec& s) {
  if (s.integer) return mask(s.bits - 1);
  switch (s.special) {
    case Special::ieee: return ((exp_all_ones(s) - 1) << s.man_bits) | mask(s.man_bits);
    case Special::single_nan: return mask(s.bits - 1) - 1;
    case Special::exponent: return 0xFEu;
    case Special::finite: return mask(s.bits - 1);
  }
  return 0;
}

Encoded overflow(const ElementSpec& s, bool negative, bool saturate) {
  const std::uint32_t sign = negative ? 1u << (s.bits - 1) : 0u;
  if (saturate || s.special == Special::finite) return {sign | max_code(s), true, false};
  if (s.special == Special::ieee) return {sign | inf_code(s), false, true};
  if (s.special == Special::exponent) return {nan_code(s), false, true};
  return {sign | nan_code(s), false, true};
}

Encoded encode_integer(const ElementSpec& s, double x) {
  const double hi = std::ldexp(1.0, s.bits - 1) - 1.0;
  const double lo = -hi - 1.0;
  const double r = std::nearbyint(x);  // the default rounding mode is round-to-nearest-even
  Encoded out;
  double v = r;
  if (r > hi || r < lo) {
    v = r > hi ? hi : lo;
    out.saturated = true;
  }
  out.code = static_cast<std::uint32_t>(static_cast<std::int32_t>(v)) & mask(s.bits);
  return out;
}

// E8M0 has no mantissa: between 2^k and 2^(k+1) the midpoint 1.5 × 2^k ties to the even exponent code.
Encoded encode_e8m0(const ElementSpec& s, double x, bool saturate) {
  if (!(x > 0)) return {nan_code(s), false, true};
  if (std::isinf(x)) return overflow(s, false, saturate);
  int e = std::ilogb(x);
  const double frac = std::ldexp(x, -e);
  long code = e + 127L;
  if (frac > 1.5 || (frac == 1.5 && (code & 1) != 0)) ++code;
  if (code < 0) return {0u, true, false};
  if (code > 254) return overflow(s, false, saturate);
  return {static_cast<std::uint32_t>(code), false, false};
}

}  // namespace

std::span<const ElementSpec> element_specs() { return kSpecs; }

const ElementSpec& spec(Elem e) { return kSpecs[static_cast<std::size_t>(e)]; }

const ElementSpec* find_element(std::string_view name) {
  for (const auto& s : kSpecs)
    if (s.name == name) return &s;
  for (const auto& a : kAliases)
    if (a.name == name) return &spec(a.id);
  return nullptr;
}

Decoded decode_code(const ElementSpec& s, std::uint32_t code) {
  Decoded d;
  code &= mask(s.bits);
  if (s.integer) {
    const std::int32_t v = (code & (1u << (s.bits - 1))) != 0 ? static_cast<std::int32_t>(code) - (1 << s.bits)
                                                              : static_cast<std::int32_t>(code);
    d.value = v;
    d.sign = v < 0 ? 1 : 0;
    d.man_field = code;
    d.cls = v == 0 ? CodeClass::zero : CodeClass::normal;
    return d;
  }
  if (s.special == Special::exponent) {
    d.exp_field = code;
    if (code == 0xFFu) {
      d.cls = CodeClass::nan;
      d.value = std::nan("");
    } else {
      d.cls = CodeClass::normal;
      d.value = std::ldexp(1.0, static_cast<int>(code) - s.bias);
    }
    return d;
  }
  d.sign = static_cast<int>(code >> (s.bits - 1));
  d.exp_field = (code >> s.man_bits) & exp_all_ones(s);
  d.man_field = code & mask(s.man_bits);
  const double sign = d.sign != 0 ? -1.0 : 1.0;
  if (s.special == Special::ieee && d.exp_field == exp_all_ones(s)) {
    d.cls = d.man_field == 0 ? CodeClass::infinity : CodeClass::nan;
    d.value = d.man_field == 0 ? sign * HUGE_VAL : std::nan("");
    return d;
  }
  if (s.special == Special::single_nan && d.exp_field == exp_all_ones(s) && d.man_field == mask(s.man_bits)) {
    d.cls = CodeClass::nan;
    d.value = std::nan("");
    return d;
  }
  if (d.exp_field == 0) {
    d.cls = d.man_field == 0 ? CodeClass::zero : CodeClass::subnormal;
    d.value = sign * std::ldexp(static_cast<double>(d.man_field), 1 - s.bias - s.man_bits);
    return d;
  }
  d.cls = CodeClass::normal;
  d.value = sign * std::ldexp(static_cast<double>((1u << s.man_bits) + d.man_field),
                              static_cast<int>(d.exp_field) - s.bias - s.man_bits);
  return d;
}

Encoded encode_value(const ElementSpec& s, double x, bool saturate) {
  if (std::isnan(x)) {
    if (!has_nan(s)) return {0u, false, true};
    return {nan_code(s), false, false};
  }
  if (s.integer) return encode_integer(s, x);
  if (s.special == Special::exponent) return encode_e8m0(s, x, saturate);
  const bool negative = std::signbit(x);
  const std::uint32_t sign = negative ? 1u << (s.bits - 1) : 0u;
  const double a = std::fabs(x);
  if (std::isinf(a)) return overflow(s, negative, saturate);
  const double min_norm = min_normal(s);
  // The quantum (spacing of representable values) at a: fixed below the smallest normal, 2^(e - M) above.
  const int q_exp = a < min_norm ? 1 - s.bias - s.man_bits : std::ilogb(a) - s.man_bits;
  const double n = std::nearbyint(std::ldexp(a, -q_exp));  // exact scaling; RNE in the default rounding mode
  const double r = std::ldexp(n, q_exp);
  if (r > max_finite(s)) return overflow(s, negative, saturate);
  if (r == 0) return {sign, false, false};
  if (r < min_norm || (a < min_norm && r == min_norm)) {
    // Subnormal; a carry into 2^M lands exactly on the smallest normal's code.
    return {sign | static_cast<std::uint32_t>(n), false, false};
  }
  const int e = std::ilogb(r);
  const auto man = static_cast<std::uint32_t>(std::ldexp(r, s.man_bits - e)) - (1u << s.man_bits);
  const auto exp_field = static_cast<std::uint32_t>(e + s.bias);
  return {sign | (exp_field << s.man_bits) | man, false, false};
}

std::uint32_t code_count(const ElementSpec& s) { return s.bits >= 32 ? 0xFFFFFFFFu : (1u << s.bits); }

double max_finite(const ElementSpec& s) {
  if (s.integer) return std::ldexp(1.0, s.bits - 1) - 1.0;
  return decode_code(s, max_code(s)).value;
}

double min_normal(const ElementSpec& s) {
  if (s.integer) return 1.0;
  if (s.special == Special::exponent) return std::ldexp(1.0, -s.bias);
  return std::ldexp(1.0, 1 - s.bias);
}

double min_subnormal(const ElementSpec& s) {
  if (s.integer || s.special == Special::exponent || s.man_bits == 0) return min_normal(s);
  return std::ldexp(1.0, 1 - s.bias - s.man_bits);
}

double epsilon(const ElementSpec& s) {
  if (s.integer) return 1.0;
  if (s.special == Special::exponent) return 1.0;  // neighbours differ by a factor of two
  return std::ldexp(1.0, -s.man_bits);
}

bool has_inf(const ElementSpec& s) { return s.special == Special::ieee; }

bool has_nan(const ElementSpec& s) { return s.special != Special::finite; }

int emax(const ElementSpec& s) {
  if (s.integer) return s.bits - 2;  // the largest power of two below the largest value
  if (s.special == Special::exponent) return 127;
  const int top = static_cast<int>(exp_all_ones(s)) - (s.special == Special::ieee ? 1 : 0);
  return top - s.bias;
}

}  // namespace infracalc::formats
