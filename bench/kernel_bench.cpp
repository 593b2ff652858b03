// The reference kernels' own figures, for `make bench` to set beside STREAM and OpenBLAS: the bandwidth
// probe's triad (STREAM's loop and byte count, wall clock, best and median as stream_ref reports them),
// its read-only sweep, the decode loop at batch 1 as bytes streamed per second, and the peak probes.
// Prints "key value" lines in base units (bytes/s, FLOP/s).
//
// Usage: kernel_bench [TOTAL_BYTES] [triad]   (the probe's footprint; default: the probe's own default).
// With "triad" only the triad passes run, so that a script can alternate them with stream_ref: memory
// bandwidth on a shared virtual machine drifts by ±20% over tens of seconds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "plugins/decode/decode_host.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/formats/storage.hpp"
#include "plugins/kernels/bandwidth_probe.hpp"
#include "plugins/kernels/thread_team.hpp"

using namespace infracalc;

int main(int argc, char** argv) {
  const Bytes footprint = argc > 1 ? from_base<Bytes>(std::atof(argv[1])) : kernels::default_probe_footprint();
  std::vector<double> triads;
  {
    kernels::ThreadTeam team;
    kernels::BandwidthProbe bw(team, footprint);
    (void)bw.triad();
    for (int i = 0; i < 10; ++i) triads.push_back(bw.triad().wall.value());
    std::printf("threads %d\nbytes %.6g\n", team.size(), bw.footprint().value());
  }
  std::sort(triads.begin(), triads.end());
  std::printf("probe_triad_best %.6g\nprobe_triad_median %.6g\n", triads.back(), triads[triads.size() / 2]);
  if (argc > 2 && std::string_view(argv[2]) == "triad") return 0;

  // The full host measurement, as `infracalc verify decode` runs it.
  const decode::HostMeasurement& m = decode::measure_host(KernelOptions{});
  const StorageFormat& fp32 = *find_storage_format("fp32");
  const decode::Workload w = decode::workload_from_arch(decode::synthetic_arch(m.shape), fp32, fp32);
  const Bytes per_step = decode::decode_step(w, 1, from_base<Tokens>(m.context)).cost().bytes;
  const decode::BatchTiming& one = m.timings.front();
  std::printf("probe_read %.6g\nprobe_read_wall %.6g\n", m.bandwidth.read.value(), m.bandwidth.read_wall.value());
  std::printf("decode_b1_bytes_per_step %.6g\ndecode_b1 %.6g\ndecode_b1_wall %.6g\n", per_step.value(),
              per_step.value() / one.step.value(), per_step.value() / one.step_wall.value());
  std::printf("fma %.6g\nfma_wall %.6g\ngemm %.6g\n", m.peak.fma.value(), m.peak.fma_wall.value(), m.gemm.value());
  if (m.peak.sgemm) std::printf("sgemm %.6g\n", m.peak.sgemm->value());
  std::printf("isa %s\n", m.host.vector_isa.c_str());
  return 0;
}
