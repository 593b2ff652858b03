// Reference kernels for the formats plugin: every code of every element format decoded two ways, every
// rounding boundary probed against a sorted table of representable values, random FP32 inputs through
// both encoders (and through the compiler's own _Float16 conversion), and real tensors quantized into
// byte buffers whose size and contents are checked against the formulas and the format layouts.
#include <algorithm>
#include <bit>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "plugins/formats/block.hpp"
#include "plugins/formats/codec.hpp"
#include "plugins/formats/error_study.hpp"
#include "plugins/formats/formats_plugin.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kernels/thread_team.hpp"
#include "units/bridge.hpp"

namespace infracalc {

namespace {

using namespace formats;

Quantity count(double n) { return Quantity::number(n); }

bool same_bits(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

// 64-bit generator for probes (splitmix64).
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
};

std::vector<const ElementSpec*> float_formats() {
  std::vector<const ElementSpec*> v;
  for (const auto& s : element_specs())
    if (!s.integer && s.id != Elem::fp32) v.push_back(&s);
  return v;
}

// Every code: the fast bit-manipulation decoder against the exact ldexp decoder.
std::vector<KernelCheck> run_decode_all(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  for (const auto& s : element_specs()) {
    const bool sampled = s.id == Elem::fp32;
    const std::uint64_t n = sampled ? (opt.quick ? 1u << 16 : 1u << 22) : code_count(s);
    std::uint64_t agree = 0;
    Rng rng{0x5eed};
    for (std::uint64_t i = 0; i < n; ++i) {
      const auto code = static_cast<std::uint32_t>(sampled ? rng.next() : i);
      const double ref = decode_code(s, code).value;
      const float fast = decode_fast(s.id, code);
      if (same_bits(fast, static_cast<float>(ref)) || (std::isnan(ref) && std::isnan(fast))) ++agree;
      else if (opt.trace) fmt::print(stderr, "decode {} code {:#x}: fast {} reference {}\n", s.name, code, fast, ref);
    }
    out.push_back({fmt::format("{}: codes decoded alike by both decoders ({})", s.name, sampled ? "random sample" : "every code"),
                   count(static_cast<double>(n)), count(static_cast<double>(agree)), 0.0});
  }
  return out;
}

// Every finite code encodes back to itself; every midpoint between neighbours rounds to the neighbour with
// the even code, and the FP32 values just either side of it round down and up. Expected codes come from
// the sorted table of decoded values, independent of both encoders.
std::vector<KernelCheck> run_encode_boundaries(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  for (const ElementSpec* sp : float_formats()) {
    const ElementSpec& s = *sp;
    if (opt.quick && s.id == Elem::tf32) continue;  // 2^19 codes: full run only
    const bool sat = true;
    struct Pt {
      double v;
      std::uint32_t code;
    };
    std::vector<Pt> pos;  // positive finite values in increasing order, with their codes
    for (std::uint32_t c = 0; c < (code_count(s) >> 1); ++c) {
      const double v = decode_code(s, c).value;
      if (std::isfinite(v)) pos.push_back({v, c});
    }
    if (s.special == Special::exponent) {
      for (std::uint32_t c = 128; c < 255; ++c) pos.push_back({decode_code(s, c).value, c});
    }
    std::sort(pos.begin(), pos.end(), [](const Pt& a, const Pt& b) { return a.v < b.v; });
    const std::uint32_t sign = s.special == Special::exponent ? 0u : 1u << (s.bits - 1);
    std::uint64_t probes = 0, agree = 0;
    auto probe = [&](double x, std::uint32_t want) {
      for (int neg = 0; neg < (sign != 0 ? 2 : 1); ++neg) {
        const double xv = neg != 0 ? -x : x;
        const std::uint32_t w = neg != 0 ? (want | sign) : want;
        ++probes;
        const auto fast = encode_fast(s.id, static_cast<float>(xv), sat);
        const auto ref = encode_value(s, xv, sat).code;
        if (fast == w && ref == w) ++agree;
        else if (opt.trace) fmt::print(stderr, "encode {} {}: want {:#x} fast {:#x} reference {:#x}\n", s.name, xv, w, fast, ref);
      }
    };
    for (std::size_t i = 0; i < pos.size(); ++i) {
      if (!(s.special == Special::exponent) || pos[i].v > 0) probe(pos[i].v, pos[i].code);
      if (i + 1 == pos.size()) break;
      const double lo = pos[i].v, hi = pos[i + 1].v;
      if (s.special == Special::exponent) continue;  // E8M0 rounds in the exponent, probed below
      const double mid = 0.5 * (lo + hi);
      const std::uint32_t even = (pos[i].code & 1u) == 0 ? pos[i].code : pos[i + 1].code;
      probe(mid, even);
      const float below = std::nextafter(static_cast<float>(mid), 0.0f);
      const float above = std::nextafter(static_cast<float>(mid), HUGE_VALF);
      if (below > lo) probe(below, pos[i].code);
      if (above < hi) probe(above, pos[i + 1].code);
    }
    if (s.special == Special::exponent) {
      // 1.5 x 2^k ties to the even code; just above goes up, just below stays.
      for (std::size_t i = 0; i + 1 < pos.size(); ++i) {
        const double tie = 1.5 * pos[i].v;
        if (!std::isfinite(static_cast<float>(tie)) || tie < 1e-37) continue;
        probe(tie, (pos[i].code & 1u) == 0 ? pos[i].code : pos[i + 1].code);
        probe(std::nextafter(static_cast<float>(tie), HUGE_VALF), pos[i + 1].code);
      }
    } else {
      // Past the largest finite value: clamp when saturating.
      const double top = pos.back().v;
      probe(top * 1.5, pos.back().code);
    }
    out.push_back({fmt::format("{}: rounding probes (codes, midpoints, either side) answered correctly by both encoders", s.name),
                   count(static_cast<double>(probes)), count(static_cast<double>(agree)), 0.0});
  }
  return out;
}

// Overflow without saturation: to Inf (IEEE-like) or NaN (E4M3), at the right boundary.
std::vector<KernelCheck> run_overflow(const KernelOptions&) {
  std::vector<KernelCheck> out;
  struct Case {
    Elem e;
    float x;
    bool inf;  // expect infinity (else NaN, else the largest finite when `max`)
    bool max;
  };
  const Case cases[] = {
      {Elem::e4m3, 464.0f, false, true},          // tie between 448 and 480: even mantissa 110 -> 448
      {Elem::e4m3, 464.0001f, false, false},      // above the tie: NaN (no infinities)
      {Elem::e5m2, 61440.0f, true, false},        // tie between 57,344 and 65,536: rounds to even -> Inf
      {Elem::e5m2, 61439.996f, false, true},      // just below: 57,344
      {Elem::fp16, 65520.0f, true, false},        // IEEE binary16 overflow threshold
      {Elem::fp16, 65519.996f, false, true},
      {Elem::bf16, 3.3961776e38f, true, false},   // tie above the bfloat16 maximum
  };
  std::size_t agree = 0;
  for (const auto& c : cases) {
    const ElementSpec& s = spec(c.e);
    const auto fast = encode_fast(c.e, c.x, false);
    const auto ref = encode_value(s, c.x, false).code;
    const Decoded d = decode_code(s, fast);
    const bool ok = fast == ref && (c.max ? d.value == max_finite(s) : (c.inf ? d.cls == CodeClass::infinity : d.cls == CodeClass::nan));
    agree += ok ? 1 : 0;
  }
  out.push_back({"non-saturating overflow boundaries (E4M3 to NaN past 464, E5M2 to Inf from 61,440, FP16, BF16)",
                 count(static_cast<double>(std::size(cases))), count(static_cast<double>(agree)), 0.0});
  return out;
}

// Random FP32 bit patterns through the fast encoder, the exact encoder and, for 8-bit and smaller formats,
// a brute-force nearest-value search with ties to the even code.
std::vector<KernelCheck> run_random(const KernelOptions& opt) {
  const std::size_t n = opt.quick ? 20000 : 1000000;
  std::vector<const ElementSpec*> specs;
  for (const auto& s : element_specs())
    if (s.id != Elem::e8m0) specs.push_back(&s);
  kernels::ThreadTeam team;
  // Each format is independent: one per core at a time.
  return kernels::map_items(team, specs.size(), [&](std::size_t k) {
    const ElementSpec& s = *specs[k];
    Rng rng{0xC0DE + static_cast<std::uint64_t>(s.id)};
    std::vector<std::pair<double, std::uint32_t>> table;
    if (s.bits <= 8)
      for (std::uint32_t c = 0; c < code_count(s); ++c) {
        const double v = decode_code(s, c).value;
        if (std::isfinite(v)) table.emplace_back(v, c);
      }
    std::size_t agree = 0, tested = 0;
    for (std::size_t i = 0; i < n; ++i) {
      // Values spread over the format's range: random sign, exponent near the range, random mantissa bits.
      const std::uint64_t r = rng.next();
      float x;
      if (s.integer) {
        x = static_cast<float>(static_cast<double>(static_cast<std::int64_t>(r % 4000001) - 2000000) / 1000.0 *
                               (s.bits == 4 ? 0.005 : 0.07));
      } else {
        const int lo = 1 - s.bias - s.man_bits - 2, hi = emax(s) + 2;
        const int e = std::max(-149, lo + static_cast<int>((r >> 32) % static_cast<std::uint64_t>(hi - lo + 1)));
        const float m = 1.0f + static_cast<float>(r & 0x7FFFFFu) * 0x1.0p-23f;
        x = std::ldexp(m, e) * ((r >> 63) != 0 ? -1.0f : 1.0f);
      }
      const bool sat = true;
      const std::uint32_t fast = encode_fast(s.id, x, sat);
      const std::uint32_t ref = encode_value(s, x, sat).code;
      bool ok = fast == ref;
      if (ok && !table.empty()) {
        // Nearest finite value; ties to the even code; then clamp handled by saturation (table holds finite only).
        double best = HUGE_VAL;
        std::uint32_t code = 0;
        for (const auto& [v, c] : table) {
          const double d = std::fabs(v - static_cast<double>(x));
          const bool better = d < best || (d == best && ((c & 1u) == 0) && ((code & 1u) != 0));
          if (better && !(d == best && v == 0.0 && std::signbit(v) != std::signbit(x))) {
            best = d;
            code = c;
          }
        }
        const double got = decode_code(s, fast).value;
        ok = got == decode_code(s, code).value;
      }
      ++tested;
      agree += ok ? 1 : 0;
      if (!ok && opt.trace) fmt::print(stderr, "random {} {}: fast {:#x} reference {:#x}\n", s.name, x, fast, ref);
    }
    return KernelCheck{fmt::format("{}: random FP32 inputs encoded alike by fast, exact{} encoders", s.name, s.bits <= 8 ? " and brute-force" : ""),
                       count(static_cast<double>(tested)), count(static_cast<double>(agree)), 0.0};
  });
}

#ifdef __FLT16_MANT_DIG__  // compilers with _Float16 on this target (GCC 12 on x86-64; not clang 14)
// The compiler's own binary16 conversion as an independent oracle for FP16: in software (libgcc's
// __truncsfhf2), or where the CPU has F16C the compiler emits its conversion instruction (vcvtps2ph, round to
// nearest even), forty times faster and just as independent of encode_fast.
std::uint16_t fp16_by_compiler(float x) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(x)); }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("f16c"))) std::uint16_t fp16_by_f16c(float x) { return std::bit_cast<std::uint16_t>(static_cast<_Float16>(x)); }
#endif

