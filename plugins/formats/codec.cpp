#include "plugins/formats/codec.hpp"

#include <array>
#include <cmath>

namespace infracalc::formats {

namespace {

// Parameters per format: OFP8 rev 1.0 (E4M3 bias 7, E5M2 bias 15), OCP MX v1.0 section 5 (E3M2 bias 3,
// E2M3 bias 1, E2M1 bias 1), IEEE 754 binary16 (bias 15).
template <class Fn>
void for_each(std::span<const float> in, std::span<std::uint8_t> out, Fn fn) {
  const std::size_t n = in.size() < out.size() ? in.size() : out.size();
  const float* src = in.data();
  std::uint8_t* dst = out.data();
  for (std::size_t i = 0; i < n; ++i) dst[i] = static_cast<std::uint8_t>(fn(src[i]));
}

std::array<float, 256> decode_table(Elem e) {
  std::array<float, 256> t{};
  const std::uint32_t n = spec(e).bits >= 8 ? 256u : (1u << spec(e).bits);
  for (std::uint32_t c = 0; c < n; ++c) t[c] = decode_fast(e, c);
  return t;
}

}  // namespace

std::uint32_t encode_fast(Elem e, float x, bool saturate) {
  switch (e) {
    case Elem::fp32: {
      const std::uint32_t b = std::bit_cast<std::uint32_t>(x);
      if (saturate && (b & 0x7FFFFFFFu) == 0x7F800000u) return (b & 0x80000000u) | 0x7F7FFFFFu;
      return b;
    }
    case Elem::tf32: return encode_tf32(x, saturate);
    case Elem::bf16: return encode_bf16(x, saturate);
    case Elem::fp16: return encode_narrow<5, 10, 15, Special::ieee>(x, saturate);
    case Elem::e4m3: return encode_narrow<4, 3, 7, Special::single_nan>(x, saturate);
    case Elem::e5m2: return encode_narrow<5, 2, 15, Special::ieee>(x, saturate);
    case Elem::e3m2: return encode_narrow<3, 2, 3, Special::finite>(x, true);
    case Elem::e2m3: return encode_narrow<2, 3, 1, Special::finite>(x, true);
    case Elem::e2m1: return encode_narrow<2, 1, 1, Special::finite>(x, true);
    case Elem::int8: return encode_int(x, 8);
    case Elem::int4: return encode_int(x, 4);
    case Elem::e8m0: return encode_value(spec(e), static_cast<double>(x), saturate).code;
  }
  return 0;
}

float decode_fast(Elem e, std::uint32_t code) {
  switch (e) {
    case Elem::fp32: return std::bit_cast<float>(code);
    case Elem::tf32: return std::bit_cast<float>((code & 0x7FFFFu) << 13);
    case Elem::bf16: return std::bit_cast<float>((code & 0xFFFFu) << 16);
    case Elem::fp16: return decode_narrow<5, 10, 15, Special::ieee>(code);
    case Elem::e4m3: return decode_narrow<4, 3, 7, Special::single_nan>(code);
    case Elem::e5m2: return decode_narrow<5, 2, 15, Special::ieee>(code);
    case Elem::e3m2: return decode_narrow<3, 2, 3, Special::finite>(code);
    case Elem::e2m3: return decode_narrow<2, 3, 1, Special::finite>(code);
    case Elem::e2m1: return decode_narrow<2, 1, 1, Special::finite>(code);
    case Elem::int8: return decode_int(code & 0xFFu, 8);
    case Elem::int4: return decode_int(code & 0xFu, 4);
    case Elem::e8m0: {
      const std::uint32_t c = code & 0xFFu;
      if (c == 0xFFu) return std::bit_cast<float>(0x7FC00000u);
      // 2^(c - 127): FP32 normals cover c >= 1; c == 0 is 2^-127, the FP32 subnormal 0x00400000.
      return c == 0 ? std::bit_cast<float>(0x00400000u) : std::bit_cast<float>(c << 23);
    }
  }
  return 0.0f;
}

void encode_bytes(Elem e, std::span<const float> in, std::span<std::uint8_t> out, bool saturate) {
  // One loop per format so that the per-value work is inlined and free of the dispatch.
  switch (e) {
    case Elem::e4m3: for_each(in, out, [=](float x) { return encode_narrow<4, 3, 7, Special::single_nan>(x, saturate); }); break;
    case Elem::e5m2: for_each(in, out, [=](float x) { return encode_narrow<5, 2, 15, Special::ieee>(x, saturate); }); break;
    case Elem::e3m2: for_each(in, out, [](float x) { return encode_narrow<3, 2, 3, Special::finite>(x, true); }); break;
    case Elem::e2m3: for_each(in, out, [](float x) { return encode_narrow<2, 3, 1, Special::finite>(x, true); }); break;
    case Elem::e2m1: for_each(in, out, [](float x) { return encode_narrow<2, 1, 1, Special::finite>(x, true); }); break;
    case Elem::int8: for_each(in, out, [](float x) { return encode_int(x, 8); }); break;
    case Elem::int4: for_each(in, out, [](float x) { return encode_int(x, 4); }); break;
    default: for_each(in, out, [=](float x) { return encode_fast(e, x, saturate); }); break;
  }
}

void decode_bytes(Elem e, std::span<const std::uint8_t> in, std::span<float> out) {
  const std::array<float, 256> table = decode_table(e);
  const std::size_t n = in.size() < out.size() ? in.size() : out.size();
  for (std::size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

void pack4(std::span<const std::uint8_t> codes, std::span<std::uint8_t> out) {
  const std::size_t n = codes.size();
  for (std::size_t i = 0; i + 1 < n; i += 2)
    out[i / 2] = static_cast<std::uint8_t>((codes[i] & 0xFu) | ((codes[i + 1] & 0xFu) << 4));
  if (n % 2 != 0) out[n / 2] = static_cast<std::uint8_t>(codes[n - 1] & 0xFu);
}

void unpack4(std::span<const std::uint8_t> packed, std::span<std::uint8_t> codes) {
  const std::size_t n = codes.size();
  for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint8_t>((packed[i / 2] >> ((i % 2) * 4)) & 0xFu);
}

void pack6(std::span<const std::uint8_t> codes, std::span<std::uint8_t> out) {
  const std::size_t n = codes.size();
  std::size_t i = 0, o = 0;
  for (; i + 4 <= n; i += 4, o += 3) {
    const std::uint32_t w = (codes[i] & 0x3Fu) | ((codes[i + 1] & 0x3Fu) << 6) | ((codes[i + 2] & 0x3Fu) << 12) |
                            ((codes[i + 3] & 0x3Fu) << 18);
    out[o] = static_cast<std::uint8_t>(w);
    out[o + 1] = static_cast<std::uint8_t>(w >> 8);
    out[o + 2] = static_cast<std::uint8_t>(w >> 16);
  }
  if (i < n) {
    std::uint32_t w = 0;
    for (std::size_t k = 0; i + k < n; ++k) w |= (codes[i + k] & 0x3Fu) << (6 * k);
    for (std::size_t b = 0; o + b < out.size() && b < 3; ++b) out[o + b] = static_cast<std::uint8_t>(w >> (8 * b));
  }
}

void unpack6(std::span<const std::uint8_t> packed, std::span<std::uint8_t> codes) {
  const std::size_t n = codes.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t bit = i * 6;
    const std::size_t byte = bit / 8;
    std::uint32_t w = packed[byte];
    if (byte + 1 < packed.size()) w |= static_cast<std::uint32_t>(packed[byte + 1]) << 8;
    codes[i] = static_cast<std::uint8_t>((w >> (bit % 8)) & 0x3Fu);
  }
}

}  // namespace infracalc::formats
