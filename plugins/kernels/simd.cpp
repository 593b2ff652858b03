#include "plugins/kernels/simd.hpp"

#include <algorithm>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#define INFRACALC_X86 1
#else
#define INFRACALC_X86 0
#endif

namespace infracalc::kernels {

namespace {

constexpr std::size_t kTile = 16;  // sequences per outer-product tile unit (one AVX-512 register)
constexpr std::size_t kChunk = 128;  // columns per pass: 128 columns x 64 sequences of input is 32 KiB, in L1
constexpr std::size_t kPanel = 48;   // rows per panel: at most about 1 MB for 5,632 columns, in L2
constexpr std::size_t kOuterFrom = 8;  // batches from here on use the outer-product kernel

std::size_t padded(std::size_t batch) { return (batch + kTile - 1) / kTile * kTile; }

// ---------------------------------------------------------------- scalar (any CPU)

Flops fma_scalar(std::uint64_t iterations, float* sink) {
  float a[8] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f, 0.7f, 0.8f};
  const float m = 0.9999999f, c = 1e-7f;
  for (std::uint64_t i = 0; i < iterations; ++i)
    for (float& v : a) v = v * m + c;
  float s = 0;
  for (float v : a) s += v;
  *sink = s;
  return from_base<Flops>(2.0 * 8.0 * static_cast<double>(iterations));
}

void gemm_scalar(const GemmBlock& g) {
  for (std::size_t b = 0; b < g.batch; ++b) {
    const float* x = g.x + b * g.ldx;
    for (std::size_t r = g.row_begin; r < g.row_end; ++r) {
      const float* w = g.w + r * g.cols;
      float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      std::size_t k = 0;
      for (; k + 4 <= g.cols; k += 4) {
        s0 += w[k] * x[k];
        s1 += w[k + 1] * x[k + 1];
        s2 += w[k + 2] * x[k + 2];
        s3 += w[k + 3] * x[k + 3];
      }
      for (; k < g.cols; ++k) s0 += w[k] * x[k];
      g.y[b * g.ldy + r] = (s0 + s1) + (s2 + s3);
    }
  }
}

// Transposes x (batch × cols, leading dimension ldx) into xt (cols × bp), zero-padding sequences to bp.
// Blocks of 16 × 16 keep both the strided reads and the writes within a few cache lines.
[[maybe_unused]] void transpose_in(const GemmBlock& g, float* xt, std::size_t bp) {
  constexpr std::size_t t = 16;
  for (std::size_t k0 = 0; k0 < g.cols; k0 += t) {
    const std::size_t k1 = std::min(g.cols, k0 + t);
    for (std::size_t b0 = 0; b0 < g.batch; b0 += t) {
      const std::size_t b1 = std::min(g.batch, b0 + t);
      for (std::size_t k = k0; k < k1; ++k)
        for (std::size_t b = b0; b < b1; ++b) xt[k * bp + b] = g.x[b * g.ldx + k];
    }
    for (std::size_t k = k0; k < k1; ++k)
      for (std::size_t b = g.batch; b < bp; ++b) xt[k * bp + b] = 0.0f;
  }
}

// Transposes columns [k_begin, k_end) of x into tiles of up to 64 sequences, tile t holding sequences
// [64t, 64t + width) as cols × width contiguous floats (zero-padded to a multiple of 16), so that a run
// of columns of one tile occupies consecutive cache lines rather than lines a whole batch apart.
std::size_t tile_width(std::size_t bp, std::size_t b0) { return std::min<std::size_t>(64, bp - b0); }

void transpose_tiles(const GemmBlock& g, float* xt, std::size_t k_begin, std::size_t k_end) {
  constexpr std::size_t t = 16;
  const std::size_t bp = padded(g.batch);
  for (std::size_t b0 = 0; b0 < bp; b0 += 64) {
    const std::size_t width = tile_width(bp, b0);
    float* tile = xt + b0 * g.cols;
    const std::size_t b1 = std::min(g.batch, b0 + width);
    for (std::size_t k0 = k_begin; k0 < k_end; k0 += t) {
      const std::size_t k1 = std::min(k_end, k0 + t);
      for (std::size_t b = b0; b < b0 + width; ++b)
        for (std::size_t k = k0; k < k1; ++k) tile[k * width + (b - b0)] = b < b1 ? g.x[b * g.ldx + k] : 0.0f;
    }
  }
}

// Writes the block's rows of yt (rows × bp) back into y (batch × ldy), in 16 × 16 blocks.
[[maybe_unused]] void transpose_out(const GemmBlock& g, const float* yt, std::size_t bp) {
  constexpr std::size_t t = 16;
  for (std::size_t r0 = g.row_begin; r0 < g.row_end; r0 += t) {
    const std::size_t r1 = std::min(g.row_end, r0 + t);
    for (std::size_t b0 = 0; b0 < g.batch; b0 += t) {
      const std::size_t b1 = std::min(g.batch, b0 + t);
      for (std::size_t b = b0; b < b1; ++b)
        for (std::size_t r = r0; r < r1; ++r) g.y[b * g.ldy + r] = yt[(r - g.row_begin) * bp + b];
    }
  }
}

double sum_generic(const double* p, std::size_t n) {
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) s[j] += p[i + static_cast<std::size_t>(j)];
  double t = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
  for (; i < n; ++i) t += p[i];
  return t;
}

