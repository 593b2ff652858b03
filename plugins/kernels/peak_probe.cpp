#include "plugins/kernels/peak_probe.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "plugins/kernels/rng.hpp"
#include "plugins/kernels/simd.hpp"
#include "plugins/kernels/timer.hpp"

#if defined(INFRACALC_OPENBLAS_LIBRARY)
#include <dlfcn.h>
#endif

namespace infracalc::kernels {

namespace {

volatile float g_flop_sink = 0;

struct FmaRun {
  Flops ops;
  Seconds wall, busy;
};

// Runs the FMA loop on every member for `iterations` rounds; returns the operations and the times.
FmaRun fma_run(ThreadTeam& team, Isa isa, std::uint64_t iterations) {
  std::vector<double> ops(static_cast<std::size_t>(team.size()), 0.0);
  std::vector<float> sinks(static_cast<std::size_t>(team.size()), 0.0f);
  TeamStopwatch t(team);
  team.run([&](int m, int) { ops[static_cast<std::size_t>(m)] = fma_loop(isa, iterations, &sinks[static_cast<std::size_t>(m)]).value(); });
  const Seconds wall = t.wall(), busy = t.busy();
  double total = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    total += ops[i];
    g_flop_sink = g_flop_sink + sinks[i];
  }
  return {from_base<Flops>(total), wall, busy};
}

}  // namespace

bool have_openblas() {
#if defined(INFRACALC_OPENBLAS_LIBRARY)
  return true;
#else
  return false;
#endif
}

FmaProbe::FmaProbe(ThreadTeam& team, Seconds run_time) : team_(team), isa_(best_isa()) {
  for (;;) {
    const FmaRun r = fma_run(team_, isa_, iterations_);
    if (r.busy.value() >= run_time.value() / 4 || iterations_ > (1ULL << 40)) {
      const double scale = run_time.value() / std::max(r.busy.value(), 1e-9);
      iterations_ = static_cast<std::uint64_t>(static_cast<double>(iterations_) * std::max(1.0, scale));
      return;
    }
    iterations_ *= 4;
  }
}

TimedRate<FlopsPerSecond> FmaProbe::run() {
  const FmaRun r = fma_run(team_, isa_, iterations_);
  return {r.ops / r.wall, r.ops / r.busy};
}

#if defined(INFRACALC_OPENBLAS_LIBRARY)
namespace {
// cblas_sgemm and the CBLAS enumerators it takes (cblas.h: CblasRowMajor = 101, CblasNoTrans = 111).
using SgemmFn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
constexpr int kRowMajor = 101, kNoTrans = 111;

// OpenBLAS is opened only when the probe runs: linking it would start its thread pool in every
// invocation of the calculator, and a machine without it could not start the binary at all.
SgemmFn load_sgemm(std::string& note) {
  // OpenBLAS's dynamic-architecture build picks its kernels from the CPU model; a virtual machine that
  // reports a generic model ("Intel Xeon Processor") gets the SSE3 "Prescott" kernels, a quarter of the
  // AVX-512 rate. Name the core from the vector unit cpuid reports, unless the user already chose one.
  if (const Isa isa = best_isa(); isa != Isa::scalar) setenv("OPENBLAS_CORETYPE", isa == Isa::avx512 ? "SkylakeX" : "Haswell", 0);
  void* lib = dlopen(INFRACALC_OPENBLAS_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) lib = dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    note = "OpenBLAS was found at build time but cannot be loaded now (" + std::string(INFRACALC_OPENBLAS_LIBRARY) + ")";
    return nullptr;
  }
  void* sym = dlsym(lib, "cblas_sgemm");
  if (sym == nullptr) {
    note = "the OpenBLAS library has no cblas_sgemm";
    return nullptr;
  }
  SgemmFn fn = nullptr;
  static_assert(sizeof fn == sizeof sym);
  std::memcpy(&fn, &sym, sizeof fn);
  return fn;
}
}  // namespace
#endif

std::optional<FlopsPerSecond> probe_sgemm(int n, int repeats, bool progress, std::string& note) {
#if defined(INFRACALC_OPENBLAS_LIBRARY)
  const SgemmFn sgemm = load_sgemm(note);
  if (sgemm == nullptr) return std::nullopt;
  const auto nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  std::vector<float> a(nn), b(nn), c(nn, 0.0f);
  fill_uniform(a, 1, -1.0f, 1.0f);
  fill_uniform(b, 2, -1.0f, 1.0f);
  const double ops = 2.0 * n * static_cast<double>(n) * n;
  auto run = [&] { sgemm(kRowMajor, kNoTrans, kNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n); };
  run();
  std::vector<FlopsPerSecond> rates;
  for (int r = 0; r < repeats; ++r) {
    Stopwatch t;
    run();
    rates.push_back(from_base<Flops>(ops) / t.elapsed());
    if (progress) std::fprintf(stderr, "  peak probe: SGEMM %d^3 run %d/%d: %.1f GFLOP/s\n", n, r + 1, repeats, rates.back().value() / 1e9);
  }
  g_flop_sink = c[nn / 2];
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  note = "OpenBLAS cblas_sgemm, " + std::to_string(n) + "x" + std::to_string(n) + (core != nullptr ? std::string(", ") + core + " kernels" : "");
  return median(rates);
#else
  (void)n;
  (void)repeats;
  (void)progress;
  note = "built without OpenBLAS (install libopenblas-dev and reconfigure)";
  return std::nullopt;
#endif
}

PeakResult probe_peak(ThreadTeam& team, const PeakOptions& opt) {
  PeakResult out;
  FmaProbe fma(team, opt.run_time);
  out.isa = fma.isa();
  out.threads = team.size();
  out.repeats = opt.repeats;
  std::vector<FlopsPerSecond> fmas, walls;
  for (int r = 0; r < opt.repeats; ++r) {
    const auto f = fma.run();
    fmas.push_back(f.cpu);
    walls.push_back(f.wall);
    if (opt.progress) std::fprintf(stderr, "  peak probe: FMA run %d/%d: %.1f GFLOP/s\n", r + 1, opt.repeats, fmas.back().value() / 1e9);
  }
  out.fma = median(fmas);
  out.fma_wall = median(walls);
  if (opt.sgemm_size > 0) out.sgemm = probe_sgemm(opt.sgemm_size, opt.repeats, opt.progress, out.sgemm_note);
  else out.sgemm_note = "SGEMM skipped";
  return out;
}

}  // namespace infracalc::kernels
