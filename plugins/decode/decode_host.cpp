#include "plugins/decode/decode_host.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <memory>
#include <optional>

#include "plugins/decode/decode_math.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kernels/gemm_probe.hpp"
#include "plugins/kernels/timer.hpp"

namespace infracalc::decode {

namespace {

std::optional<HostMeasurement>& cache() {
  static std::optional<HostMeasurement> m;
  return m;
}

std::string today_utc() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04d}-{:02d}-{:02d}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

double layer_floats(const SyntheticShape& s) {
  const double qkv = static_cast<double>(s.heads + 2 * s.kv_heads) * s.head_dim * s.hidden;
  const double o = static_cast<double>(s.heads) * s.head_dim * s.hidden;
  return qkv + o + 3.0 * s.ffn * s.hidden;
}

// Median step times (CPU and wall) of `steps` steps. No untimed warm-up step: the weights were already read by
// the steps before (they stream from memory either way, being four times the last-level cache), and the prefill
// has just touched this batch's KV pages, so the first step is already a steady one.
BatchTiming time_steps(kernels::ThreadTeam& team, SyntheticDecoder& dec, int batch, int context, int steps) {
  dec.prefill_cache(batch, context);
  std::vector<Seconds> cpu, wall;
  for (int i = 0; i < steps; ++i) {
    kernels::TeamStopwatch t(team);
    (void)dec.step(batch);
    cpu.push_back(t.busy());
    wall.push_back(t.wall());
  }
  return {batch, kernels::median(cpu), kernels::median(wall), steps};
}

}  // namespace

SyntheticShape full_size_shape() {
  SyntheticShape s;
  s.hidden = 2048;
  s.heads = 16;
  s.kv_heads = 4;
  s.head_dim = 128;
  s.ffn = 5632;
  s.vocab = 8192;  // a small head, so the bytes per step are mostly layers, as in a real model
  const double target = kernels::default_probe_footprint().value();
  const double head = 4.0 * s.vocab * s.hidden;
  const double per_layer = 4.0 * layer_floats(s);
  s.layers = static_cast<int>(std::clamp(std::ceil((target - head) / per_layer), 2.0, 32.0));
  return s;
}

bool host_measured() { return cache().has_value(); }

BytesPerSecond decode_bandwidth(const HostMeasurement& m) { return m.bandwidth.read; }

FlopsPerSecond decode_peak(const HostMeasurement& m) { return m.gemm; }

