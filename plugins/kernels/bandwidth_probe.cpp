#include "plugins/kernels/bandwidth_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "plugins/kernels/host_info.hpp"
#include "plugins/kernels/simd.hpp"
#include "plugins/kernels/timer.hpp"

namespace infracalc::kernels {

namespace {
// Where the read sweep's sum goes, so the compiler must perform the loads.
volatile double g_sink = 0;
}  // namespace

Bytes default_probe_footprint() {
  const HostInfo& h = host_info();
  // Capped at 512 MiB: a virtual machine may report more L3 than its cores reach (an AMD EPYC guest here reports
  // 508 MiB), and four times that would time 2 GB buffers for nothing: at 512 MiB and at 1 GiB the read sweep
  // measured the same spread here (52-79 GB/s), so the smaller buffer is not flattered by a cache.
  double bytes = std::clamp(4.0 * h.last_level_cache.value(), 256.0 * 1024 * 1024, 512.0 * 1024 * 1024);
  if (h.memory.value() > 0) bytes = std::min(bytes, 0.25 * h.memory.value());
  return from_base<Bytes>(bytes);
}

BandwidthProbe::BandwidthProbe(ThreadTeam& team, Bytes footprint)
    : team_(team), n_(std::max<std::size_t>(4096, static_cast<std::size_t>(footprint.value() / (3.0 * sizeof(double))))) {
  a_ = big_array<double>(n_);
  b_ = big_array<double>(n_);
  c_ = big_array<double>(n_);
  // First touch by the member that streams each part later, so pages sit near it on NUMA machines.
  team_.run([&](int m, int ms) {
    const auto [lo, hi] = share(n_, m, ms, 64);
    for (std::size_t i = lo; i < hi; ++i) {
      a_[i] = 1.0;
      b_[i] = 2.0;
      c_[i] = 0.5;
    }
  });
}

Bytes BandwidthProbe::footprint() const { return from_base<Bytes>(3.0 * sizeof(double) * static_cast<double>(n_)); }

TimedRate<BytesPerSecond> BandwidthProbe::triad() {
  const double scalar = 3.0;
  TeamStopwatch t(team_);
  team_.run([&](int m, int ms) {
    const auto [lo, hi] = share(n_, m, ms, 64);
    double* __restrict pa = a_.get();
    const double* __restrict pb = b_.get();
    const double* __restrict pc = c_.get();
    for (std::size_t i = lo; i < hi; ++i) pa[i] = pb[i] + scalar * pc[i];
  });
  return {footprint() / t.wall(), footprint() / t.busy()};
}

TimedRate<BytesPerSecond> BandwidthProbe::read() {
  const Isa isa = best_isa();
  std::vector<double> sums(static_cast<std::size_t>(team_.size()), 0.0);
  TeamStopwatch t(team_);
  team_.run([&](int m, int ms) {
    const auto [lo, hi] = share(n_, m, ms, 64);
    sums[static_cast<std::size_t>(m)] =
        stream_sum(isa, a_.get() + lo, hi - lo) + stream_sum(isa, b_.get() + lo, hi - lo) + stream_sum(isa, c_.get() + lo, hi - lo);
  });
  const TimedRate<BytesPerSecond> rate{footprint() / t.wall(), footprint() / t.busy()};
  g_sink = sums[0];
  return rate;
}

BandwidthResult probe_bandwidth(ThreadTeam& team, const BandwidthOptions& opt) {
  BandwidthProbe p(team, opt.footprint);
  (void)p.triad();  // warm-up: page faults and frequency ramp
  (void)p.read();
  std::vector<BytesPerSecond> triads, reads, walls;
  for (int r = 0; r < opt.repeats; ++r) {
    triads.push_back(p.triad().cpu);
    const auto rd = p.read();
    reads.push_back(rd.cpu);
    walls.push_back(rd.wall);
    if (opt.progress)
      std::fprintf(stderr, "  bandwidth probe: pass %d/%d: triad %.2f GB/s, read %.2f GB/s\n", r + 1, opt.repeats,
                   triads.back().value() / 1e9, reads.back().value() / 1e9);
  }
  BandwidthResult out;
  out.triad = median(triads);
  out.read = median(reads);
  out.read_wall = median(walls);
  out.footprint = p.footprint();
  out.threads = team.size();
  out.repeats = opt.repeats;
  return out;
}

}  // namespace infracalc::kernels