void weighted_scalar(const float* p, std::size_t ldp, std::size_t heads, const float* v, std::size_t n, std::size_t width,
                     float* out, std::size_t ldo) {
  for (std::size_t h = 0; h < heads; ++h)
    for (std::size_t t = 0; t < n; ++t) {
      const float w = p[h * ldp + t];
      for (std::size_t i = 0; i < width; ++i) out[h * ldo + i] += w * v[t * width + i];
    }
}

#if INFRACALC_X86
// ---------------------------------------------------------------- AVX-512

// A horizontal sum through memory: GCC 12's _mm512_reduce_add_ps trips -Wuninitialized in its own header
// (GCC bug 105593).
__attribute__((target("avx512f"))) float hsum512(__m512 v) {
  alignas(64) float t[16];
  _mm512_store_ps(t, v);
  float s = 0;
  for (float x : t) s += x;
  return s;
}

// Four sequential sub-streams read in step, as a matrix-vector product reads four weight rows at once:
// more streams in flight keep more memory requests outstanding than one.
__attribute__((target("avx512f"))) double sum_avx512(const double* p, std::size_t n) {
  const std::size_t q = n / 4 / 16 * 16;
  const double *p0 = p, *p1 = p + q, *p2 = p + 2 * q, *p3 = p + 3 * q;
  __m512d a0 = _mm512_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  for (std::size_t i = 0; i < q; i += 16) {
    a0 = _mm512_add_pd(a0, _mm512_loadu_pd(p0 + i));
    b0 = _mm512_add_pd(b0, _mm512_loadu_pd(p0 + i + 8));
    a1 = _mm512_add_pd(a1, _mm512_loadu_pd(p1 + i));
    b1 = _mm512_add_pd(b1, _mm512_loadu_pd(p1 + i + 8));
    a2 = _mm512_add_pd(a2, _mm512_loadu_pd(p2 + i));
    b2 = _mm512_add_pd(b2, _mm512_loadu_pd(p2 + i + 8));
    a3 = _mm512_add_pd(a3, _mm512_loadu_pd(p3 + i));
    b3 = _mm512_add_pd(b3, _mm512_loadu_pd(p3 + i + 8));
  }
  const __m512d t = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a0, b0), _mm512_add_pd(a1, b1)),
                                  _mm512_add_pd(_mm512_add_pd(a2, b2), _mm512_add_pd(a3, b3)));
  alignas(64) double o[8];
  _mm512_store_pd(o, t);
  double s = 0;
  for (double x : o) s += x;
  for (std::size_t i = 4 * q; i < n; ++i) s += p[i];
  return s;
}