// Under load from other work, a probe and the loop it should predict must see the same machine: each
// probe pass is timed right next to the decode step it explains, many times, and medians are taken.
const HostMeasurement& measure_host(const KernelOptions& opt) {
  if (cache()) return *cache();
  HostMeasurement m;
  m.host = kernels::host_info();
  m.date = today_utc();
  m.shape = full_size_shape();
  m.context = 128;
  kernels::ThreadTeam team;
  auto say = [&](const std::string& s) {
    if (opt.progress) std::fprintf(stderr, "  %s\n", s.c_str());
  };
  say(fmt::format("host: {}, {} threads, {} vector unit, last-level cache {:.0f} MiB", m.host.cpu_name, team.size(), m.host.vector_isa,
                  m.host.last_level_cache.value() / (1024.0 * 1024.0)));
  kernels::BandwidthProbe bw(team, kernels::default_probe_footprint());
  kernels::FmaProbe fma(team, from_base<Seconds>(0.15));
  // A product of 1536 x 2048 weights (12.6 MB, cache-resident) with 256 sequences, repeated for about 0.15 s.
  kernels::GemmProbe gemm(team, 1536, 2048, 256);
  m.gemm_shape = "1536 x 2048 weights, 256 sequences";
  const kernels::TimedRate<FlopsPerSecond> gemm_first = gemm.run(1);
  const int gemm_reps = std::max(1, static_cast<int>(std::ceil(0.15 * gemm_first.cpu.value() / (2.0 * 1536 * 2048 * 256))));
  (void)bw.triad();
  (void)bw.read();
  // A first estimate sizes the batch sweep: well past the predicted ridge batch.
  const Workload w = workload_from_arch(synthetic_arch(m.shape), *find_storage_format("fp32"), *find_storage_format("fp32"));
  const Roof first{bw.read().cpu, gemm.run(gemm_reps).cpu};
  const double ridge = ridge_batch(w, first, from_base<Tokens>(m.context)).value_or(64.0);
  int max_batch = 16;
  while (max_batch < 4 * ridge && max_batch < 512) max_batch *= 2;
  const double kv_per_seq = 2.0 * 4.0 * m.shape.layers * m.shape.kv_heads * m.shape.head_dim * (m.context + 16.0);
  const double weights = 4.0 * (layer_floats(m.shape) * m.shape.layers + 2.0 * m.shape.vocab * m.shape.hidden);
  while (max_batch > 16 && m.host.memory.value() > 0 && weights + bw.footprint().value() + max_batch * kv_per_seq > m.host.memory.value() / 3)
    max_batch /= 2;
  say(fmt::format("synthetic model: {} layers, {:.2f} GB of FP32 weights; batches 1 to {} at {} tokens of context", m.shape.layers,
                  weights / 1e9, max_batch, m.context));
  SyntheticDecoder dec(m.shape, max_batch, m.context + 16, team);

  // Memory side: read passes interleaved with batch-1 steps.
  const int memory_rounds = 5;
  std::vector<BytesPerSecond> triads, reads, read_walls;
  std::vector<Seconds> one, one_wall;
  dec.prefill_cache(1, m.context);
  (void)dec.step(1);
  for (int r = 0; r < memory_rounds; ++r) {
    triads.push_back(bw.triad().cpu);
    const auto rd = bw.read();
    reads.push_back(rd.cpu);
    read_walls.push_back(rd.wall);
    kernels::TeamStopwatch t(team);
    (void)dec.step(1);
    one.push_back(t.busy());
    one_wall.push_back(t.wall());
    say(fmt::format("memory round {}/{}: triad {:.2f} GB/s, read {:.2f} GB/s, decode batch 1 {:.1f} ms (CPU time; wall {:.2f} GB/s, {:.1f} ms)",
                    r + 1, memory_rounds, triads.back().value() / 1e9, reads.back().value() / 1e9, one.back().value() * 1e3,
                    rd.wall.value() / 1e9, one_wall.back().value() * 1e3));
  }
  // Compute side: FMA and matrix-product runs interleaved with steps at the largest batch.
  const int compute_rounds = 3;
  std::vector<FlopsPerSecond> fmas, fma_walls, gemms, gemm_walls;
  std::vector<Seconds> big, big_wall;
  dec.prefill_cache(max_batch, m.context);
  for (int r = 0; r < compute_rounds; ++r) {
    const auto f = fma.run();
    fmas.push_back(f.cpu);
    fma_walls.push_back(f.wall);
    const auto gm = gemm.run(gemm_reps);
    gemms.push_back(gm.cpu);
    gemm_walls.push_back(gm.wall);
    kernels::TeamStopwatch t(team);
    (void)dec.step(max_batch);
    big.push_back(t.busy());
    big_wall.push_back(t.wall());
    say(fmt::format("compute round {}/{}: FMA {:.1f} GFLOP/s, matrix product {:.1f} GFLOP/s, decode batch {} {:.1f} ms (CPU time; "
                    "wall {:.1f} GFLOP/s, {:.1f} ms)",
                    r + 1, compute_rounds, fmas.back().value() / 1e9, gm.cpu.value() / 1e9, max_batch, big.back().value() * 1e3,
                    gm.wall.value() / 1e9, big_wall.back().value() * 1e3));
  }
  m.bandwidth.triad = kernels::median(triads);
  m.bandwidth.read = kernels::median(reads);
  m.bandwidth.read_wall = kernels::median(read_walls);
  m.bandwidth.footprint = bw.footprint();
  m.bandwidth.threads = team.size();
  m.bandwidth.repeats = memory_rounds;
  m.peak.fma = kernels::median(fmas);
  m.peak.fma_wall = kernels::median(fma_walls);
  m.gemm = kernels::median(gemms);
  m.gemm_wall = kernels::median(gemm_walls);
  m.peak.isa = fma.isa();
  m.peak.threads = team.size();
  m.peak.repeats = compute_rounds;
  m.timings.push_back({1, kernels::median(one), kernels::median(one_wall), memory_rounds});
  // The curve in between, for the table and the calibration file.
  for (int b = 2; b < max_batch; b *= 2) {
    const BatchTiming t = time_steps(team, dec, b, m.context, 2);
    m.timings.push_back(t);
    say(fmt::format("decode batch {}: {:.1f} ms per step, {:.1f} tok/s (CPU time; wall {:.1f} ms)", b, t.step.value() * 1e3,
                    b / t.step.value(), t.step_wall.value() * 1e3));
  }
  m.timings.push_back({max_batch, kernels::median(big), kernels::median(big_wall), compute_rounds});
  m.peak.sgemm = kernels::probe_sgemm(2048, 3, opt.progress, m.peak.sgemm_note);
  cache() = std::move(m);
  return *cache();
}

