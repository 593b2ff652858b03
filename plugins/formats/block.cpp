#include "plugins/formats/block.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

#include "plugins/formats/codec.hpp"

namespace infracalc::formats {

namespace {


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
// that the per-value loop is inlined. Elements saturate inside scaled formats (OCP MX v1.0 section 6;
// NVIDIA's NVFP4 recipe).
template <class Fn>
void with_encoder(const TensorLayout& L, Fn&& fn) {
  if (L.mx_int) {
    // MXINT8 elements are kept symmetric (±127/64), as the MX reference implementation clamps them.
    fn([](float x) {
      const std::uint32_t c = encode_int(x * 64.0f, 8);
      return c == 0x80u ? 0x81u : c;
    });
    return;
  }
  // Scaled formats (every storage format of 8 bits or fewer) saturate; 16- and 32-bit formats are stored
  // unscaled and keep IEEE overflow.
  const bool sat = L.scaling != Scaling::none;
  switch (L.element) {
    case Elem::e2m1: fn([](float x) { return encode_narrow<2, 1, 1, Special::finite>(x, true); }); return;
    case Elem::e2m3: fn([](float x) { return encode_narrow<2, 3, 1, Special::finite>(x, true); }); return;
    case Elem::e3m2: fn([](float x) { return encode_narrow<3, 2, 3, Special::finite>(x, true); }); return;
    case Elem::e4m3: fn([](float x) { return encode_narrow<4, 3, 7, Special::single_nan>(x, true); }); return;
    case Elem::e5m2: fn([](float x) { return encode_narrow<5, 2, 15, Special::ieee>(x, true); }); return;
    case Elem::fp16: fn([](float x) { return encode_narrow<5, 10, 15, Special::ieee>(x, false); }); return;
    case Elem::bf16: fn([](float x) { return encode_bf16(x, false); }); return;
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

namespace {

// Largest magnitude of a span and whether it holds Inf or NaN, in one vectorizable pass.
struct BlockMax {
  float amax = 0.0f;
  bool special = false;
};
BlockMax block_max(const float* x, std::size_t n) {
  // The bits of a non-negative float order like the float itself, so an integer maximum (which vectorizes
  // without -ffast-math) finds the largest magnitude.
  std::uint32_t m = 0;
  std::uint32_t special = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t a = std::bit_cast<std::uint32_t>(x[i]) & 0x7FFFFFFFu;
    m = a > m ? a : m;
    special |= a >= 0x7F800000u ? 1u : 0u;
  }
  return {std::bit_cast<float>(m), special != 0};
}

// Encodes n values times `mul` into one code byte each.
template <class Enc>
void encode_run(const float* __restrict x, std::size_t n, float mul, std::uint8_t* __restrict out, Enc enc) {
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(enc(x[i] * mul));
}

// Writes `len` one-byte codes starting at value `lo` into the packed payload (lo a multiple of 4).
void emit_codes(const std::uint8_t* codes, std::size_t lo, std::size_t len, int bits, std::uint8_t* payload) {
  if (bits == 8) {
    std::memcpy(payload + lo, codes, len);
  } else if (bits == 4) {
    std::uint8_t* out = payload + lo / 2;
    for (std::size_t i = 0; i + 1 < len; i += 2) out[i / 2] = static_cast<std::uint8_t>(codes[i] | (codes[i + 1] << 4));
    if (len % 2 != 0) out[len / 2] = codes[len - 1];
  } else {
    pack6(std::span<const std::uint8_t>(codes, len), std::span<std::uint8_t>(payload + lo * 6 / 8, packed_size(len, 6)));
  }
}

}  // namespace

QuantizedTensor quantize(std::span<const float> values, const TensorLayout& L) {
  QuantizedTensor q;
  q.layout = L;
  q.count = values.size();
  const std::size_t n = values.size();
  const int bits = element_bits(L);
  if (bits == 16) {
    // FP16 and BF16 are stored unscaled: encode straight into the payload, little-endian.
    q.payload.resize(2 * n);
    with_encoder(L, [&](auto enc) {
      std::uint8_t* out = q.payload.data();
      for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::uint16_t>(enc(values[i]));
        out[2 * i] = static_cast<std::uint8_t>(c);
        out[2 * i + 1] = static_cast<std::uint8_t>(c >> 8);
      }
    });
    return q;
  }
  if (bits > 8) {
    // FP32 and TF32 (held in an FP32 word) are stored unscaled.
    std::vector<std::uint32_t> codes(n);
    with_encoder(L, [&](auto enc) {
      for (std::size_t i = 0; i < n; ++i) codes[i] = enc(values[i]);
    });
    pack(L, codes, q.payload);
    return q;
  }
  const float elem_max = element_max(L);
  const BlockMax whole = L.tensor_scale ? block_max(values.data(), n) : BlockMax{};
  if (L.tensor_scale) {
    // Per-tensor: amax maps to the largest element. NVFP4 (two levels): amax maps to the largest element
    // times the largest E4M3 block scale, 6 × 448 (NVIDIA NVFP4 recipe).
    const float top = L.scaling == Scaling::block ? elem_max * static_cast<float>(max_finite(spec(L.scale))) : elem_max;
    q.tensor_scale = (whole.amax > 0.0f && !whole.special) ? whole.amax / top : 1.0f;
  }
  q.payload.resize(packed_size(n, bits));
  with_encoder(L, [&](auto enc) {
    if (L.scaling != Scaling::block) {
      // Quantizers multiply by the reciprocal of the scale, as GPU quantization kernels do. Chunks of 4,096
      // values are encoded into a local buffer and packed straight into the payload.
      const float mul = L.scaling == Scaling::tensor ? 1.0f / q.tensor_scale : 1.0f;
      std::uint8_t local[4096];
      for (std::size_t lo = 0; lo < n; lo += 4096) {
        const std::size_t len = std::min<std::size_t>(4096, n - lo);
        encode_run(values.data() + lo, len, mul, local, enc);
        emit_codes(local, lo, len, bits, q.payload.data());
      }
      return;
    }
    const std::size_t block = static_cast<std::size_t>(L.block);
    const std::size_t blocks = (n + block - 1) / block;
    const std::size_t sw = scale_bytes(L.scale);
    q.scales.assign(blocks * sw, 0);
    const bool mx = L.scale == Elem::e8m0;
    const int e_max = element_emax(L);
    const float inv_tensor = 1.0f / q.tensor_scale;
    // The scale of block b (its code is stored) and the multiplier that takes its values to element units:
    // the reciprocal of (decoded block scale × tensor scale), or 0 for a block that encodes as all zeros.
    auto block_scale = [&](std::size_t b, std::size_t lo, std::size_t len) -> float {
      const BlockMax bm = block_max(values.data() + lo, len);
      std::uint32_t scode;
      float inv;
      if (mx) {
        scode = bm.special ? 0xFFu : mx_scale_code(bm.amax, e_max);
        // Dividing by a power of two is an exact multiplication by its reciprocal.
        inv = scode == 0xFFu || bm.amax == 0.0f ? 0.0f : pow2f(127 - static_cast<int>(scode));
      } else {
        // A block holding Inf or NaN gets a NaN scale, so the whole block decodes to NaN as in MX.
        const float want = bm.amax / elem_max * inv_tensor;
        const bool e4m3 = L.scale == Elem::e4m3;  // NVFP4's scale: inlined, it runs once per 16 values
        scode = bm.special ? encode_value(spec(L.scale), std::nan(""), false).code
                : e4m3     ? encode_narrow<4, 3, 7, Special::single_nan>(want, true)
                           : encode_fast(L.scale, want, true);
        const float scale = (e4m3 ? decode_narrow<4, 3, 7, Special::single_nan>(scode) : decode_fast(L.scale, scode)) * q.tensor_scale;
        inv = bm.special || !(scale > 0.0f) || !std::isfinite(scale) ? 0.0f : 1.0f / scale;
      }
      put_code(q.scales, b, scode, sw);
      return inv;
    };
    if (block % 4 == 0 && block <= 4096) {
      // Blocks that start on a byte boundary of the packed layout: a chunk of whole blocks (up to 4,096
      // values) is scaled into a local buffer, encoded in one vectorizable run and packed straight into the
      // payload, so the per-block work is only the scale (NVFP4's 16-value blocks would otherwise pay a
      // call and a pack per 16 values). An all-zero block, or one marked by a NaN scale, holds zero codes.
      const std::size_t per_chunk = 4096 / block * block;
      float scaled[4096];
      std::uint8_t local[4096];
      for (std::size_t lo = 0; lo < n; lo += per_chunk) {
        const std::size_t len = std::min(per_chunk, n - lo);
        for (std::size_t k = 0; k < len; k += block) {
          const std::size_t blen = std::min(block, len - k);
          // Short blocks between scale computations defeat the hardware prefetcher; ask 1 KiB ahead.
          __builtin_prefetch(values.data() + std::min(n - 1, lo + k + 256));
          const float inv = block_scale((lo + k) / block, lo + k, blen);
          const float* src = values.data() + lo + k;
          if (inv == 0.0f) std::fill(scaled + k, scaled + k + blen, 0.0f);
          else for (std::size_t i = 0; i < blen; ++i) scaled[k + i] = src[i] * inv;
        }
        encode_run(scaled, len, 1.0f, local, enc);
        emit_codes(local, lo, len, bits, q.payload.data());
      }
      return;
    }
    std::vector<std::uint8_t> all_codes(n);
    for (std::size_t b = 0; b < blocks; ++b) {
      const std::size_t lo = b * block;
      const std::size_t len = std::min(n, lo + block) - lo;
      const float inv = block_scale(b, lo, len);
      if (inv == 0.0f) std::fill(all_codes.begin() + static_cast<std::ptrdiff_t>(lo), all_codes.begin() + static_cast<std::ptrdiff_t>(lo + len), 0);
      else encode_run(values.data() + lo, len, inv, all_codes.data() + lo, enc);
    }
    if (bits == 4) pack4(all_codes, q.payload);
    else if (bits == 6) pack6(all_codes, q.payload);
    else q.payload = std::move(all_codes);
  });
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