std::vector<KernelCheck> run_fp16_oracle(const KernelOptions& opt) {
  std::uint16_t (*oracle)(float) = fp16_by_compiler;
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports("f16c")) oracle = fp16_by_f16c;
#endif
  const std::uint64_t stride = opt.quick ? 65537u : 257u;
  const std::uint64_t points = 0xFFFFFFFFull / stride + 1;
  // The bit patterns split into one contiguous share per core; each share counts its own agreements.
  kernels::ThreadTeam team;
  const auto shares = kernels::map_items(team, static_cast<std::size_t>(team.size()), [&](std::size_t m) {
    const auto [lo, hi] = kernels::share(points, static_cast<int>(m), team.size());
    std::uint64_t agree = 0;
    for (std::uint64_t i = lo; i < hi; ++i) {
      const float x = std::bit_cast<float>(static_cast<std::uint32_t>(i * stride));
      const std::uint16_t want = oracle(x);
      const std::uint32_t got = encode_fast(Elem::fp16, x, false);
      const bool both_nan = std::isnan(x) && ((got & 0x7C00u) == 0x7C00u) && (got & 0x3FFu) != 0;
      agree += (got == want || both_nan) ? 1 : 0;
    }
    return agree;
  });
  std::uint64_t agree = 0;
  for (const std::uint64_t a : shares) agree += a;
  const std::uint64_t tested = points;
  return {{"fp16: FP32 bit patterns (every " + std::to_string(stride) + "th) encoded as the compiler's _Float16 cast does",
           count(static_cast<double>(tested)), count(static_cast<double>(agree)), 0.0}};
}
#endif

