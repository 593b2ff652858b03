// Vector kernels that measure and use this CPU's arithmetic: a register-resident FMA loop (the peak-rate
// probe) and the single-precision matrix product a decode step is made of. Each has an AVX-512, an
// AVX2+FMA and a scalar version, chosen at run time from cpuid, so the binary runs on any x86-64.
#pragma once

#include <cstddef>
#include <cstdint>

#include "plugins/kernels/host_info.hpp"
#include "units/system.hpp"

namespace infracalc::kernels {

/// Runs `iterations` rounds of independent fused multiply-adds held in registers on the calling thread and
/// returns the operations executed (2 per lane per FMA). `sink` receives a result so nothing is elided.
[[nodiscard]] Flops fma_loop(Isa isa, std::uint64_t iterations, float* sink);

/// Sums `n` doubles with the widest loads the vector unit has, reading four sequential sub-streams in step
/// as a matrix-vector product reads four weight rows: the read pattern of a decode step, for the
/// bandwidth probe.
[[nodiscard]] double stream_sum(Isa isa, const double* p, std::size_t n);

/// Operands of y = x · Wᵀ for a block of W's rows: W is rows × cols (row-major), x is batch × cols and y is
/// batch × rows, both row-major with the given leading dimensions.
struct GemmBlock {
  /// Weights, row-major, `cols` floats per row.
  const float* w = nullptr;
  /// Input width (columns of W and of x).
  std::size_t cols = 0;
  /// First row of W (and column of y) this call computes.
  std::size_t row_begin = 0;
  /// One past the last row.
  std::size_t row_end = 0;
  /// Activations, batch × ldx floats.
  const float* x = nullptr;
  /// Leading dimension of x (≥ cols).
  std::size_t ldx = 0;
  /// Sequences in the batch.
  std::size_t batch = 0;
  /// Output, batch × ldy floats; columns [row_begin, row_end) are overwritten.
  float* y = nullptr;
  /// Leading dimension of y.
  std::size_t ldy = 0;
  /// The input already transposed by transpose_input (shared by the threads of one product), or null to
  /// let gemm_block transpose it itself.
  const float* xt = nullptr;
};

/// Computes y[b][r] = Σ_k W[r][k] · x[b][k] for the block's rows and every sequence. Small batches run a
/// dot-product kernel vectorised along k (memory-bound streaming of W); from 8 sequences on, an
/// outer-product kernel vectorised along the batch over the transposed input, which needs
/// gemm_scratch_floats() of `scratch`.
void gemm_block(Isa isa, const GemmBlock& g, float* scratch);

/// Accumulates out[h][i] += Σ_t p[h][t] · v[t][i] for h < heads, t < n, i < width: the P·V product of
/// attention for a group of query heads sharing one value cache (p: heads × n with leading dimension ldp;
/// v: n × width, row-major; out: heads × width with leading dimension ldo).
void weighted_rows(Isa isa, const float* p, std::size_t ldp, std::size_t heads, const float* v, std::size_t n,
                   std::size_t width, float* out, std::size_t ldo);

/// Whether gemm_block uses the transposed input for this batch (the outer-product kernel).
[[nodiscard]] bool gemm_uses_transposed(std::size_t batch);
/// Floats of the transposed input for `cols` columns and `batch` sequences.
[[nodiscard]] std::size_t transposed_input_floats(std::size_t cols, std::size_t batch);
/// Writes columns [k_begin, k_end) of the transposed input of `g` into `xt` (threads can share the work).
void transpose_input(const GemmBlock& g, float* xt, std::size_t k_begin, std::size_t k_end);

/// Floats of scratch gemm_block needs for a block of `rows` rows.
[[nodiscard]] std::size_t gemm_scratch_floats(std::size_t cols, std::size_t rows, std::size_t batch);

}  // namespace infracalc::kernels
