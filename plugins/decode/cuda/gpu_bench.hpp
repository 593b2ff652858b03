// The GPU side of the optional `infracalc-gpu` tool: probes and a synthetic BF16 decoder on the first CUDA
// device. This header is the boundary to code nvcc compiles, so it uses plain types: every figure is in
// base units (bytes, seconds, operations per second) as its name says, and the host side turns them into
// typed quantities at once.
#pragma once

#include <string>
#include <vector>

namespace infracalc::decode::gpu {

/// Sizes of the synthetic decoder (BF16 weights and KV cache, grouped-query attention, gated MLP).
struct Shape {
  /// Transformer layers.
  int layers = 8;
  /// Model width.
  int hidden = 4096;
  /// Query heads.
  int heads = 32;
  /// Key/value heads.
  int kv_heads = 8;
  /// Head width.
  int head_dim = 128;
  /// MLP width (gated: gate and up side by side, then down).
  int ffn = 14336;
  /// Vocabulary (untied embedding table and output head).
  int vocab = 32000;
};

/// One batch size of the decoder, timed.
struct StepTiming {
  /// Sequences per step.
  int batch = 1;
  /// Median seconds per step (CUDA events), after warm-up steps.
  double seconds = 0;
};

/// Everything one run measured.
struct Measurement {
  /// False when there is no usable device (then `why` says so) or a CUDA call failed.
  bool ok = false;
  /// Why there are no figures.
  std::string why;
  /// Device name.
  std::string device;
  /// Streaming multiprocessors.
  int sms = 0;
  /// Device memory in bytes.
  double memory_bytes = 0;
  /// Compute capability, major.
  int cc_major = 0;
  /// Compute capability, minor.
  int cc_minor = 0;
  /// Read-only bandwidth in bytes per second (median).
  double read_bytes_per_second = 0;
  /// Triad bandwidth in bytes per second (median, 3 × 16 B per float4 counted).
  double triad_bytes_per_second = 0;
  /// FP32 FMA loop in operations per second (median).
  double fma_flops_per_second = 0;
  /// cuBLAS SGEMM (no TF32) in operations per second (median).
  double sgemm_flops_per_second = 0;
  /// cuBLAS BF16 tensor-core GEMM (FP32 accumulation) in operations per second (median).
  double bf16_gemm_flops_per_second = 0;
  /// The decoder's steps.
  std::vector<StepTiming> steps;
  /// Tokens of context each sequence held.
  int context = 0;
};

/// Runs the probes and the decoder at `batches` (ascending) with `context` cached tokens per sequence.
/// Never throws: failures come back in `why`.
[[nodiscard]] Measurement measure(const Shape& shape, const std::vector<int>& batches, int context, bool progress);

}  // namespace infracalc::decode::gpu