// Reads code i of `bits` bits from a tightly packed little-endian buffer (an independent unpacker).
std::uint32_t read_bits(const std::vector<std::uint8_t>& buf, std::size_t i, int bits) {
  std::uint32_t v = 0;
  const std::size_t first = i * static_cast<std::size_t>(bits);
  for (int k = 0; k < bits; ++k) {
    const std::size_t bit = first + static_cast<std::size_t>(k);
    v |= static_cast<std::uint32_t>((buf[bit / 8] >> (bit % 8)) & 1u) << k;
  }
  return v;
}

std::vector<float> test_tensor(std::size_t n, std::uint64_t seed) {
  TensorRecipe r;
  r.count = n;
  r.outliers = n / 500;
  r.outlier_sigmas = 40;
  r.seed = seed;
  return make_tensor(r).values;
}

// Real tensors in every scaled storage format: the bytes produced against storage_bytes, and each value
// decoded again from the raw bytes with the reference decoder (element × block scale × tensor scale).
std::vector<KernelCheck> run_tensors(const KernelOptions& opt) {
  const std::size_t n = opt.quick ? 4096 : 1u << 20;
  const std::vector<float> x = test_tensor(n, 11);
  const auto& formats = storage_formats();
  kernels::ThreadTeam team;
  // Each storage format is independent: one per core at a time.
  const auto parts = kernels::map_items(team, std::size(formats), [&](std::size_t k) {
    std::vector<KernelCheck> out;
    const StorageFormat& f = formats[k];
    const TensorLayout L = layout_of(f);
    const QuantizedTensor q = quantize(x, L);
    const double tensor_scale_bytes = L.tensor_scale ? 4.0 : 0.0;
    out.push_back({fmt::format("{}: bytes of a {}-value tensor (storage_bytes + {} B tensor scale)", f.name, n, tensor_scale_bytes),
                   to_quantity(storage_bytes(static_cast<double>(n), f) + from_base<Bytes>(tensor_scale_bytes)),
                   Quantity{static_cast<double>(q.bytes()), dims::information}, 0.0});
    std::vector<float> back(n);
    dequantize(q, back);
    const ElementSpec& es = spec(L.element);
    const int bits = L.element == Elem::tf32 ? 32 : es.bits;
    const ElementSpec& ss = spec(L.scale);
    const std::size_t sw = static_cast<std::size_t>((ss.bits + 7) / 8);
    std::size_t agree = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t code = read_bits(q.payload, i, bits);
      if (L.element == Elem::tf32) code >>= 13;
      double v = decode_code(es, code).value;
      if (L.mx_int) v /= 64.0;
      if (L.scaling == Scaling::block) {
        const std::size_t b = i / static_cast<std::size_t>(L.block);
        std::uint32_t sc = 0;
        for (std::size_t k = 0; k < sw; ++k) sc |= static_cast<std::uint32_t>(q.scales[b * sw + k]) << (8 * k);
        v *= static_cast<double>(static_cast<float>(decode_code(ss, sc).value) * (L.tensor_scale ? q.tensor_scale : 1.0f));
      } else if (L.scaling == Scaling::tensor) {
        v *= static_cast<double>(q.tensor_scale);
      }
      agree += same_bits(static_cast<float>(v), back[i]) ? 1 : 0;
    }
    out.push_back({fmt::format("{}: values decoded from the raw bytes by the reference decoder equal dequantize()", f.name),
                   count(static_cast<double>(n)), count(static_cast<double>(agree)), 0.0});
    if (L.scaling == Scaling::block && !L.tensor_scale) {
      // MX and group-scaled integers are idempotent: decoded values quantize back to the same bytes.
      const QuantizedTensor q2 = quantize(back, L);
      const bool same = q2.payload == q.payload && q2.scales == q.scales;
      out.push_back({fmt::format("{}: re-quantizing the decoded tensor reproduces its bytes", f.name), count(1), count(same ? 1 : 0), 0.0});
    }
    return out;
  });
  std::vector<KernelCheck> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// The headline weight size: 70e9 parameters in NVFP4 and MXFP4, from bytes per value actually produced.