// H heads × 16·C columns of the output held in registers while the value rows stream past.
template <int H, int C>
__attribute__((target("avx512f"))) void weighted512(const float* p, std::size_t ldp, const float* v, std::size_t n,
                                                    std::size_t width, std::size_t i0, __mmask16 last, float* out,
                                                    std::size_t ldo) {
  __m512 acc[H][C];
  for (int h = 0; h < H; ++h)
    for (int c = 0; c < C; ++c) {
      const __mmask16 m = c == C - 1 ? last : static_cast<__mmask16>(0xffff);
      acc[h][c] = _mm512_maskz_loadu_ps(m, out + static_cast<std::size_t>(h) * ldo + i0 + 16 * static_cast<std::size_t>(c));
    }
  for (std::size_t t = 0; t < n; ++t) {
    __m512 vv[C];
    for (int c = 0; c < C; ++c) {
      const __mmask16 m = c == C - 1 ? last : static_cast<__mmask16>(0xffff);
      vv[c] = _mm512_maskz_loadu_ps(m, v + t * width + i0 + 16 * static_cast<std::size_t>(c));
    }
    for (int h = 0; h < H; ++h) {
      const __m512 w = _mm512_set1_ps(p[static_cast<std::size_t>(h) * ldp + t]);
      for (int c = 0; c < C; ++c) acc[h][c] = _mm512_fmadd_ps(w, vv[c], acc[h][c]);
    }
  }
  for (int h = 0; h < H; ++h)
    for (int c = 0; c < C; ++c) {
      const __mmask16 m = c == C - 1 ? last : static_cast<__mmask16>(0xffff);
      _mm512_mask_storeu_ps(out + static_cast<std::size_t>(h) * ldo + i0 + 16 * static_cast<std::size_t>(c), m, acc[h][c]);
    }
}

template <int H>
__attribute__((target("avx512f"))) void weighted512_heads(const float* p, std::size_t ldp, const float* v, std::size_t n,
                                                          std::size_t width, float* out, std::size_t ldo) {
  std::size_t i0 = 0;
  for (; i0 + 64 <= width; i0 += 64) weighted512<H, 4>(p, ldp, v, n, width, i0, 0xffff, out, ldo);
  while (i0 < width) {
    const std::size_t left = std::min<std::size_t>(16, width - i0);
    const auto mask = static_cast<__mmask16>(left == 16 ? 0xffffu : (1u << left) - 1u);
    weighted512<H, 1>(p, ldp, v, n, width, i0, mask, out, ldo);
    i0 += left;
  }
}

__attribute__((target("avx512f"))) void weighted_avx512(const float* p, std::size_t ldp, std::size_t heads, const float* v,
                                                        std::size_t n, std::size_t width, float* out, std::size_t ldo) {
  std::size_t h = 0;
  for (; h + 4 <= heads; h += 4) weighted512_heads<4>(p + h * ldp, ldp, v, n, width, out + h * ldo, ldo);
  for (; h < heads; ++h) weighted512_heads<1>(p + h * ldp, ldp, v, n, width, out + h * ldo, ldo);
}

