// A STREAM-style memory-bandwidth probe over all cores (McCalpin, "Memory Bandwidth and Machine Balance
// in Current High Performance Computers", 1995): the triad a = b + s·c and a read-only sweep with the
// widest vector loads, over arrays far larger than the last-level cache. Passes can be timed one at a
// time, so a caller can interleave them with other work that should see the same machine load.
#pragma once

#include <memory>

#include "plugins/kernels/big_array.hpp"
#include "plugins/kernels/thread_team.hpp"
#include "plugins/kernels/timer.hpp"
#include "units/system.hpp"

namespace infracalc::kernels {

/// Three arrays, first-touched by the team members that stream them.
class BandwidthProbe {
 public:
  /// Allocates `footprint` bytes over three arrays of doubles.
  BandwidthProbe(ThreadTeam& team, Bytes footprint);
  /// Bytes of the three arrays.
  [[nodiscard]] Bytes footprint() const;
  /// One triad pass, counting STREAM's 3 × 8 bytes per element (two reads and one write; the
  /// write-allocate read is not counted, as in STREAM).
  [[nodiscard]] TimedRate<BytesPerSecond> triad();
  /// One read-only pass over all three arrays, four streams per thread (the access pattern of a decode
  /// step's weight reads).
  [[nodiscard]] TimedRate<BytesPerSecond> read();

 private:
  ThreadTeam& team_;
  std::size_t n_ = 0;
  BigArray<double> a_, b_, c_;
};

/// How probe_bandwidth runs.
struct BandwidthOptions {
  /// Total bytes of the three arrays (STREAM asks for each to exceed the last-level cache several times).
  Bytes footprint;
  /// Timed passes of each kind (after one untimed warm-up pass).
  int repeats = 5;
  /// Progress lines on stderr.
  bool progress = false;
};

/// What probe_bandwidth measured (medians of the passes, timed by the busiest thread's CPU time).
struct BandwidthResult {
  /// Triad rate.
  BytesPerSecond triad;
  /// Read-only rate.
  BytesPerSecond read;
  /// Read-only rate over wall time (lower than `read` when other processes share the cores).
  BytesPerSecond read_wall;
  /// Bytes of the three arrays.
  Bytes footprint;
  /// Threads used.
  int threads = 1;
  /// Timed passes behind each median.
  int repeats = 0;
};

/// Warms up, then times `repeats` passes of each kind and takes the medians.
[[nodiscard]] BandwidthResult probe_bandwidth(ThreadTeam& team, const BandwidthOptions& opt);

/// The default footprint: four times the last-level cache, between 256 MiB and 512 MiB, capped at a quarter of memory.
[[nodiscard]] Bytes default_probe_footprint();

}  // namespace infracalc::kernels
