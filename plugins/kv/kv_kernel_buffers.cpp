// Reference kernel kv-buffers: builds the cache a decode loop would build, literally. Every tensor-
// and pipeline-parallel device gets the layers of its stage; every layer that stores a cache gets, per
// sequence, a store of positions (a ring buffer of the window for sliding layers); every position holds
// the rank's K and V vectors (or the MLA latent and RoPE key) encoded to the cache dtype, with the real
// quantization scales a per-head or per-group quantizer writes. The bytes held are then counted.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fmt/format.h>
#include <string>
#include <vector>

#include "plugins/kv/kv_kernels.hpp"
#include "plugins/kv/kv_layout.hpp"
#include "plugins/kv/kv_math.hpp"
#include "units/bridge.hpp"

namespace infracalc::kv {

namespace {

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float value(std::uint64_t& s) { return static_cast<float>(static_cast<double>(splitmix(s) >> 11) * 0x1.0p-53 * 4.0 - 2.0); }

// IEEE 754 binary16, round to nearest even.
std::uint16_t to_half(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const int exp = static_cast<int>((x >> 23) & 0xFF) - 127 + 15;
  std::uint32_t mant = x & 0x7FFFFFu;
  if (exp >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<std::uint16_t>(sign);
    mant |= 0x800000u;
    const int shift = 14 - exp;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rem = mant & ((1u << shift) - 1);
    const std::uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = (static_cast<std::uint32_t>(exp) << 10) | (mant >> 13);
  const std::uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

// bfloat16: the top half of a binary32, round to nearest even.
std::uint16_t to_bf16(float f) {
  std::uint32_t x = 0;
  std::memcpy(&x, &f, 4);
  x += 0x7FFFu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

// OCP FP8 E4M3 (bias 7, no infinities, saturating at 448), round to nearest even.
std::uint8_t to_e4m3(float f) {
  const std::uint8_t sign = std::signbit(f) ? 0x80 : 0x00;
  float a = std::fabs(f);
  if (a >= 448.0f) return sign | 0x7E;
  if (a < 0x1.0p-10f) return sign;
  int e = 0;
  const float m = std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  int exp = e - 1 + 7;
  if (exp <= 0) {  // subnormal: step 2^-9
    const auto q = static_cast<int>(std::nearbyint(a * 512.0f));
    return static_cast<std::uint8_t>(sign | q);
  }
  int q = static_cast<int>(std::nearbyint((m * 2.0f - 1.0f) * 8.0f));
  if (q == 8) {
    q = 0;
    ++exp;
  }
  if (exp > 15 || (exp == 15 && q > 6)) return sign | 0x7E;
  return static_cast<std::uint8_t>(sign | (exp << 3) | q);
}

void put_scale(std::vector<std::uint8_t>& out, float scale, double scale_bytes) {
  if (scale_bytes >= 4) {
    std::uint8_t b[4];
    std::memcpy(b, &scale, 4);
    out.insert(out.end(), b, b + 4);
  } else {
    const std::uint16_t h = to_half(scale);
    out.push_back(static_cast<std::uint8_t>(h & 0xFF));
    out.push_back(static_cast<std::uint8_t>(h >> 8));
  }
}

// Encodes one vector into `out`: elements at the cache dtype, plus the scales (and zero points) a
// per-head or per-group quantizer stores. Per-tensor scales are a constant of the layer, not stored per
// token.
void encode(const std::vector<float>& v, const KvPrecision& p, std::vector<std::uint8_t>& out) {
  const std::string_view f = p.format->name;
  if (f == "fp32") {
    for (float x : v) {
      std::uint8_t b[4];
      std::memcpy(b, &x, 4);
      out.insert(out.end(), b, b + 4);
    }
    return;
  }
  if (f == "fp16" || f == "bf16") {
    for (float x : v) {
      const std::uint16_t h = f == "fp16" ? to_half(x) : to_bf16(x);
      out.push_back(static_cast<std::uint8_t>(h & 0xFF));
      out.push_back(static_cast<std::uint8_t>(h >> 8));
    }
    return;
  }
  const bool int4 = f == "int4";
  const std::size_t group = p.scales == ScaleGranularity::group ? static_cast<std::size_t>(p.group_size)
                            : p.scales == ScaleGranularity::vector ? v.size()
                                                                   : v.size();
  std::uint8_t pending = 0;
  bool have_pending = false;
  for (std::size_t g0 = 0; g0 < v.size(); g0 += group) {
    const std::size_t g1 = std::min(v.size(), g0 + group);
    float lo = 0, hi = 0;
    for (std::size_t i = g0; i < g1; ++i) {
      lo = std::min(lo, v[i]);
      hi = std::max(hi, v[i]);
    }
    const float amax = std::max(std::fabs(lo), std::fabs(hi));
    const float qmax = f == "fp8" ? 448.0f : int4 ? 7.0f : 127.0f;
    float scale = p.scales == ScaleGranularity::tensor ? 2.0f / qmax : (amax > 0 ? amax / qmax : 1.0f);
    float zero = 0;
    if (p.zero_point && p.scales != ScaleGranularity::tensor) {  // asymmetric: map [lo, hi] onto the unsigned range
      const float levels = f == "fp8" ? 448.0f : int4 ? 15.0f : 255.0f;
      scale = hi > lo ? (hi - lo) / levels : 1.0f;
      zero = std::nearbyint(-lo / scale);
    }
    for (std::size_t i = g0; i < g1; ++i) {
      std::uint8_t code = 0;
      if (f == "fp8") {
        code = to_e4m3(v[i] / scale);
      } else if (p.zero_point && p.scales != ScaleGranularity::tensor) {
        const float top = int4 ? 15.0f : 255.0f;
        code = static_cast<std::uint8_t>(std::clamp(std::nearbyint(v[i] / scale + zero), 0.0f, top));
      } else {
        code = static_cast<std::uint8_t>(static_cast<std::int8_t>(std::clamp(std::nearbyint(v[i] / scale), -qmax, qmax)));
      }
      if (!int4) {
        out.push_back(code);
      } else if (have_pending) {
        out.push_back(static_cast<std::uint8_t>(pending | ((code & 0x0F) << 4)));
        have_pending = false;
      } else {
        pending = code & 0x0F;
        have_pending = true;
      }
    }
    if (p.scales != ScaleGranularity::tensor) {
      put_scale(out, scale, p.scale_bytes.value());
      if (p.zero_point) put_scale(out, zero, p.scale_bytes.value());
    }
  }
  if (have_pending) out.push_back(pending);
}

// One layer's cache of one sequence on one device: positions in arrival order, the oldest dropped once
// a sliding window is full.
struct PositionStore {
  std::int64_t window = 0;  // 0: keeps every position
  std::deque<std::vector<std::uint8_t>> positions;
  void push(std::vector<std::uint8_t> p) {
    if (window > 0 && static_cast<std::int64_t>(positions.size()) == window) positions.pop_front();
    positions.push_back(std::move(p));
  }
  [[nodiscard]] std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& p : positions) n += p.size();
    return n;
  }
};

struct Case {
  std::string name;
  ModelArch arch;
  KvPrecision precision;
  int tokens;
  int batch;
  Parallelism par;
};

// The KV heads tensor-parallel rank r holds: a contiguous slice when there are at least as many heads as
// ranks, otherwise the one head it replicates.
std::vector<int> heads_of_rank(const ModelArch& m, int rank, int tp) {
  std::vector<int> h;
  if (m.kv_heads >= tp) {
    const int per = (m.kv_heads + tp - 1) / tp;
    for (int i = rank * per; i < std::min(m.kv_heads, (rank + 1) * per); ++i) h.push_back(i);
  } else {
    h.push_back(rank * m.kv_heads / tp);
  }
  return h;
}

struct Counted {
  std::vector<std::size_t> device_bytes;  // one entry per (tp rank, pp stage)
  [[nodiscard]] double max() const { return static_cast<double>(*std::max_element(device_bytes.begin(), device_bytes.end())); }
};

// Builds and fills every device's buffers for `tokens` tokens of `batch` sequences.
Counted build(const Case& c, int tokens, const Parallelism& par, bool trace) {
  const ModelArch& m = c.arch;
  const int per_stage = (m.layers + par.pp - 1) / par.pp;
  Counted out;
  for (int stage = 0; stage < par.pp; ++stage) {
    for (int rank = 0; rank < par.tp; ++rank) {
      const std::vector<int> heads = heads_of_rank(m, rank, par.tp);
      std::vector<PositionStore> stores;
      std::vector<int> layer_of;
      for (int l = stage * per_stage; l < std::min(m.layers, (stage + 1) * per_stage); ++l) {
        if (l >= m.layers - m.kv_shared_layers) continue;  // shares an earlier layer's cache
        for (int b = 0; b < c.batch; ++b) {
          PositionStore s;
          const bool sliding = static_cast<std::size_t>(l) < m.layer_types.size() &&
                               m.layer_types[static_cast<std::size_t>(l)] == LayerAttention::sliding && m.sliding_window > 0;
          s.window = sliding ? m.sliding_window : 0;
          stores.push_back(std::move(s));
          layer_of.push_back(l);
        }
      }
      for (int t = 0; t < tokens; ++t) {
        for (std::size_t i = 0; i < stores.size(); ++i) {
          std::uint64_t seed = (static_cast<std::uint64_t>(layer_of[i]) << 40) ^ (static_cast<std::uint64_t>(i) << 20) ^
                               static_cast<std::uint64_t>(t);
          std::vector<std::uint8_t> pos;
          auto add = [&](std::int64_t n) {
            std::vector<float> v(static_cast<std::size_t>(n));
            for (auto& x : v) x = value(seed);
            encode(v, c.precision, pos);
          };
          if (m.mla) {
            add(m.mla->kv_lora_rank);
            add(m.mla->qk_rope_head_dim);
          } else {
            for (std::size_t h = 0; h < heads.size(); ++h) add(m.head_dim);  // K of each held head
            for (std::size_t h = 0; h < heads.size(); ++h) add(m.head_dim);  // V of each held head
          }
          stores[i].push(std::move(pos));
        }
      }
      std::size_t bytes = 0;
      for (const auto& s : stores) bytes += s.bytes();
      out.device_bytes.push_back(bytes);
      if (trace)
        fmt::print(stderr, "kv-buffers: {}: stage {} rank {} holds {} layer stores, {} B after {} tokens\n", c.name, stage, rank,
                   stores.size(), bytes, tokens);
    }
  }
  return out;
}

ModelArch gqa(int layers, int heads, int kv, int dim) {
  ModelArch m;
  m.layers = layers;
  m.attention_heads = heads;
  m.kv_heads = kv;
  m.head_dim = dim;
  m.layout = kv == heads ? AttentionLayout::mha : kv == 1 ? AttentionLayout::mqa : AttentionLayout::gqa;
  m.layer_types.assign(static_cast<std::size_t>(layers), LayerAttention::full);
  return m;
}

KvPrecision prec(const char* dtype, ScaleGranularity s = ScaleGranularity::tensor, int group = 32, bool zero = false,
                 double scale_bytes = 2) {
  KvPrecision p = plain_precision(*find_storage_format(dtype));
  p.scales = s;
  p.group_size = group;
  p.zero_point = zero;
  p.scale_bytes = from_base<Bytes>(scale_bytes);
  return p;
}

std::vector<Case> cases(bool quick) {
  std::vector<Case> v;
  v.push_back({"GQA 8q/2kv fp16, tp2 pp2", gqa(4, 8, 2, 16), prec("fp16"), 33, 3, {2, 2}});
  v.push_back({"MHA bf16", gqa(3, 4, 4, 8), prec("bf16"), 17, 2, {1, 1}});
  v.push_back({"MQA fp8 (one head replicated over tp3)", gqa(2, 6, 1, 32), prec("fp8"), 25, 4, {3, 1}});
  v.push_back({"GQA int4, scale+zero per 8, tp4", gqa(5, 8, 4, 16), prec("int4", ScaleGranularity::group, 8, true), 40, 1, {4, 1}});
  v.push_back({"GQA int8, fp32 scale per head, tp2", gqa(3, 8, 4, 16), prec("int8", ScaleGranularity::vector, 32, false, 4), 21, 2, {2, 1}});
  v.push_back({"GQA fp32, pp3 uneven", gqa(7, 4, 2, 4), prec("fp32"), 9, 2, {1, 3}});
  {
    ModelArch m = gqa(3, 8, 8, 16);
    m.layout = AttentionLayout::mla;
    m.mla = MlaDims{32, 8, 16, 16, 0};
    v.push_back({"MLA latent 32 + RoPE 8 bf16, tp2 (replicated)", m, prec("bf16"), 19, 2, {2, 1}});
    v.push_back({"MLA int8 per-group 16", m, prec("int8", ScaleGranularity::group, 16), 11, 1, {1, 1}});
  }
  {
    ModelArch m = gqa(6, 4, 2, 8);
    m.sliding_window = 8;
    m.layer_types = {LayerAttention::sliding, LayerAttention::sliding, LayerAttention::full,
                     LayerAttention::sliding, LayerAttention::sliding, LayerAttention::full};
    v.push_back({"sliding 2:1, window 8, pp2", m, prec("fp16"), 21, 2, {1, 2}});
    v.push_back({"sliding 2:1, window 8, context below the window", m, prec("fp16"), 5, 1, {2, 1}});
  }
  {
    ModelArch m = gqa(6, 4, 2, 8);
    m.kv_shared_layers = 2;
    v.push_back({"cross-layer sharing (2 of 6 layers store nothing), pp2", m, prec("fp16"), 10, 1, {1, 2}});
  }
  if (!quick) v.push_back({"GQA 16q/4kv fp16, 512 tokens, tp4 pp2", gqa(8, 16, 4, 64), prec("fp16"), 512, 4, {4, 2}});
  return v;
}

}  // namespace

std::vector<KernelCheck> run_buffers_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> checks;
  for (const auto& c : cases(opt.quick)) {
    const auto batch = Number::from_value(c.batch);
    const CacheSize one = cache_size(c.arch, c.precision, from_base<Tokens>(1.0), Number::from_value(1.0), c.par);
    const CacheSize full = cache_size(c.arch, c.precision, from_base<Tokens>(c.tokens), batch, c.par);
    Case single = c;
    single.batch = 1;
    const Counted first = build(single, 1, {1, 1}, opt.trace);
    const Counted first_split = build(single, 1, c.par, opt.trace);
    const Counted all = build(c, c.tokens, {1, 1}, opt.trace);
    const Counted split = build(c, c.tokens, c.par, opt.trace);
    auto bytes = [](double v) { return Quantity{v, dims::information}; };
    checks.push_back({fmt::format("bytes per token: {}", c.name), to_quantity(one.per_token), bytes(first.max()), 0.0});
    checks.push_back({fmt::format("bytes, {} tok x {} seq: {}", c.tokens, c.batch, c.name), to_quantity(full.total), bytes(all.max()), 0.0});
    checks.push_back({fmt::format("busiest of {} devices: {}", c.par.tp * c.par.pp, c.name), to_quantity(full.per_device),
                      bytes(split.max()), 0.0});
    if (c.par.tp * c.par.pp > 1)
      checks.push_back({fmt::format("busiest device per token: {}", c.name), to_quantity(one.per_token_per_device),
                        bytes(first_split.max()), 0.0});
    // The simple formula behind the old `kv size` still agrees on full-attention GQA/MHA/MQA layouts.
    if (!c.arch.mla && c.arch.sliding_window == 0 && c.arch.kv_shared_layers == 0 && c.precision.scales == ScaleGranularity::tensor) {
      const KvShape shape{Number::from_value(c.arch.layers), Number::from_value(c.arch.kv_heads), Number::from_value(c.arch.head_dim),
                          bytes_per_value(*c.precision.format)};
      checks.push_back({fmt::format("2 x layers x kv_heads x head_dim x bytes x tokens x batch: {}", c.name),
                        to_quantity(kv::total(bytes_per_token(shape), from_base<Tokens>(c.tokens), batch)), bytes(all.max()), 0.0});
    }
  }
  return checks;
}

}  // namespace infracalc::kv