__attribute__((target("avx512f"))) Flops fma_avx512(std::uint64_t iterations, float* sink) {
  // 16 independent chains cover the FMA latency (4 cycles) times two FMA ports with room to spare.
  __m512 a0 = _mm512_set1_ps(0.1f), a1 = _mm512_set1_ps(0.2f), a2 = _mm512_set1_ps(0.3f), a3 = _mm512_set1_ps(0.4f);
  __m512 a4 = _mm512_set1_ps(0.5f), a5 = _mm512_set1_ps(0.6f), a6 = _mm512_set1_ps(0.7f), a7 = _mm512_set1_ps(0.8f);
  __m512 a8 = _mm512_set1_ps(0.15f), a9 = _mm512_set1_ps(0.25f), a10 = _mm512_set1_ps(0.35f), a11 = _mm512_set1_ps(0.45f);
  __m512 a12 = _mm512_set1_ps(0.55f), a13 = _mm512_set1_ps(0.65f), a14 = _mm512_set1_ps(0.75f), a15 = _mm512_set1_ps(0.85f);
  const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    a0 = _mm512_fmadd_ps(a0, m, c);
    a1 = _mm512_fmadd_ps(a1, m, c);
    a2 = _mm512_fmadd_ps(a2, m, c);
    a3 = _mm512_fmadd_ps(a3, m, c);
    a4 = _mm512_fmadd_ps(a4, m, c);
    a5 = _mm512_fmadd_ps(a5, m, c);
    a6 = _mm512_fmadd_ps(a6, m, c);
    a7 = _mm512_fmadd_ps(a7, m, c);
    a8 = _mm512_fmadd_ps(a8, m, c);
    a9 = _mm512_fmadd_ps(a9, m, c);
    a10 = _mm512_fmadd_ps(a10, m, c);
    a11 = _mm512_fmadd_ps(a11, m, c);
    a12 = _mm512_fmadd_ps(a12, m, c);
    a13 = _mm512_fmadd_ps(a13, m, c);
    a14 = _mm512_fmadd_ps(a14, m, c);
    a15 = _mm512_fmadd_ps(a15, m, c);
  }
  __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                           _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
  s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                                     _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15))));
  *sink = hsum512(s);
  return from_base<Flops>(2.0 * 16.0 * 16.0 * static_cast<double>(iterations));
}

