#include "plugins/decode/kernel_decode_loop.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

#include "plugins/kernels/big_array.hpp"
#include "plugins/kernels/rng.hpp"
#include "plugins/kernels/simd.hpp"

namespace infracalc::decode {

// Named rather than anonymous: SyntheticDecoder::Impl holds these types, and GCC warns about a class with
// members of anonymous-namespace types once this file is compiled inside a unity batch.
namespace decode_loop {

using kernels::ThreadTeam;

struct Matrix {
  std::size_t rows = 0, cols = 0;
  kernels::BigArray<float> data;
  [[nodiscard]] std::size_t size() const { return rows * cols; }
};

Matrix make_matrix(std::size_t rows, std::size_t cols) { return {rows, cols, kernels::big_array<float>(rows * cols)}; }

struct Layer {
  Matrix qkv, o, gate_up, down, norm1, norm2;
};

// Per-member tallies, summed after each parallel section.
struct Tally {
  double kv_read = 0, kv_write = 0, attention_flops = 0;
  std::vector<float> scratch, scores;
};

}  // namespace decode_loop
using namespace decode_loop;

ModelArch synthetic_arch(const SyntheticShape& s) {
  ModelArch m;
  m.id = "synthetic";
  m.layers = s.layers;
  m.hidden_size = s.hidden;
  m.attention_heads = s.heads;
  m.kv_heads = s.kv_heads;
  m.head_dim = s.head_dim;
  m.ffn_size = s.ffn;
  m.vocab_size = s.vocab;
  m.gated_mlp = true;
  m.tied_embeddings = false;
  m.layout = s.kv_heads == s.heads ? AttentionLayout::mha : s.kv_heads == 1 ? AttentionLayout::mqa : AttentionLayout::gqa;
  m.layer_types.assign(static_cast<std::size_t>(s.layers), LayerAttention::full);
  return m;
}

struct SyntheticDecoder::Impl {
  SyntheticShape s;
  ThreadTeam& team;
  kernels::Isa isa;
  int max_batch, max_context;
  Matrix embed, head, final_norm;
  std::vector<Layer> layers;
  // KV cache, per layer: [sequence][kv head][position][head_dim] for K and for V.
  std::vector<kernels::BigArray<float>> k_cache, v_cache;
  std::vector<float> x, xn, qkv, att, gu, hmid, out, logits, xt;
  std::vector<int> tok;
  std::vector<Tally> tallies;
  int pos = 0;
  StepCount count;

  Impl(const SyntheticShape& shape, int mb, int mc, ThreadTeam& t)
      : s(shape), team(t), isa(kernels::best_isa()), max_batch(mb), max_context(mc) {
    if (s.kv_heads < 1 || s.heads % s.kv_heads != 0 || s.heads / s.kv_heads >= 8)
      throw std::invalid_argument("synthetic decoder: heads must be 1 to 7 times the KV heads (attention uses the small-batch kernel)");
    const auto d = static_cast<std::size_t>(s.hidden);
    const auto qkv_rows = static_cast<std::size_t>(s.heads + 2 * s.kv_heads) * s.head_dim;
    const auto attn_width = static_cast<std::size_t>(s.heads) * s.head_dim;
    const auto ffn = static_cast<std::size_t>(s.ffn);
    embed = make_matrix(static_cast<std::size_t>(s.vocab), d);
    head = make_matrix(static_cast<std::size_t>(s.vocab), d);
    final_norm = make_matrix(1, d);
    layers.resize(static_cast<std::size_t>(s.layers));
    for (auto& l : layers) {
      l.qkv = make_matrix(qkv_rows, d);
      l.o = make_matrix(d, attn_width);
      l.gate_up = make_matrix(2 * ffn, d);
      l.down = make_matrix(d, ffn);
      l.norm1 = make_matrix(1, d);
      l.norm2 = make_matrix(1, d);
    }
    const std::size_t cache = cache_floats();
    for (int l = 0; l < s.layers; ++l) {
      k_cache.push_back(kernels::big_array<float>(cache));
      v_cache.push_back(kernels::big_array<float>(cache));
    }
    tok.assign(static_cast<std::size_t>(max_batch), 0);
    tallies.resize(static_cast<std::size_t>(team.size()));
    fill_weights();
  }

  [[nodiscard]] std::size_t cache_floats() const {
    return static_cast<std::size_t>(max_batch) * s.kv_heads * static_cast<std::size_t>(max_context) * s.head_dim;
  }

