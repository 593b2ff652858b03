#include "plugins/decode/kernel_attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "plugins/kernels/rng.hpp"

namespace infracalc::decode {

namespace {

constexpr double kElem = sizeof(float);

// Counts traffic as data crosses between the HBM arrays and the chip.
struct Meter {
  double bytes = 0;
  double flops = 0;
  void load(std::size_t elements) { bytes += kElem * static_cast<double>(elements); }
  void store(std::size_t elements) { bytes += kElem * static_cast<double>(elements); }
};

double dot(const float* a, const float* b, std::size_t d, Meter& m) {
  double s = 0;
  for (std::size_t i = 0; i < d; ++i) s += static_cast<double>(a[i]) * b[i];
  m.flops += 2.0 * static_cast<double>(d);
  return s;
}

}  // namespace

HeadInputs random_head(std::size_t n, std::size_t d, unsigned seed) {
  HeadInputs h;
  h.n = n;
  h.d = d;
  h.q.resize(n * d);
  h.k.resize(n * d);
  h.v.resize(n * d);
  kernels::fill_uniform(h.q, seed, -1.0f, 1.0f);
  kernels::fill_uniform(h.k, seed + 1, -1.0f, 1.0f);
  kernels::fill_uniform(h.v, seed + 2, -1.0f, 1.0f);
  return h;
}

AttentionRun naive_attention(const HeadInputs& in, bool causal) {
  const std::size_t n = in.n, d = in.d;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  Meter m;
  std::vector<float> s(n * n), p(n * n);  // HBM-resident N × N matrices
  // Pass 1: S = QKᵀ. Q and K are read once (block by block in a real kernel), S written in full; masked
  // entries are written as -inf without computing them.
  m.load(n * d);
  m.load(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      s[i * n + j] = causal && j > i ? -std::numeric_limits<float>::infinity()
                                     : static_cast<float>(scale * dot(&in.q[i * d], &in.k[j * d], d, m));
  m.store(n * n);
  // Pass 2: P = softmax(S) row by row: read S, write P.
  m.load(n * n);
  for (std::size_t i = 0; i < n; ++i) {
    const float* row = &s[i * n];
    const float mx = *std::max_element(row, row + n);
    double sum = 0;
    for (std::size_t j = 0; j < n; ++j) sum += std::exp(static_cast<double>(row[j]) - mx);
    for (std::size_t j = 0; j < n; ++j) p[i * n + j] = static_cast<float>(std::exp(static_cast<double>(row[j]) - mx) / sum);
  }
  m.store(n * n);
  // Pass 3: O = PV: read P and V, write O. Masked entries of P are zero and skipped.
  m.load(n * n);
  m.load(n * d);
  AttentionRun r;
  r.out.assign(n * d, 0.0f);
  std::vector<double> acc(d);
  for (std::size_t i = 0; i < n; ++i) {
    std::fill(acc.begin(), acc.end(), 0.0);
    const std::size_t keys = causal ? i + 1 : n;
    for (std::size_t j = 0; j < keys; ++j) {
      const double pij = p[i * n + j];
      for (std::size_t c = 0; c < d; ++c) acc[c] += pij * in.v[j * d + c];
      m.flops += 2.0 * static_cast<double>(d);
    }
    for (std::size_t c = 0; c < d; ++c) r.out[i * d + c] = static_cast<float>(acc[c]);
  }
  m.store(n * d);
  r.flops = from_base<Flops>(m.flops);
  r.traffic = from_base<Bytes>(m.bytes);
  return r;
}

AttentionRun tiled_attention(const HeadInputs& in, bool causal, std::size_t block) {
  const std::size_t n = in.n, d = in.d, b = std::max<std::size_t>(1, block);
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  Meter m;
  // On-chip buffers: one tile each of Q, K, V and the output accumulator, the score tile, and the
  // running max and sum per query row.
  std::vector<float> qt(b * d), kt(b * d), vt(b * d), ot(b * d), st(b * b), mx(b), lsum(b);
  const double chip = kElem * static_cast<double>(qt.size() + kt.size() + vt.size() + ot.size() + st.size() + mx.size() + lsum.size());
  AttentionRun r;
  r.out.assign(n * d, 0.0f);
  for (std::size_t i0 = 0; i0 < n; i0 += b) {
    const std::size_t rows = std::min(b, n - i0);
    std::copy_n(in.q.data() + i0 * d, rows * d, qt.begin());
    m.load(rows * d);
    std::fill(ot.begin(), ot.end(), 0.0f);
    std::fill(mx.begin(), mx.end(), -std::numeric_limits<float>::infinity());
    std::fill(lsum.begin(), lsum.end(), 0.0f);
    const std::size_t key_end = causal ? i0 + rows : n;  // blocks past the diagonal are skipped entirely
    for (std::size_t j0 = 0; j0 < key_end; j0 += b) {
      const std::size_t cols = std::min(b, n - j0);
      std::copy_n(in.k.data() + j0 * d, cols * d, kt.begin());
      std::copy_n(in.v.data() + j0 * d, cols * d, vt.begin());
      m.load(cols * d);
      m.load(cols * d);
      for (std::size_t i = 0; i < rows; ++i) {
        const std::size_t qi = i0 + i;
        const std::size_t visible = causal ? std::min(cols, qi + 1 > j0 ? qi + 1 - j0 : 0) : cols;
        if (visible == 0) continue;
        float tile_max = -std::numeric_limits<float>::infinity();
        for (std::size_t j = 0; j < visible; ++j) {
          st[i * b + j] = static_cast<float>(scale * dot(&qt[i * d], &kt[j * d], d, m));
          tile_max = std::max(tile_max, st[i * b + j]);
        }
        const float m_new = std::max(mx[i], tile_max);
        const double rescale = std::exp(static_cast<double>(mx[i]) - m_new);  // exp(-inf) = 0 on the first tile
        double row_sum = 0;
        std::vector<double> acc(d, 0.0);
        for (std::size_t j = 0; j < visible; ++j) {
          const double pij = std::exp(static_cast<double>(st[i * b + j]) - m_new);
          row_sum += pij;
          for (std::size_t c = 0; c < d; ++c) acc[c] += pij * vt[j * d + c];
          m.flops += 2.0 * static_cast<double>(d);
        }
        for (std::size_t c = 0; c < d; ++c) ot[i * d + c] = static_cast<float>(rescale * ot[i * d + c] + acc[c]);
        lsum[i] = static_cast<float>(rescale * lsum[i] + row_sum);
        mx[i] = m_new;
      }
    }
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t c = 0; c < d; ++c) r.out[(i0 + i) * d + c] = ot[i * d + c] / lsum[i];
    m.store(rows * d);
  }
  r.flops = from_base<Flops>(m.flops);
  r.traffic = from_base<Bytes>(m.bytes);
  r.on_chip = from_base<Bytes>(chip);
  return r;
}

}  // namespace infracalc::decode