std::string calibration_toml(const HostMeasurement& m, const std::string& hostname) {
  const auto& h = m.host;
  auto num = [](double v) { return fmt::format("{:.4g}", v); };
  const auto& t1 = m.timings.front();
  const StorageFormat& fp32 = *find_storage_format("fp32");
  const Bytes decoder_bytes =
      decode_step(workload_from_arch(synthetic_arch(m.shape), fp32, fp32), 1, from_base<Tokens>(m.context)).cost().bytes;
  std::string sgemm = m.peak.sgemm ? fmt::format("; {}: {} GFLOP/s (wall clock)", m.peak.sgemm_note, num(m.peak.sgemm->value() / 1e9))
                                   : "; " + m.peak.sgemm_note;
  std::string out;
  out += "# Written by `infracalc verify decode --calibrate`: this machine's measured figures, for --gpu this-host.\n";
  out += "# Times are the busiest thread's CPU time, so other processes' time slices are left out. Re-run to refresh.\n";
  out += "id = \"this-host\"\n";
  out += fmt::format("name = \"This host: {} ({} threads), measured\"\n", h.cpu_name, m.bandwidth.threads);
  out += "kind = \"accelerator\"\n";
  out += fmt::format("vendor = \"{}\"\n", h.vendor);
  out += "memory_type = \"host DRAM\"\n";
  out += fmt::format("memory_capacity = {{ value = \"{} GB\", note = \"physical memory the OS reports\" }}\n", num(h.memory.value() / 1e9));
  out += fmt::format(
      "memory_bandwidth = {{ value = \"{} GB/s\", note = \"read-only sweep over {} GB, four streams per thread on {} threads, "
      "median of {} passes; STREAM-style triad {} GB/s; a synthetic {}-layer FP32 decoder reads at {} GB/s at batch 1\" }}\n",
      num(decode_bandwidth(m).value() / 1e9), num(m.bandwidth.footprint.value() / 1e9), m.bandwidth.threads, m.bandwidth.repeats,
      num(m.bandwidth.triad.value() / 1e9), m.shape.layers, num(decoder_bytes.value() / t1.step.value() / 1e9));
  out += "\n[meta]\n";
  out += fmt::format("as_of = {}\n", m.date);
  out += fmt::format("sources = [\"infracalc verify decode --calibrate on {} ({}), {}\"]\n", hostname, h.cpu_name, m.date);
  out += "basis = \"measured\"\n";
  out += "\n[peak]\n";
  out += fmt::format(
      "fp32_dense = {{ value = \"{} GFLOP/s\", note = \"{} FMA loop on {} threads, median of {} runs (the ceiling); the decode loop's "
      "tiled matrix product reaches {} GFLOP/s on {}{}\" }}\n",
      num(m.peak.fma.value() / 1e9), h.vector_isa, m.peak.threads, m.peak.repeats, num(m.gemm.value() / 1e9), m.gemm_shape, sgemm);
  return out;
}

}  // namespace infracalc::decode
