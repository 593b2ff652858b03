#include "plugins/formats/block.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/formats/codec.hpp"

namespace infracalc::formats {

namespace {

float abs_max(std::span<const float> v) {
  float m = 0.0f;
  for (float x : v) {
    const float a = std::fabs(x);
    if (!(a <= m)) m = a;  // also picks up NaN, so a block with a NaN is flagged
  }
  return m;
}

// floor(log2(a)) for a finite a > 0, read from the FP32 exponent (subnormals through ilogb).
int floor_log2(float a) {
  const std::uint32_t b = std::bit_cast<std::uint32_t>(a);
  const int e = static_cast<int>((b >> 23) & 0xFFu);
  return e != 0 ? e - 127 : std::ilogb(a);
}

// 2^k as an exact FP32 value, k in [-149, 127].
float pow2f(int k) {
  if (k >= -126) return std::bit_cast<float>(static_cast<std::uint32_t>(k + 127) << 23);
  return std::bit_cast<float>(1u << (k + 149));
}

// Calls fn with an encoder for values already divided by their scale, specialised per element format so
// that the per-value loop is inlined. Elements saturate inside scaled formats (OCP MX v1.0 section 6.3;
// NVIDIA's NVFP4 recipe).
template <class Fn>
void with_encoder(const TensorLayout& L, Fn&& fn) {
  if (L.mx_int) {
    // MXINT8 elements are kept symmetric (±127/64), as the MX reference implementation clamps them.
    fn([](float x) { return encode_int(std::max(x * 64.0f, -127.0f), 8); });
    return;
  }
  const bool sat = L.scaling != Scaling::none;
  switch (L.element) {
    case Elem::e2m1: fn([](float x) { return encode_narrow<2, 1, 1, Special::finite>(x, true); }); return;
    case Elem::e2m3: fn([](float x) { return encode_narrow<2, 3, 1, Special::finite>(x, true); }); return;
    case Elem::e3m2: fn([](float x) { return encode_narrow<3, 2, 3, Special::finite>(x, true); }); return;
    case Elem::e4m3: fn([sat](float x) { return encode_narrow<4, 3, 7, Special::single_nan>(x, sat); }); return;
    case Elem::e5m2: fn([sat](float x) { return encode_narrow<5, 2, 15, Special::ieee>(x, sat); }); return;
    case Elem::fp16: fn([sat](float x) { return encode_narrow<5, 10, 15, Special::ieee>(x, sat); }); return;
    case Elem::bf16: fn([sat](float x) { return encode_bf16(x, sat); }); return;
    case Elem::int8: fn([](float x) { return encode_int(x, 8); }); return;
    case Elem::int4: fn([](float x) { return encode_int(x, 4); }); return;
    default: fn([e = L.element, sat](float x) { return encode_fast(e, x, sat); }); return;
  }
}

float decode_scaled(const TensorLayout& L, std::uint32_t code) {
  if (L.mx_int) return decode_int(code, 8) * (1.0f / 64.0f);
  return decode_fast(L.element, code);
}

// Largest element magnitude used to pick scales (MXINT8: 127/64 of the implicit fixed point).
float element_max(const TensorLayout& L) {
  if (L.mx_int) return 127.0f / 64.0f;
  return static_cast<float>(max_finite(spec(L.element)));
}

int element_emax(const TensorLayout& L) { return L.mx_int ? 0 : emax(spec(L.element)); }

std::size_t scale_bytes(Elem scale) { return static_cast<std::size_t>((spec(scale).bits + 7) / 8); }

void put_code(std::vector<std::uint8_t>& out, std::size_t at, std::uint32_t code, std::size_t width) {
  for (std::size_t b = 0; b < width; ++b) out[at * width + b] = static_cast<std::uint8_t>(code >> (8 * b));
}

std::uint32_t get_code(const std::vector<std::uint8_t>& in, std::size_t at, std::size_t width) {
  std::uint32_t c = 0;
  for (std::size_t b = 0; b < width; ++b) c |= static_cast<std::uint32_t>(in[at * width + b]) << (8 * b);
  return c;
}

int element_bits(const TensorLayout& L) { return L.element == Elem::tf32 ? 32 : spec(L.element).bits; }

void pack(const TensorLayout& L, const std::vector<std::uint32_t>& codes, std::vector<std::uint8_t>& payload) {
  const int bits = element_bits(L);
  payload.assign(packed_size(codes.size(), bits), 0);
  if (bits == 4 || bits == 6) {
    std::vector<std::uint8_t> small(codes.begin(), codes.end());
    if (bits == 4) pack4(small, payload);
    else pack6(small, payload);
    return;
  }
  const std::size_t width = static_cast<std::size_t>(bits / 8);
  // TF32 is held in an FP32 word: its 19-bit code sits in the top bits.
  const int shift = L.element == Elem::tf32 ? 13 : 0;
  for (std::size_t i = 0; i < codes.size(); ++i) put_code(payload, i, codes[i] << shift, width);
}

std::vector<std::uint32_t> unpack(const QuantizedTensor& q) {
  const int bits = element_bits(q.layout);
  std::vector<std::uint32_t> codes(q.count);
  if (bits == 4 || bits == 6) {
    std::vector<std::uint8_t> small(q.count);
    if (bits == 4) unpack4(q.payload, small);
    else unpack6(q.payload, small);
    std::copy(small.begin(), small.end(), codes.begin());
    return codes;
  }
  const std::size_t width = static_cast<std::size_t>(bits / 8);
  const int shift = q.layout.element == Elem::tf32 ? 13 : 0;
  for (std::size_t i = 0; i < q.count; ++i) codes[i] = get_code(q.payload, i, width) >> shift;
  return codes;
}

}  // namespace

std::uint32_t mx_scale_code(float amax, int elem_emax) {
  if (!std::isfinite(amax)) return 0xFFu;
  if (amax == 0.0f) return 0u;
  const int e = std::clamp(floor_log2(amax) - elem_emax, -127, 127);
  return static_cast<std::uint32_t>(e + 127);
}

TensorLayout layout_of(const StorageFormat& f) {
  TensorLayout L;
  L.name = std::string(f.name);
  const ElementSpec* e = find_element(f.element);
  L.element = e != nullptr ? e->id : Elem::fp32;
  if (f.block > 0) {
    L.scaling = Scaling::block;
    L.block = f.block;
    const ElementSpec* s = find_element(f.scale);
    L.scale = s != nullptr ? s->id : Elem::e8m0;
    L.tensor_scale = f.tensor_scale_bits > 0;
    L.mx_int = L.element == Elem::int8 && L.scale == Elem::e8m0;
  } else if (f.tensor_scale_bits > 0) {
    L.scaling = Scaling::tensor;
    L.tensor_scale = true;
  }
  return L;
}

TensorLayout block_layout(Elem element, int block, Elem scale, bool tensor_scale) {
  TensorLayout L;
  L.name = std::string(spec(element).name) + "/" + std::to_string(block) + "x" + std::string(spec(scale).name);
  L.element = element;
  L.scaling = Scaling::block;
  L.block = block;
  L.scale = scale;
  L.tensor_scale = tensor_scale;
  L.mx_int = element == Elem::int8 && scale == Elem::e8m0;
  return L;
}

std::size_t QuantizedTensor::bytes() const { return payload.size() + scales.size() + (layout.tensor_scale ? 4u : 0u); }

QuantizedTensor quantize(std::span<const float> values, const TensorLayout& L) {
  QuantizedTensor q;
  q.layout = L;
  q.count = values.size();
  std::vector<std::uint32_t> codes(values.size());
  const float elem_max = element_max(L);
  const float amax = L.scaling == Scaling::none ? 0.0f : abs_max(values);
  if (L.tensor_scale) {
    // Per-tensor: amax maps to the largest element. NVFP4 (two levels): amax maps to the largest element
    // times the largest E4M3 block scale, 6 × 448 (NVIDIA NVFP4 recipe).
    const float top = L.scaling == Scaling::block ? elem_max * static_cast<float>(max_finite(spec(L.scale))) : elem_max;
    q.tensor_scale = (amax > 0.0f && std::isfinite(amax)) ? amax / top : 1.0f;
  }
  with_encoder(L, [&](auto enc) {
    if (L.scaling == Scaling::none) {
      for (std::size_t i = 0; i < values.size(); ++i) codes[i] = enc(values[i]);
      return;
    }
    if (L.scaling == Scaling::tensor) {
      const float inv = 1.0f / q.tensor_scale;
      for (std::size_t i = 0; i < values.size(); ++i) codes[i] = enc(values[i] * inv);
      return;
    }
    const std::size_t block = static_cast<std::size_t>(L.block);
    const std::size_t blocks = (values.size() + block - 1) / block;
    const std::size_t sw = scale_bytes(L.scale);
    q.scales.assign(blocks * sw, 0);
    const bool mx = L.scale == Elem::e8m0;
    const int e_max = element_emax(L);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t lo = b * block;
      const std::size_t hi = std::min(values.size(), lo + block);
      const float bmax = abs_max(values.subspan(lo, hi - lo));
      std::uint32_t scode;
      float scale;  // decoded block scale times the tensor scale: the divisor of every element
      if (mx) {
        scode = mx_scale_code(bmax, e_max);
        scale = scode == 0xFFu ? std::numeric_limits<float>::quiet_NaN() : pow2f(static_cast<int>(scode) - 127);
      } else {
        scode = encode_fast(L.scale, bmax / elem_max / q.tensor_scale, true);
        scale = decode_fast(L.scale, scode) * q.tensor_scale;
      }
      put_code(q.scales, b, scode, sw);
      if (!(scale > 0.0f) || !std::isfinite(scale)) {
        for (std::size_t i = lo; i < hi; ++i) codes[i] = 0;  // zero block, or a NaN scale that marks the whole block
        continue;
      }
      if (mx) {
        // Dividing by a power of two is a multiplication by its exact reciprocal.
        const float inv = pow2f(127 - static_cast<int>(scode));
        for (std::size_t i = lo; i < hi; ++i) codes[i] = enc(values[i] * inv);
      } else {
        for (std::size_t i = lo; i < hi; ++i) codes[i] = enc(values[i] / scale);
      }
    }
  });
  pack(L, codes, q.payload);
  return q;
}

void dequantize(const QuantizedTensor& q, std::span<float> out) {
  const TensorLayout& L = q.layout;
  const std::vector<std::uint32_t> codes = unpack(q);
  if (L.scaling == Scaling::none) {
    for (std::size_t i = 0; i < q.count; ++i) out[i] = decode_fast(L.element, codes[i]);
    return;
  }
  if (L.scaling == Scaling::tensor) {
    for (std::size_t i = 0; i < q.count; ++i) out[i] = decode_scaled(L, codes[i]) * q.tensor_scale;
    return;
  }
  const std::size_t block = static_cast<std::size_t>(L.block);
  const std::size_t sw = scale_bytes(L.scale);
  for (std::size_t i = 0; i < q.count; ++i) {
    const std::size_t b = i / block;
    const float s = decode_fast(L.scale, get_code(q.scales, b, sw)) * (L.tensor_scale ? q.tensor_scale : 1.0f);
    out[i] = decode_scaled(L, codes[i]) * s;
  }
}

}  // namespace infracalc::formats