std::vector<KernelCheck> run_weights(const KernelOptions& opt) {
  std::vector<KernelCheck> out;
  const std::size_t n = opt.quick ? 1u << 14 : 1u << 22;
  const std::vector<float> x = test_tensor(n, 3);
  for (const char* name : {"nvfp4", "mxfp4", "int4-g128", "fp16"}) {
    const StorageFormat& f = *find_storage_format(name);
    const QuantizedTensor q = quantize(x, layout_of(f));
    const double per_value = static_cast<double>(q.bytes()) / static_cast<double>(n);
    // The tensor scale (4 B) spread over this tensor is the only term storage_bytes leaves out.
    const double tol = layout_of(f).tensor_scale ? 1.001 * 4.0 / static_cast<double>(q.bytes() - 4) : 0.0;
    out.push_back({fmt::format("70e9 parameters in {} (bytes per value measured on {} values)", name, n),
                   to_quantity(storage_bytes(70e9, f)), Quantity{70e9 * per_value, dims::information}, tol});
  }
  return out;
}

// OCP MX scale rule worked by hand: amax 7.9 in E2M1 (emax 2) gives 2^(2 - 2) = 1, so 7.9 clamps to 6;
// amax 0.3 gives 2^(-2 - 2); NVFP4 tensor scale = amax / 2688.
std::vector<KernelCheck> run_mx_examples(const KernelOptions&) {
  std::vector<KernelCheck> out;
  std::vector<float> block(32, 0.0f);
  block[0] = 7.9f;
  block[1] = 0.74f;  // 0.74 / 1 rounds to 0.5 (between 0.5 and 1, nearer 0.5)
  const QuantizedTensor q = quantize(block, layout_of(*find_storage_format("mxfp4")));
  std::vector<float> back(32);
  dequantize(q, back);
  out.push_back({"mxfp4: block amax 7.9 -> E8M0 scale code 127 (2^0)", count(127), count(q.scales[0]), 0.0});
  out.push_back({"mxfp4: 7.9 saturates to 6", count(6), count(back[0]), 0.0});
  out.push_back({"mxfp4: 0.74 rounds to 0.5", count(0.5), count(back[1]), 0.0});
  out.push_back({"mxfp4: 32 values take 17 bytes (136 bits)", Quantity{17, dims::information},
                 Quantity{static_cast<double>(q.bytes()), dims::information}, 0.0});
  std::vector<float> small(32, 0.0f);
  small[5] = -0.3f;
  const QuantizedTensor q2 = quantize(small, layout_of(*find_storage_format("mxfp4")));
  out.push_back({"mxfp4: block amax 0.3 -> scale 2^(floor(log2 0.3) - 2) = 2^-4, code 123", count(123), count(q2.scales[0]), 0.0});
  std::vector<float> t(64, 0.5f);
  t[17] = -2688.0f * 0.25f;
  const QuantizedTensor q3 = quantize(t, layout_of(*find_storage_format("nvfp4")));
  out.push_back({"nvfp4: tensor scale = amax / (6 x 448)", count(0.25), count(q3.tensor_scale), 1e-7});
  return out;
}

