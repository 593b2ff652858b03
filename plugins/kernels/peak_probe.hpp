// Peak arithmetic rate of this CPU, measured two ways: a register-resident FMA loop on every core (the
// ceiling the roofline uses) and, when OpenBLAS is built in, a large SGEMM (what a tuned matrix product
// reaches).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "plugins/kernels/host_info.hpp"
#include "plugins/kernels/thread_team.hpp"
#include "plugins/kernels/timer.hpp"
#include "units/system.hpp"

namespace infracalc::kernels {

/// The FMA loop on every member of a team, with an iteration count calibrated once so that each run
/// lasts about `run_time`; runs can be timed one at a time and interleaved with other work.
class FmaProbe {
 public:
  /// Calibrates the iteration count.
  FmaProbe(ThreadTeam& team, Seconds run_time);
  /// One timed run: operations of all members over the time until the last one finished.
  [[nodiscard]] TimedRate<FlopsPerSecond> run();
  /// The vector unit used.
  [[nodiscard]] Isa isa() const { return isa_; }

 private:
  ThreadTeam& team_;
  Isa isa_;
  std::uint64_t iterations_ = 1 << 16;
};

/// How probe_peak runs.
struct PeakOptions {
  /// Timed runs of each kind; the figure is the median.
  int repeats = 5;
  /// Approximate duration of one FMA run.
  Seconds run_time = from_base<Seconds>(0.05);
  /// Order of the square SGEMM (0 skips it).
  int sgemm_size = 2048;
  /// Progress lines on stderr.
  bool progress = false;
};

/// What the probe measured.
struct PeakResult {
  /// FP32 FMA rate over all threads (2 operations per lane per FMA), timed by the busiest thread's CPU time.
  FlopsPerSecond fma;
  /// The same over wall time.
  FlopsPerSecond fma_wall;
  /// The vector unit used.
  Isa isa = Isa::scalar;
  /// SGEMM rate (2·n³ operations per call), when OpenBLAS is available.
  std::optional<FlopsPerSecond> sgemm;
  /// Why there is no SGEMM figure, or which library produced it.
  std::string sgemm_note;
  /// Threads used by the FMA loop.
  int threads = 1;
  /// Timed runs behind each median.
  int repeats = 0;
};

/// The median rate of `repeats` square SGEMMs of order n through OpenBLAS, or nothing (with the reason in
/// `note`) when this build has no OpenBLAS.
[[nodiscard]] std::optional<FlopsPerSecond> probe_sgemm(int n, int repeats, bool progress, std::string& note);

/// Runs the probes.
[[nodiscard]] PeakResult probe_peak(ThreadTeam& team, const PeakOptions& opt);

/// True when this build found OpenBLAS (it is opened at run time, only when the SGEMM probe runs).
[[nodiscard]] bool have_openblas();

}  // namespace infracalc::kernels