// R rows × C sequences, vectorised along k: streams W once; the memory-bound small-batch kernel.
template <int R, int C>
__attribute__((target("avx512f"))) void dot512(const float* w, std::size_t cols, const float* x, std::size_t ldx, float* y,
                                               std::size_t ldy) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm512_setzero_ps();
  std::size_t k = 0;
  for (; k + 16 <= cols; k += 16) {
    __m512 wv[R];
    for (int r = 0; r < R; ++r) wv[r] = _mm512_loadu_ps(w + static_cast<std::size_t>(r) * cols + k);
    for (int c = 0; c < C; ++c) {
      const __m512 xv = _mm512_loadu_ps(x + static_cast<std::size_t>(c) * ldx + k);
      for (int r = 0; r < R; ++r) acc[r][c] = _mm512_fmadd_ps(wv[r], xv, acc[r][c]);
    }
  }
  if (k < cols) {
    const auto mask = static_cast<__mmask16>((1u << (cols - k)) - 1u);
    __m512 wv[R];
    for (int r = 0; r < R; ++r) wv[r] = _mm512_maskz_loadu_ps(mask, w + static_cast<std::size_t>(r) * cols + k);
    for (int c = 0; c < C; ++c) {
      const __m512 xv = _mm512_maskz_loadu_ps(mask, x + static_cast<std::size_t>(c) * ldx + k);
      for (int r = 0; r < R; ++r) acc[r][c] = _mm512_fmadd_ps(wv[r], xv, acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) y[static_cast<std::size_t>(c) * ldy + static_cast<std::size_t>(r)] = hsum512(acc[r][c]);
}

// Rows outer, sequences inner: a block of rows is read from memory once and reused from cache for every
// group of sequences.
template <int R>
__attribute__((target("avx512f"))) void dot512_block(const GemmBlock& g, std::size_t r) {
  const float* w = g.w + r * g.cols;
  std::size_t b = 0;
  for (; b + 4 <= g.batch; b += 4) dot512<R, 4>(w, g.cols, g.x + b * g.ldx, g.ldx, g.y + b * g.ldy + r, g.ldy);
  switch (g.batch - b) {
    case 3: dot512<R, 3>(w, g.cols, g.x + b * g.ldx, g.ldx, g.y + b * g.ldy + r, g.ldy); break;
    case 2: dot512<R, 2>(w, g.cols, g.x + b * g.ldx, g.ldx, g.y + b * g.ldy + r, g.ldy); break;
    case 1: dot512<R, 1>(w, g.cols, g.x + b * g.ldx, g.ldx, g.y + b * g.ldy + r, g.ldy); break;
    default: break;
  }
}

// R rows × C·16 sequences, vectorised along the batch (xt is the transposed input): each weight is
// broadcast once and used C·16 times, so arithmetic, not memory, bounds it once the batch is large.
template <int R, int C>
__attribute__((target("avx512f"))) void outer512(const float* w, std::size_t ldw, std::size_t kn, const float* xt,
                                                 std::size_t ldxt, float* yt, std::size_t ldyt, bool accumulate) {
  __m512 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c)
      acc[r][c] = accumulate ? _mm512_loadu_ps(yt + static_cast<std::size_t>(r) * ldyt + 16 * static_cast<std::size_t>(c))
                             : _mm512_setzero_ps();
  for (std::size_t k = 0; k < kn; ++k) {
    __m512 xv[C];
    for (int c = 0; c < C; ++c) xv[c] = _mm512_loadu_ps(xt + k * ldxt + 16 * static_cast<std::size_t>(c));
    for (int r = 0; r < R; ++r) {
      const __m512 wb = _mm512_set1_ps(w[static_cast<std::size_t>(r) * ldw + k]);
      for (int c = 0; c < C; ++c) acc[r][c] = _mm512_fmadd_ps(wb, xv[c], acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) _mm512_storeu_ps(yt + static_cast<std::size_t>(r) * ldyt + 16 * static_cast<std::size_t>(c), acc[r][c]);
}

__attribute__((target("avx512f"))) void gemm_avx512(const GemmBlock& g, float* scratch) {
  if (g.batch < kOuterFrom) {
    std::size_t r = g.row_begin;
    for (; r + 4 <= g.row_end; r += 4) dot512_block<4>(g, r);
    for (; r < g.row_end; ++r) dot512_block<1>(g, r);
    return;
  }
  const std::size_t bp = padded(g.batch);
  const float* xt = g.xt;
  float* yt = scratch;
  if (xt == nullptr) {
    float* own = scratch + (g.row_end - g.row_begin) * bp;
    transpose_tiles(g, own, 0, g.cols);
    xt = own;
  }
  // Rows go in panels of about 768 KiB, read from memory in order (which the hardware prefetcher follows
  // at full speed) and kept in L2 while each tile of 64 sequences of the transposed input passes over
  // them; six rows at a time meet a tile in one pass over all columns.
  const std::size_t panel_rows = std::clamp<std::size_t>((768 * 1024 / (g.cols * sizeof(float))) / 6 * 6, 6, 96);
  for (std::size_t p0 = g.row_begin; p0 < g.row_end; p0 += panel_rows) {
    const std::size_t p1 = std::min(g.row_end, p0 + panel_rows);
    for (std::size_t b = 0; b < bp; b += 64) {
      const std::size_t width = tile_width(bp, b);
      const std::size_t vecs = width / 16;
      const float* x = xt + b * g.cols;
      std::size_t r = p0;
      for (; r + 6 <= p1; r += 6) {
        const float* w = g.w + r * g.cols;
        float* y = yt + (r - g.row_begin) * bp + b;
        switch (vecs) {
          case 4: outer512<6, 4>(w, g.cols, g.cols, x, width, y, bp, false); break;
          case 3: outer512<6, 3>(w, g.cols, g.cols, x, width, y, bp, false); break;
          case 2: outer512<6, 2>(w, g.cols, g.cols, x, width, y, bp, false); break;
          default: outer512<6, 1>(w, g.cols, g.cols, x, width, y, bp, false); break;
        }
      }
      for (; r < p1; ++r) {
        const float* w = g.w + r * g.cols;
        float* y = yt + (r - g.row_begin) * bp + b;
        switch (vecs) {
          case 4: outer512<1, 4>(w, g.cols, g.cols, x, width, y, bp, false); break;
          case 3: outer512<1, 3>(w, g.cols, g.cols, x, width, y, bp, false); break;
          case 2: outer512<1, 2>(w, g.cols, g.cols, x, width, y, bp, false); break;
          default: outer512<1, 1>(w, g.cols, g.cols, x, width, y, bp, false); break;
        }
      }
    }
  }
  transpose_out(g, yt, bp);
}

// ---------------------------------------------------------------- AVX2 + FMA

__attribute__((target("avx2,fma"))) Flops fma_avx2(std::uint64_t iterations, float* sink) {
  __m256 a0 = _mm256_set1_ps(0.1f), a1 = _mm256_set1_ps(0.2f), a2 = _mm256_set1_ps(0.3f), a3 = _mm256_set1_ps(0.4f);
  __m256 a4 = _mm256_set1_ps(0.5f), a5 = _mm256_set1_ps(0.6f), a6 = _mm256_set1_ps(0.7f), a7 = _mm256_set1_ps(0.8f);
  __m256 a8 = _mm256_set1_ps(0.15f), a9 = _mm256_set1_ps(0.25f), a10 = _mm256_set1_ps(0.35f), a11 = _mm256_set1_ps(0.45f);
  const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (std::uint64_t i = 0; i < iterations; ++i) {
    a0 = _mm256_fmadd_ps(a0, m, c);
    a1 = _mm256_fmadd_ps(a1, m, c);
    a2 = _mm256_fmadd_ps(a2, m, c);
    a3 = _mm256_fmadd_ps(a3, m, c);
    a4 = _mm256_fmadd_ps(a4, m, c);
    a5 = _mm256_fmadd_ps(a5, m, c);
    a6 = _mm256_fmadd_ps(a6, m, c);
    a7 = _mm256_fmadd_ps(a7, m, c);
    a8 = _mm256_fmadd_ps(a8, m, c);
    a9 = _mm256_fmadd_ps(a9, m, c);
    a10 = _mm256_fmadd_ps(a10, m, c);
    a11 = _mm256_fmadd_ps(a11, m, c);
  }
  __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                           _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  float t = 0;
  for (float v : out) t += v;
  *sink = t;
  return from_base<Flops>(2.0 * 12.0 * 8.0 * static_cast<double>(iterations));
}

__attribute__((target("avx2,fma"))) double sum_avx2(const double* p, std::size_t n) {
  const std::size_t q = n / 4 / 8 * 8;
  const double *p0 = p, *p1 = p + q, *p2 = p + 2 * q, *p3 = p + 3 * q;
  __m256d a0 = _mm256_setzero_pd(), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
  for (std::size_t i = 0; i < q; i += 8) {
    a0 = _mm256_add_pd(a0, _mm256_loadu_pd(p0 + i));
    b0 = _mm256_add_pd(b0, _mm256_loadu_pd(p0 + i + 4));
    a1 = _mm256_add_pd(a1, _mm256_loadu_pd(p1 + i));
    b1 = _mm256_add_pd(b1, _mm256_loadu_pd(p1 + i + 4));
    a2 = _mm256_add_pd(a2, _mm256_loadu_pd(p2 + i));
    b2 = _mm256_add_pd(b2, _mm256_loadu_pd(p2 + i + 4));
    a3 = _mm256_add_pd(a3, _mm256_loadu_pd(p3 + i));
    b3 = _mm256_add_pd(b3, _mm256_loadu_pd(p3 + i + 4));
  }
  const __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a0, b0), _mm256_add_pd(a1, b1)),
                                  _mm256_add_pd(_mm256_add_pd(a2, b2), _mm256_add_pd(a3, b3)));
  alignas(32) double o[4];
  _mm256_store_pd(o, t);
  double s = (o[0] + o[1]) + (o[2] + o[3]);
  for (std::size_t i = 4 * q; i < n; ++i) s += p[i];
  return s;
}

