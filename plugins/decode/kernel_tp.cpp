#include "plugins/decode/kernel_tp.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "plugins/kernels/rng.hpp"

namespace infracalc::decode {

namespace {

// The full (unsplit) weights of one layer, seeded identically for every run.
struct LayerWeights {
  std::vector<float> wq, wk, wv, wo, wg, wu, wd, n1, n2;
};

std::vector<float> seeded(std::size_t n, std::uint64_t seed, float scale) {
  std::vector<float> v(n);
  kernels::fill_uniform(v, seed, -scale, scale);
  return v;
}

void rmsnorm(const std::vector<float>& x, const std::vector<float>& w, std::vector<float>& y, int batch, int h) {
  for (int b = 0; b < batch; ++b) {
    double ss = 0;
    for (int i = 0; i < h; ++i) ss += static_cast<double>(x[static_cast<std::size_t>(b * h + i)]) * x[static_cast<std::size_t>(b * h + i)];
    const double inv = 1.0 / std::sqrt(ss / h + 1e-6);
    for (int i = 0; i < h; ++i)
      y[static_cast<std::size_t>(b * h + i)] = static_cast<float>(x[static_cast<std::size_t>(b * h + i)] * inv * w[static_cast<std::size_t>(i)]);
  }
}

// y[b][r] = Σ_c W[row r][col c] x[b][c] over the given rows and columns of a row-major matrix of width ld.
void matvec(const std::vector<float>& w, int ld, int r0, int r1, int c0, int c1, const float* x, int ldx, float* y, int ldy, int batch) {
  for (int b = 0; b < batch; ++b)
    for (int r = r0; r < r1; ++r) {
      double s = 0;
      for (int c = c0; c < c1; ++c) s += static_cast<double>(w[static_cast<std::size_t>(r * ld + c)]) * x[b * ldx + (c - c0)];
      y[b * ldy + (r - r0)] = static_cast<float>(s);
    }
}

}  // namespace

ModelArch tp_kernel_arch() {
  ModelArch m;
  m.id = "tp-kernel";
  m.layers = 3;
  m.hidden_size = 64;
  m.attention_heads = 8;
  m.kv_heads = 4;
  m.head_dim = 8;
  m.ffn_size = 96;
  m.vocab_size = 0;
  m.gated_mlp = true;
  m.layout = AttentionLayout::gqa;
  m.layer_types.assign(3, LayerAttention::full);
  return m;
}

TpRun tp_step(const ModelArch& m, int tp, int batch, int context) {
  const int h = m.hidden_size, H = m.attention_heads, KV = m.kv_heads, hd = m.head_dim, F = m.ffn_size, L = m.layers;
  if (H % tp != 0 || F % tp != 0) throw std::invalid_argument("tp kernel: tp must divide heads and ffn");
  const int group = H / KV;           // query heads per KV head
  const int heads_r = H / tp;         // query heads per rank
  const int ffn_r = F / tp;
  const float ws = 1.0f / std::sqrt(static_cast<float>(h));
  std::vector<LayerWeights> lw(static_cast<std::size_t>(L));
  for (int l = 0; l < L; ++l) {
    const auto s = static_cast<std::uint64_t>(100 + 20 * l);
    auto& w = lw[static_cast<std::size_t>(l)];
    w.wq = seeded(static_cast<std::size_t>(H * hd * h), s, ws);
    w.wk = seeded(static_cast<std::size_t>(KV * hd * h), s + 1, ws);
    w.wv = seeded(static_cast<std::size_t>(KV * hd * h), s + 2, ws);
    w.wo = seeded(static_cast<std::size_t>(h * H * hd), s + 3, ws);
    w.wg = seeded(static_cast<std::size_t>(F * h), s + 4, ws);
    w.wu = seeded(static_cast<std::size_t>(F * h), s + 5, ws);
    w.wd = seeded(static_cast<std::size_t>(h * F), s + 6, 1.0f / std::sqrt(static_cast<float>(F)));
    w.n1 = seeded(static_cast<std::size_t>(h), s + 7, 1.0f);
    w.n2 = seeded(static_cast<std::size_t>(h), s + 8, 1.0f);
    for (auto& v : w.n1) v = 1.0f + 0.1f * v;
    for (auto& v : w.n2) v = 1.0f + 0.1f * v;
  }
  // KV cache content per (layer, sequence, KV head): the same on every rank that holds that head.
  auto cache_seed = [&](int l, int b, int g, int which) { return static_cast<std::uint64_t>(((l * 1000 + b) * 100 + g) * 2 + which); };
  std::vector<float> x = seeded(static_cast<std::size_t>(batch * h), 42, 1.0f), xn(x.size());
  TpRun run;
  double rank_weight_floats = 0;  // rank 0's matrix weights, counted from the slices it takes
  std::vector<float> partial(static_cast<std::size_t>(batch * h)), reduced(partial.size());
  auto allreduce = [&](const std::vector<std::vector<float>>& parts) {
    std::fill(reduced.begin(), reduced.end(), 0.0f);
    for (const auto& p : parts)
      for (std::size_t i = 0; i < reduced.size(); ++i) reduced[i] += p[i];
    if (tp > 1) {
      ++run.allreduces;
      run.allreduce_bytes = from_base<Bytes>(sizeof(float) * static_cast<double>(reduced.size()));
    }
  };
  for (int l = 0; l < L; ++l) {
    const auto& w = lw[static_cast<std::size_t>(l)];
    rmsnorm(x, w.n1, xn, batch, h);
    std::vector<std::vector<float>> parts(static_cast<std::size_t>(tp), std::vector<float>(partial.size(), 0.0f));
    for (int r = 0; r < tp; ++r) {
      const int hq0 = r * heads_r;
      // This rank's KV heads: those its query heads read (replicated when heads_r < group).
      const int g0 = hq0 / group, g1 = (hq0 + heads_r - 1) / group + 1;
      const int kv_r = g1 - g0;
      std::vector<float> q(static_cast<std::size_t>(batch * heads_r * hd)), k(static_cast<std::size_t>(batch * kv_r * hd)),
          v(k.size()), att(q.size());
      matvec(w.wq, h, hq0 * hd, (hq0 + heads_r) * hd, 0, h, xn.data(), h, q.data(), heads_r * hd, batch);
      matvec(w.wk, h, g0 * hd, g1 * hd, 0, h, xn.data(), h, k.data(), kv_r * hd, batch);
      matvec(w.wv, h, g0 * hd, g1 * hd, 0, h, xn.data(), h, v.data(), kv_r * hd, batch);
      if (r == 0) rank_weight_floats += static_cast<double>(heads_r * hd * h + 2 * kv_r * hd * h + h * heads_r * hd);
      for (int b = 0; b < batch; ++b)
        for (int hq = 0; hq < heads_r; ++hq) {
          const int g = (hq0 + hq) / group;
          std::vector<float> kc(static_cast<std::size_t>(context * hd)), vc(kc.size());
          kernels::fill_uniform(kc, cache_seed(l, b, g, 0), -1.0f, 1.0f);
          kernels::fill_uniform(vc, cache_seed(l, b, g, 1), -1.0f, 1.0f);
          const float* qv = &q[static_cast<std::size_t>((b * heads_r + hq) * hd)];
          const float* kn = &k[static_cast<std::size_t>((b * kv_r + g - g0) * hd)];
          const float* vn = &v[static_cast<std::size_t>((b * kv_r + g - g0) * hd)];
          std::vector<double> sc(static_cast<std::size_t>(context + 1));
          double mx = -1e300;
          for (int p = 0; p <= context; ++p) {
            const float* kp = p < context ? &kc[static_cast<std::size_t>(p * hd)] : kn;
            double d = 0;
            for (int i = 0; i < hd; ++i) d += static_cast<double>(qv[i]) * kp[i];
            sc[static_cast<std::size_t>(p)] = d / std::sqrt(static_cast<double>(hd));
            mx = std::max(mx, sc[static_cast<std::size_t>(p)]);
          }
          double sum = 0;
          for (auto& s : sc) sum += (s = std::exp(s - mx));
          for (int i = 0; i < hd; ++i) {
            double o = 0;
            for (int p = 0; p <= context; ++p) o += sc[static_cast<std::size_t>(p)] * (p < context ? vc[static_cast<std::size_t>(p * hd + i)] : vn[i]);
            att[static_cast<std::size_t>((b * heads_r + hq) * hd + i)] = static_cast<float>(o / sum);
          }
        }
      // Row-parallel output projection: this rank's columns of Wo give a partial sum of the full output.
      matvec(w.wo, H * hd, 0, h, hq0 * hd, (hq0 + heads_r) * hd, att.data(), heads_r * hd, parts[static_cast<std::size_t>(r)].data(), h, batch);
      if (r == 0 && l == 0) run.rank_kv = from_base<Bytes>(2.0 * sizeof(float) * kv_r * hd * static_cast<double>(context) * batch * L);
    }
    allreduce(parts);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += reduced[i];
    rmsnorm(x, w.n2, xn, batch, h);
    for (auto& p : parts) std::fill(p.begin(), p.end(), 0.0f);
    for (int r = 0; r < tp; ++r) {
      const int f0 = r * ffn_r;
      std::vector<float> g(static_cast<std::size_t>(batch * ffn_r)), u(g.size());
      matvec(w.wg, h, f0, f0 + ffn_r, 0, h, xn.data(), h, g.data(), ffn_r, batch);
      matvec(w.wu, h, f0, f0 + ffn_r, 0, h, xn.data(), h, u.data(), ffn_r, batch);
      for (std::size_t i = 0; i < g.size(); ++i) g[i] = g[i] / (1.0f + std::exp(-g[i])) * u[i];
      matvec(w.wd, F, 0, h, f0, f0 + ffn_r, g.data(), ffn_r, parts[static_cast<std::size_t>(r)].data(), h, batch);
      if (r == 0) rank_weight_floats += static_cast<double>(3 * ffn_r * h);
    }
    allreduce(parts);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] += reduced[i];
  }
  run.out = x;
  run.rank_weights = from_base<Bytes>(sizeof(float) * rank_weight_floats);
  return run;
}

}  // namespace infracalc::decode
