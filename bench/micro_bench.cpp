// In-process benchmarks (Google Benchmark): the hot paths behind a single query, a batch record and the
// format kernels. `make bench` runs them with repetitions and reports medians against targets.
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "plan/batch_record.hpp"
#include "plan/output.hpp"
#include "host/context.hpp"
#include "plugins/formats/block.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/registry.hpp"
#include "units/expr.hpp"
#include "units/format.hpp"
#include "units/parse.hpp"

using namespace infracalc;

namespace {

void BM_parse_quantity(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(parse_quantity("3.35 TB/s"));
}
BENCHMARK(BM_parse_quantity);

void BM_format_human(benchmark::State& state) {
  const Quantity q{2621440000.0, dims::information, false};
  for (auto _ : state) benchmark::DoNotOptimize(format_human(q));
}
BENCHMARK(BM_format_human);

void BM_calc_expression(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(evaluate("140 GB / (3.35 TB/s)"));
}
BENCHMARK(BM_calc_expression);

void BM_kv_size_run(benchmark::State& state) {
  const Plugin& p = *find_plugin("kv");
  const Calculator& c = *p.find("size");
  const RawInputs raw = {{"layers", "80"}, {"kv_heads", "8"}, {"head_dim", "128"}, {"tokens", "8000"}};
  for (auto _ : state) benchmark::DoNotOptimize(run_calculator(p, c, raw));
}
BENCHMARK(BM_kv_size_run);

void BM_kv_size_json(benchmark::State& state) {
  const Plugin& p = *find_plugin("kv");
  const Result r = run_calculator(p, *p.find("size"), {{"layers", "80"}, {"kv_heads", "8"}, {"head_dim", "128"}, {"tokens", "8000"}});
  for (auto _ : state) benchmark::DoNotOptimize(writers::result_json(r));
}
BENCHMARK(BM_kv_size_json);

void BM_batch_record(benchmark::State& state) {
  const std::string rec =
      R"({"plugin":"kv","calculator":"size","inputs":{"layers":80,"kv_heads":8,"head_dim":128,"tokens":8000}})";
  std::string out;
  for (auto _ : state) {
    out.clear();
    benchmark::DoNotOptimize(process_batch_record(rec, 1, {}, out));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_batch_record);

// Format encoders: bytes of FP32 input per second.
void encode(benchmark::State& state, const char* format) {
  std::vector<float> v(1 << 20);
  std::mt19937 rng(42);
  std::normal_distribution<float> n(0.0f, 1.0f);
  for (auto& x : v) x = n(rng);
  const formats::TensorLayout layout = formats::layout_of(*find_storage_format(format));
  for (auto _ : state) benchmark::DoNotOptimize(formats::quantize(v, layout));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(v.size() * sizeof(float)));
}
void BM_encode_mxfp4(benchmark::State& s) { encode(s, "mxfp4"); }
void BM_encode_nvfp4(benchmark::State& s) { encode(s, "nvfp4"); }
void BM_encode_mxfp8(benchmark::State& s) { encode(s, "mxfp8"); }
void BM_encode_fp8(benchmark::State& s) { encode(s, "fp8"); }
BENCHMARK(BM_encode_mxfp4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_encode_nvfp4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_encode_mxfp8)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_encode_fp8)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