  // Seeded uniform values, filled in parallel (each member its own chunks) so start-up stays short.
  void fill(Matrix& m, std::uint64_t seed, float lo, float hi) {
    const std::size_t n = m.size();
    team.run([&](int member, int members) {
      const auto [a, b] = kernels::share(n, member, members, 4096);
      for (std::size_t c = a; c < b; c += 4096) {
        const std::size_t len = std::min<std::size_t>(4096, b - c);
        kernels::fill_uniform(std::span<float>(m.data.get() + c, len), seed * 1000003 + c / 4096, lo, hi);
      }
    });
  }

  void fill_weights() {
    auto scale = [](std::size_t cols) { return 1.0f / std::sqrt(static_cast<float>(cols)); };
    fill(embed, 1, -1.0f, 1.0f);
    fill(head, 2, -scale(head.cols), scale(head.cols));
    fill(final_norm, 3, 0.9f, 1.1f);
    std::uint64_t seed = 10;
    for (auto& l : layers) {
      fill(l.qkv, seed++, -scale(l.qkv.cols), scale(l.qkv.cols));
      fill(l.o, seed++, -scale(l.o.cols), scale(l.o.cols));
      fill(l.gate_up, seed++, -scale(l.gate_up.cols), scale(l.gate_up.cols));
      fill(l.down, seed++, -scale(l.down.cols), scale(l.down.cols));
      fill(l.norm1, seed++, 0.9f, 1.1f);
      fill(l.norm2, seed++, 0.9f, 1.1f);
    }
  }

  [[nodiscard]] std::size_t weight_floats() const {
    std::size_t n = embed.size() + head.size() + final_norm.size();
    for (const auto& l : layers) n += l.qkv.size() + l.o.size() + l.gate_up.size() + l.down.size() + l.norm1.size() + l.norm2.size();
    return n;
  }

  float* k_at(int layer, int b, int g, int p) {
    return k_cache[static_cast<std::size_t>(layer)].get() +
           ((static_cast<std::size_t>(b) * s.kv_heads + g) * max_context + p) * s.head_dim;
  }
  float* v_at(int layer, int b, int g, int p) {
    return v_cache[static_cast<std::size_t>(layer)].get() +
           ((static_cast<std::size_t>(b) * s.kv_heads + g) * max_context + p) * s.head_dim;
  }

  void prefill(int batch, int context) {
    if (batch > max_batch || context >= max_context) throw std::invalid_argument("synthetic decoder: cache too small");
    const std::size_t per = static_cast<std::size_t>(context) * s.head_dim;
    team.run([&](int member, int members) {
      for (int l = 0; l < s.layers; ++l) {
        const auto [a, b] = kernels::share(static_cast<std::size_t>(batch) * s.kv_heads, member, members);
        for (std::size_t item = a; item < b; ++item) {
          const int seq = static_cast<int>(item / static_cast<std::size_t>(s.kv_heads));
          const int g = static_cast<int>(item % static_cast<std::size_t>(s.kv_heads));
          kernels::fill_uniform(std::span<float>(k_at(l, seq, g, 0), per), 7'000'000 + item * 131 + static_cast<std::size_t>(l), -1.0f, 1.0f);
          kernels::fill_uniform(std::span<float>(v_at(l, seq, g, 0), per), 9'000'000 + item * 131 + static_cast<std::size_t>(l), -1.0f, 1.0f);
        }
      }
    });
    pos = context;
    for (int b = 0; b < batch; ++b) tok[static_cast<std::size_t>(b)] = (b * 7919) % s.vocab;
  }

  // y (batch × m.rows) = x (batch × m.cols) · mᵀ, rows split over the team. For the outer-product kernel
  // the team first transposes the input together, each member a share of the columns.
  void gemm(const Matrix& m, const float* in, std::size_t ldx, float* y, std::size_t ldy, int batch) {
    kernels::GemmBlock shape;
    shape.cols = m.cols;
    shape.x = in;
    shape.ldx = ldx;
    shape.batch = static_cast<std::size_t>(batch);
    const bool shared = kernels::gemm_uses_transposed(shape.batch);
    if (shared) {
      const std::size_t need = kernels::transposed_input_floats(m.cols, shape.batch);
      if (xt.size() < need) xt.resize(need);
      team.run([&](int member, int members) {
        const auto [k0, k1] = kernels::share(m.cols, member, members, 16);
        kernels::transpose_input(shape, xt.data(), k0, k1);
      });
    }
    team.run([&](int member, int members) {
      const auto [r0, r1] = kernels::share(m.rows, member, members, 12);
      Tally& t = tallies[static_cast<std::size_t>(member)];
      const std::size_t need = kernels::gemm_scratch_floats(m.cols, r1 - r0, static_cast<std::size_t>(batch));
      if (t.scratch.size() < need) t.scratch.resize(need);
      kernels::GemmBlock g;
      g.w = m.data.get();
      g.cols = m.cols;
      g.row_begin = r0;
      g.row_end = r1;
      g.x = in;
      g.ldx = ldx;
      g.batch = static_cast<std::size_t>(batch);
      g.y = y;
      g.ldy = ldy;
      g.xt = shared ? xt.data() : nullptr;
      kernels::gemm_block(isa, g, t.scratch.data());
    });
    count.weights += from_base<Bytes>(sizeof(float) * static_cast<double>(m.size()));
    count.matmul_flops += from_base<Flops>(2.0 * static_cast<double>(m.size()) * batch);
  }

