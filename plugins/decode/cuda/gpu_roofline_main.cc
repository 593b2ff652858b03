// infracalc-gpu: the decode roofline checked on a CUDA GPU. Measures the device's read bandwidth and
// tensor-core matrix rate, times a synthetic BF16 decoder at batch sizes from 1 to 1024, and compares
// with what the decode plugin's formulas predict from those two figures.
//
// (This file is .cc, not .cpp, so the plugin library's source glob leaves it out: it is the entry point
// of an optional tool that only exists when CMake finds nvcc.)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/decode/cuda/gpu_bench.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/decode/kernel_decode_loop.hpp"
#include "plugins/formats/storage.hpp"

using namespace infracalc;
using namespace infracalc::decode;

int main(int argc, char** argv) {
  int context = 128, max_batch = 1024;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: infracalc-gpu [--context N] [--max-batch N]\n\n"
          "  Measures the first CUDA device's read bandwidth, FP32 FMA, SGEMM and BF16 tensor-core GEMM rates, times a\n"
          "  synthetic BF16 decoder (8 layers of width 4096, 3.7 GB of weights) at batches 1, 2, 4, ... up to --max-batch\n"
          "  with --context tokens cached per sequence, and checks the decode plugin's predictions: tokens/s at batch 1\n"
          "  within 25%%, and the measured ridge batch within a factor of 2. Exits 0 when both hold or there is no GPU,\n"
          "  1 when a check fails, 2 on a CUDA error.\n");
      return 0;
    }
    if (i + 1 < argc && !std::strcmp(argv[i], "--context")) context = std::atoi(argv[++i]);
    else if (i + 1 < argc && !std::strcmp(argv[i], "--max-batch")) max_batch = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "error: infracalc-gpu: unknown argument '%s'; hint: see infracalc-gpu --help\n", argv[i]);
      return 2;
    }
  }
  if (context < 1 || context > 1 << 20 || max_batch < 2 || max_batch > 1 << 16) {
    std::fprintf(stderr, "error: infracalc-gpu: --context must be 1 to 2^20 and --max-batch 2 to 65536\n");
    return 2;
  }
  const gpu::Shape shape;
  std::vector<int> batches;
  for (int b = 1; b <= max_batch; b *= 2) batches.push_back(b);
  const gpu::Measurement m = gpu::measure(shape, batches, context, true);
  if (!m.ok) {
    std::printf("infracalc-gpu: %s; nothing measured\n", m.why.c_str());
    return m.why == "no CUDA device" ? 0 : 2;
  }
  SyntheticShape ss;
  ss.layers = shape.layers;
  ss.hidden = shape.hidden;
  ss.heads = shape.heads;
  ss.kv_heads = shape.kv_heads;
  ss.head_dim = shape.head_dim;
  ss.ffn = shape.ffn;
  ss.vocab = shape.vocab;
  const StorageFormat& bf16 = *find_storage_format("bf16");
  const Workload w = workload_from_arch(synthetic_arch(ss), bf16, bf16);
  const Tokens ctx = from_base<Tokens>(context);
  const Roof roof{from_base<BytesPerSecond>(m.read_bytes_per_second), from_base<FlopsPerSecond>(m.bf16_gemm_flops_per_second)};
  std::printf("%s: %d SMs, %.1f GB, compute capability %d.%d\n", m.device.c_str(), m.sms, m.memory_bytes / 1e9, m.cc_major, m.cc_minor);
  std::printf("read %.0f GB/s, triad %.0f GB/s; FP32 FMA %.1f TFLOP/s, SGEMM %.1f TFLOP/s, BF16 GEMM %.1f TFLOP/s; ridge %.0f FLOP/B\n",
              m.read_bytes_per_second / 1e9, m.triad_bytes_per_second / 1e9, m.fma_flops_per_second / 1e12, m.sgemm_flops_per_second / 1e12,
              m.bf16_gemm_flops_per_second / 1e12, ridge_point(*roof.peak, roof.bandwidth).value());
  std::printf("%8s %12s %12s %12s %12s\n", "batch", "step (ms)", "predicted", "tok/s", "predicted");
  for (const auto& t : m.steps) {
    const StepTime p = step_time(decode_step(w, t.batch, ctx).cost(), roof);
    std::printf("%8d %12.3f %12.3f %12.0f %12.0f\n", t.batch, t.seconds * 1e3, p.total.value() * 1e3, t.batch / t.seconds, t.batch / p.total.value());
  }
  const auto& first = m.steps.front();
  const auto& last = m.steps.back();
  const double predicted_one = 1.0 / step_time(decode_step(w, 1, ctx).cost(), roof).total.value();
  const double measured_one = 1.0 / first.seconds;
  const bool ok_one = std::fabs(measured_one - predicted_one) <= 0.25 * predicted_one;
  const StepCost c1 = decode_step(w, first.batch, ctx).cost(), cn = decode_step(w, last.batch, ctx).cost();
  const Roof measured{c1.bytes / from_base<Seconds>(first.seconds), cn.flops / from_base<Seconds>(last.seconds)};
  const double predicted_ridge = ridge_batch(w, roof, ctx).value_or(0);
  const double measured_ridge = ridge_batch(w, measured, ctx).value_or(0);
  const bool ok_ridge = predicted_ridge > 0 && measured_ridge > 0 && std::fabs(std::log2(measured_ridge / predicted_ridge)) <= 1.0;
  std::printf("%s  tokens/s at batch 1: predicted %.1f, measured %.1f (within 25%%)\n", ok_one ? "pass" : "FAIL", predicted_one, measured_one);
  std::printf("%s  ridge batch: predicted %.1f, measured %.1f (within a factor of 2)\n", ok_ridge ? "pass" : "FAIL", predicted_ridge, measured_ridge);
  return ok_one && ok_ridge ? 0 : 1;
}
