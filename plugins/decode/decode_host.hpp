// This machine's roof, measured: the bandwidth and peak probes, and the synthetic decode loop timed at
// a range of batch sizes. Measured once per process; `verify decode` compares it with the formulas and
// `verify decode --calibrate` writes it to a data file usable as `--gpu this-host`.
#pragma once

#include <string>
#include <vector>

#include "plugins/decode/kernel_decode_loop.hpp"
#include "plugins/kernels/bandwidth_probe.hpp"
#include "plugins/kernels/host_info.hpp"
#include "plugins/kernels/peak_probe.hpp"
#include "host/plugin.hpp"

namespace infracalc::decode {

/// One batch size of the decode loop, timed.
struct BatchTiming {
  /// Sequences per step.
  int batch = 1;
  /// Median time of one step, by the busiest thread's CPU time (what the hardware takes when the cores are
  /// ours; other processes' time slices excluded).
  Seconds step;
  /// Median wall time of one step.
  Seconds step_wall;
  /// Steps behind the median.
  int steps = 0;
};

/// Everything the full measurement produced.
struct HostMeasurement {
  /// The machine.
  kernels::HostInfo host;
  /// Memory bandwidth (medians over the rounds).
  kernels::BandwidthResult bandwidth;
  /// Peak rate (medians over the rounds): the FMA loop's hardware ceiling, and OpenBLAS SGEMM if built in.
  kernels::PeakResult peak;
  /// Matrix-product rate of the decode loop's own kernel on cache-resident operands (median, CPU time).
  FlopsPerSecond gemm;
  /// The same over wall time.
  FlopsPerSecond gemm_wall;
  /// Shape of that product, "rows x cols x batch".
  std::string gemm_shape;
  /// The synthetic model that was decoded.
  SyntheticShape shape;
  /// Context each sequence held when its steps were timed.
  int context = 0;
  /// Decode steps timed per batch size.
  std::vector<BatchTiming> timings;
  /// Date of the measurement, YYYY-MM-DD (UTC).
  std::string date;
};

/// The synthetic model sized so its weights read per step fill the bandwidth probe's footprint (four times the
/// last-level cache, between 256 MiB and 512 MiB): they stream from memory, as a real model's do.
[[nodiscard]] SyntheticShape full_size_shape();

/// Runs the probes and the timed decode loop once per process (several interleaved rounds, medians);
/// later calls return the same figures. Progress goes to stderr when `opt.progress` is set.
[[nodiscard]] const HostMeasurement& measure_host(const KernelOptions& opt);
/// True once measure_host has run in this process.
[[nodiscard]] bool host_measured();

/// The bandwidth the predictions use: the read-only sweep's, the access pattern of a decode step.
[[nodiscard]] BytesPerSecond decode_bandwidth(const HostMeasurement& m);
/// The peak the predictions use: the matrix-product rate, since a decode step's arithmetic is matrix
/// products (the FMA loop's figure is the ceiling above it).
[[nodiscard]] FlopsPerSecond decode_peak(const HostMeasurement& m);

/// The accelerator data file for this host: id this-host, measured bandwidth and FP32 peak, dated.
[[nodiscard]] std::string calibration_toml(const HostMeasurement& m, const std::string& hostname);

}  // namespace infracalc::decode