  // Runs fn(b) for every sequence of the batch, the sequences split over the team.
  void per_sequence(int batch, const std::function<void(std::size_t)>& fn) {
    team.run([&](int member, int members) {
      const auto [a, e] = kernels::share(static_cast<std::size_t>(batch), member, members);
      for (std::size_t b = a; b < e; ++b) fn(b);
    });
  }

  void rmsnorm(const float* in, const Matrix& w, float* outp, int batch) {
    const auto d = static_cast<std::size_t>(s.hidden);
    per_sequence(batch, [&](std::size_t b) {
      const float* xi = in + b * d;
      double ss = 0;
      for (std::size_t i = 0; i < d; ++i) ss += static_cast<double>(xi[i]) * xi[i];
      const auto inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(d) + 1e-6));
      for (std::size_t i = 0; i < d; ++i) outp[b * d + i] = xi[i] * inv * w.data[i];
    });
    count.weights += from_base<Bytes>(sizeof(float) * static_cast<double>(d));
  }

  // Grouped-query attention of each sequence's new token over its cache, then the new K and V appended.
  // The query heads of a group share one K and one V, so each is read once per group: scores are a
  // small matrix product of the cached keys with the group's queries, outputs one of the weights with
  // the cached values.
  void attention(int layer, int batch) {
    const int group = s.heads / s.kv_heads;
    const auto hd = static_cast<std::size_t>(s.head_dim);
    const auto gsz = static_cast<std::size_t>(group);
    const std::size_t qkv_w = static_cast<std::size_t>(s.heads + 2 * s.kv_heads) * hd;
    const std::size_t att_w = static_cast<std::size_t>(s.heads) * hd;
    const float scale = 1.0f / std::sqrt(static_cast<float>(hd));
    const int n = pos;
    const std::size_t ld = static_cast<std::size_t>(n) + 1;  // cached positions plus the new token
    team.run([&](int member, int members) {
      Tally& t = tallies[static_cast<std::size_t>(member)];
      if (t.scores.size() < gsz * ld) t.scores.resize(gsz * ld);
      const auto [a, e] = kernels::share(static_cast<std::size_t>(batch) * s.kv_heads, member, members);
      for (std::size_t item = a; item < e; ++item) {
        const int b = static_cast<int>(item / static_cast<std::size_t>(s.kv_heads));
        const int g = static_cast<int>(item % static_cast<std::size_t>(s.kv_heads));
        const float* row = qkv.data() + static_cast<std::size_t>(b) * qkv_w;
        const float* q = row + static_cast<std::size_t>(g * group) * hd;
        const float* k_new = row + (static_cast<std::size_t>(s.heads) + static_cast<std::size_t>(g)) * hd;
        const float* v_new = row + (static_cast<std::size_t>(s.heads + s.kv_heads) + static_cast<std::size_t>(g)) * hd;
        float* scores = t.scores.data();
        kernels::GemmBlock gb;
        gb.w = k_at(layer, b, g, 0);
        gb.cols = hd;
        gb.row_begin = 0;
        gb.row_end = static_cast<std::size_t>(n);
        gb.x = q;
        gb.ldx = hd;
        gb.batch = gsz;
        gb.y = scores;
        gb.ldy = ld;
        kernels::gemm_block(isa, gb, nullptr);
        float* o = att.data() + static_cast<std::size_t>(b) * att_w + static_cast<std::size_t>(g * group) * hd;
        for (std::size_t h = 0; h < gsz; ++h) {
          float* sc = scores + h * ld;
          float self = 0;
          for (std::size_t i = 0; i < hd; ++i) self += q[h * hd + i] * k_new[i];
          sc[n] = self;
          float mx = -1e30f;
          for (std::size_t p = 0; p < ld; ++p) mx = std::max(mx, sc[p] *= scale);
          float sum = 0;
          for (std::size_t p = 0; p < ld; ++p) sum += (sc[p] = std::exp(sc[p] - mx));
          const float inv = 1.0f / sum;
          for (std::size_t p = 0; p < ld; ++p) sc[p] *= inv;
          std::fill(o + h * hd, o + (h + 1) * hd, 0.0f);
          for (std::size_t i = 0; i < hd; ++i) o[h * hd + i] = sc[n] * v_new[i];
        }
        kernels::weighted_rows(isa, scores, ld, gsz, v_at(layer, b, g, 0), static_cast<std::size_t>(n), hd, o, hd);
        t.attention_flops += 4.0 * static_cast<double>(hd) * static_cast<double>(ld) * static_cast<double>(gsz);
        // This (sequence, KV head) pair's cached K and V were each read once for the whole group.
        t.kv_read += 2.0 * sizeof(float) * static_cast<double>(n) * static_cast<double>(hd);
        std::copy(k_new, k_new + hd, k_at(layer, b, g, n));
        std::copy(v_new, v_new + hd, v_at(layer, b, g, n));
        t.kv_write += 2.0 * sizeof(float) * static_cast<double>(hd);
      }
    });
  }

  StepCount step(int batch) {
    if (batch > max_batch || pos + 1 >= max_context) throw std::invalid_argument("synthetic decoder: cache full");
    count = StepCount{};
    for (auto& t : tallies) t.kv_read = t.kv_write = t.attention_flops = 0;
    const auto d = static_cast<std::size_t>(s.hidden);
    const auto B = static_cast<std::size_t>(batch);
    const std::size_t qkv_w = static_cast<std::size_t>(s.heads + 2 * s.kv_heads) * s.head_dim;
    const std::size_t att_w = static_cast<std::size_t>(s.heads) * s.head_dim;
    const auto ffn = static_cast<std::size_t>(s.ffn);
    x.resize(B * d);
    xn.resize(B * d);
    qkv.resize(B * qkv_w);
    att.resize(B * att_w);
    gu.resize(B * 2 * ffn);
    hmid.resize(B * ffn);
    out.resize(B * d);
    logits.resize(B * static_cast<std::size_t>(s.vocab));
    per_sequence(batch, [&](std::size_t b) { std::copy_n(embed.data.get() + static_cast<std::size_t>(tok[b]) * d, d, x.data() + b * d); });
    count.weights += from_base<Bytes>(sizeof(float) * static_cast<double>(B * d));
    for (int l = 0; l < s.layers; ++l) {
      Layer& L = layers[static_cast<std::size_t>(l)];
      rmsnorm(x.data(), L.norm1, xn.data(), batch);
      gemm(L.qkv, xn.data(), d, qkv.data(), qkv_w, batch);
      attention(l, batch);
      gemm(L.o, att.data(), att_w, out.data(), d, batch);
      per_sequence(batch, [&](std::size_t b) {
        for (std::size_t i = b * d; i < (b + 1) * d; ++i) x[i] += out[i];
      });
      rmsnorm(x.data(), L.norm2, xn.data(), batch);
      gemm(L.gate_up, xn.data(), d, gu.data(), 2 * ffn, batch);
      per_sequence(batch, [&](std::size_t b) {
        for (std::size_t i = 0; i < ffn; ++i) {
          const float g = gu[b * 2 * ffn + i], u = gu[b * 2 * ffn + ffn + i];
          hmid[b * ffn + i] = g / (1.0f + std::exp(-g)) * u;  // SiLU(gate) · up
        }
      });
      gemm(L.down, hmid.data(), ffn, out.data(), d, batch);
      per_sequence(batch, [&](std::size_t b) {
        for (std::size_t i = b * d; i < (b + 1) * d; ++i) x[i] += out[i];
      });
    }
    rmsnorm(x.data(), final_norm, xn.data(), batch);
    gemm(head, xn.data(), d, logits.data(), static_cast<std::size_t>(s.vocab), batch);
    per_sequence(batch, [&](std::size_t b) {
      const float* row = logits.data() + b * static_cast<std::size_t>(s.vocab);
      tok[b] = static_cast<int>(std::max_element(row, row + s.vocab) - row);
    });
    for (const auto& t : tallies) {
      count.kv_read += from_base<Bytes>(t.kv_read);
      count.kv_write += from_base<Bytes>(t.kv_write);
      count.attention_flops += from_base<Flops>(t.attention_flops);
    }
    ++pos;
    return count;
  }
};

SyntheticDecoder::SyntheticDecoder(const SyntheticShape& shape, int max_batch, int max_context, kernels::ThreadTeam& team)
    : impl_(std::make_unique<Impl>(shape, max_batch, max_context, team)) {}
SyntheticDecoder::~SyntheticDecoder() = default;
std::size_t SyntheticDecoder::weight_floats() const { return impl_->weight_floats(); }
void SyntheticDecoder::prefill_cache(int batch, int context) { impl_->prefill(batch, context); }
StepCount SyntheticDecoder::step(int batch) { return impl_->step(batch); }
int SyntheticDecoder::position() const { return impl_->pos; }
const std::vector<int>& SyntheticDecoder::tokens() const { return impl_->tok; }

}  // namespace infracalc::decode