// The error study against the textbook model of uniform rounding noise: INT8 with a per-tensor absmax scale
// adds noise of variance step^2 / 12 (step = amax / 127), so SNR = 10 log10(sigma^2 / (step^2 / 12)).
std::vector<KernelCheck> run_error_model(const KernelOptions& opt) {
  TensorRecipe r;
  r.count = opt.quick ? 1u << 15 : 1u << 20;
  r.outliers = 0;
  const SyntheticTensor t = make_tensor(r);
  float amax = 0;
  double sig = 0;
  for (float x : t.values) {
    amax = std::max(amax, std::fabs(x));
    sig += static_cast<double>(x) * x;
  }
  const double step = amax / 127.0;
  const double model = 10.0 * std::log10((sig / static_cast<double>(r.count)) / (step * step / 12.0));
  const ErrorStats e = measure_error(t, layout_of(*find_storage_format("int8")));
  return {{"int8 per-tensor SNR on a Gaussian tensor vs the step^2/12 rounding-noise model (dB)", count(model), count(e.snr_db), 0.01}};
}

}  // namespace

std::vector<Kernel> formats_kernels() {
  return {
      {"decode-every-code", "decodes every code of every element format with the fast and the exact decoder", run_decode_all},
      {"rounding-boundaries", "encodes every code, every midpoint and its neighbours; expected codes from the sorted value table",
       run_encode_boundaries},
      {"overflow", "non-saturating overflow to Inf or NaN at the IEEE and OCP boundaries", run_overflow},
      {"random-inputs", "random FP32 inputs through fast, exact and brute-force nearest encoders", run_random},
#ifdef __FLT16_MANT_DIG__
      {"fp16-compiler", "FP16 encoder against the compiler's _Float16 conversion", run_fp16_oracle},
#endif
      {"tensor-bytes", "quantizes real tensors in every storage format; counts bytes and decodes the raw bytes", run_tensors},
      {"weight-bytes", "bytes per value measured on real NVFP4/MXFP4/INT4 tensors, scaled to 70e9 parameters", run_weights},
      {"mx-worked-examples", "MX and NVFP4 scale selection on hand-worked blocks", run_mx_examples},
      {"error-model", "INT8 rounding noise against the step^2/12 model", run_error_model},
  };
}

}  // namespace infracalc