__attribute__((target("avx2,fma"))) float hsum256(__m256 v) {
  alignas(32) float out[8];
  _mm256_store_ps(out, v);
  return ((out[0] + out[1]) + (out[2] + out[3])) + ((out[4] + out[5]) + (out[6] + out[7]));
}

template <int R, int C>
__attribute__((target("avx2,fma"))) void dot256(const float* w, std::size_t cols, const float* x, std::size_t ldx, float* y,
                                                std::size_t ldy) {
  __m256 acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = _mm256_setzero_ps();
  std::size_t k = 0;
  for (; k + 8 <= cols; k += 8) {
    __m256 wv[R];
    for (int r = 0; r < R; ++r) wv[r] = _mm256_loadu_ps(w + static_cast<std::size_t>(r) * cols + k);
    for (int c = 0; c < C; ++c) {
      const __m256 xv = _mm256_loadu_ps(x + static_cast<std::size_t>(c) * ldx + k);
      for (int r = 0; r < R; ++r) acc[r][c] = _mm256_fmadd_ps(wv[r], xv, acc[r][c]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      float s = hsum256(acc[r][c]);
      for (std::size_t kk = k; kk < cols; ++kk) s += w[static_cast<std::size_t>(r) * cols + kk] * x[static_cast<std::size_t>(c) * ldx + kk];
      y[static_cast<std::size_t>(c) * ldy + static_cast<std::size_t>(r)] = s;
    }
}

template <int R>
__attribute__((target("avx2,fma"))) void dot256_block(const GemmBlock& g, std::size_t r) {
  const float* w = g.w + r * g.cols;
  std::size_t b = 0;
  for (; b + 2 <= g.batch; b += 2) dot256<R, 2>(w, g.cols, g.x + b * g.ldx, g.ldx, g.y + b * g.ldy + r, g.ldy);
  if (b < g.batch) dot256<R, 1>(w, g.cols, g.x + b * g.ldx, g.ldx, g.y + b * g.ldy + r, g.ldy);
}

// R rows × 16 sequences (two registers) per tile.
template <int R>
__attribute__((target("avx2,fma"))) void outer256(const float* w, std::size_t ldw, std::size_t kn, const float* xt,
                                                  std::size_t ldxt, float* yt, std::size_t ldyt, bool accumulate) {
  __m256 acc[R][2];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < 2; ++c)
      acc[r][c] = accumulate ? _mm256_loadu_ps(yt + static_cast<std::size_t>(r) * ldyt + 8 * static_cast<std::size_t>(c))
                             : _mm256_setzero_ps();
  for (std::size_t k = 0; k < kn; ++k) {
    const __m256 x0 = _mm256_loadu_ps(xt + k * ldxt), x1 = _mm256_loadu_ps(xt + k * ldxt + 8);
    for (int r = 0; r < R; ++r) {
      const __m256 wb = _mm256_broadcast_ss(w + static_cast<std::size_t>(r) * ldw + k);
      acc[r][0] = _mm256_fmadd_ps(wb, x0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(wb, x1, acc[r][1]);
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < 2; ++c) _mm256_storeu_ps(yt + static_cast<std::size_t>(r) * ldyt + 8 * static_cast<std::size_t>(c), acc[r][c]);
}

__attribute__((target("avx2,fma"))) void gemm_avx2(const GemmBlock& g, float* scratch) {
  if (g.batch < kOuterFrom) {
    std::size_t r = g.row_begin;
    for (; r + 4 <= g.row_end; r += 4) dot256_block<4>(g, r);
    for (; r < g.row_end; ++r) dot256_block<1>(g, r);
    return;
  }
  const std::size_t bp = padded(g.batch);
  float* xt = scratch;
  float* yt = scratch + g.cols * bp;
  float* panel = yt + (g.row_end - g.row_begin) * bp;
  transpose_in(g, xt, bp);
  for (std::size_t p0 = g.row_begin; p0 < g.row_end; p0 += kPanel) {
    const std::size_t prows = std::min(kPanel, g.row_end - p0);
    std::memcpy(panel, g.w + p0 * g.cols, prows * g.cols * sizeof(float));
    for (std::size_t k0 = 0; k0 < g.cols; k0 += kChunk) {
      const std::size_t kn = std::min(kChunk, g.cols - k0);
      for (std::size_t b = 0; b < bp; b += 16) {
        std::size_t r = 0;
        for (; r + 6 <= prows; r += 6)
          outer256<6>(panel + r * g.cols + k0, g.cols, kn, xt + k0 * bp + b, bp, yt + (p0 + r - g.row_begin) * bp + b, bp, k0 > 0);
        for (; r < prows; ++r)
          outer256<1>(panel + r * g.cols + k0, g.cols, kn, xt + k0 * bp + b, bp, yt + (p0 + r - g.row_begin) * bp + b, bp, k0 > 0);
      }
    }
  }
  transpose_out(g, yt, bp);
}

// Clears the upper halves of the vector registers. Code compiled without AVX that runs while they are
// dirty pays for every SSE instruction (50x slower scalar math measured on this project's VM), and GCC
// omits its own vzeroupper on some tail-call paths out of the target functions above.
__attribute__((target("avx"))) void clean_upper() { _mm256_zeroupper(); }

struct CleanUpper {
  Isa isa;
  ~CleanUpper() {
    if (isa != Isa::scalar) clean_upper();
  }
};
#endif

}  // namespace

Flops fma_loop(Isa isa, std::uint64_t iterations, float* sink) {
#if INFRACALC_X86
  const CleanUpper clean{isa};
  if (isa == Isa::avx512) return fma_avx512(iterations, sink);
  if (isa == Isa::avx2) return fma_avx2(iterations, sink);
#endif
  (void)isa;
  return fma_scalar(iterations, sink);
}

double stream_sum(Isa isa, const double* p, std::size_t n) {
#if INFRACALC_X86
  const CleanUpper clean{isa};
  if (isa == Isa::avx512) return sum_avx512(p, n);
  if (isa == Isa::avx2) return sum_avx2(p, n);
#endif
  (void)isa;
  return sum_generic(p, n);
}

void weighted_rows(Isa isa, const float* p, std::size_t ldp, std::size_t heads, const float* v, std::size_t n,
                   std::size_t width, float* out, std::size_t ldo) {
#if INFRACALC_X86
  const CleanUpper clean{isa};
  if (isa == Isa::avx512) return weighted_avx512(p, ldp, heads, v, n, width, out, ldo);
#endif
  (void)isa;
  weighted_scalar(p, ldp, heads, v, n, width, out, ldo);
}

bool gemm_uses_transposed(std::size_t batch) { return batch >= kOuterFrom; }

std::size_t transposed_input_floats(std::size_t cols, std::size_t batch) { return cols * padded(batch); }

void transpose_input(const GemmBlock& g, float* xt, std::size_t k_begin, std::size_t k_end) { transpose_tiles(g, xt, k_begin, k_end); }

std::size_t gemm_scratch_floats(std::size_t cols, std::size_t rows, std::size_t batch) {
  return batch < kOuterFrom ? 0 : transposed_input_floats(cols, batch) + rows * padded(batch) + kPanel * cols;
}

void gemm_block(Isa isa, const GemmBlock& g, float* scratch) {
  if (g.row_begin >= g.row_end || g.batch == 0) return;
#if INFRACALC_X86
  const CleanUpper clean{isa};
  if (isa == Isa::avx512) return gemm_avx512(g, scratch);
  if (isa == Isa::avx2) return gemm_avx2(g, scratch);
#endif
  (void)isa;
  (void)scratch;
  gemm_scalar(g);
}

}  // namespace infracalc::kernels

#undef INFRACALC_X86
