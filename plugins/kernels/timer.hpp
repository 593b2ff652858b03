// Wall-clock timing for reference kernels: a steady stopwatch and the median of repeated runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

#include "plugins/kernels/thread_team.hpp"
#include "units/system.hpp"

namespace infracalc::kernels {

/// A stopwatch on the steady clock; starts when constructed.
class Stopwatch {
 public:
  /// Starts timing now.
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  /// Restarts timing now.
  void restart() { start_ = std::chrono::steady_clock::now(); }
  /// Time since construction or the last restart.
  [[nodiscard]] Seconds elapsed() const {
    const std::chrono::duration<double> d = std::chrono::steady_clock::now() - start_;
    return from_base<Seconds>(d.count());
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

/// A rate measured two ways: over wall time, and over the busiest team member's CPU time.
template <class Q>
struct TimedRate {
  /// Over wall time: what an observer sees, including time other processes held the cores.
  Q wall;
  /// Over CPU time: what the hardware does while the work actually runs.
  Q cpu;
};

/// Times work done by a thread team two ways: wall time, and the busiest member's CPU time, which stays
/// close to the uncontended wall time when other processes take turns on the same cores.
class TeamStopwatch {
 public:
  /// Starts both clocks now; call from the thread that runs the team.
  explicit TeamStopwatch(const ThreadTeam& team) : team_(team), start_cpu_(team.cpu_seconds()) {}
  /// Wall time since construction.
  [[nodiscard]] Seconds wall() const { return wall_.elapsed(); }
  /// The largest CPU time any member used since construction.
  [[nodiscard]] Seconds busy() const {
    const auto now = team_.cpu_seconds();
    double m = 0;
    for (std::size_t i = 0; i < now.size() && i < start_cpu_.size(); ++i) m = std::max(m, now[i] - start_cpu_[i]);
    return from_base<Seconds>(m);
  }

 private:
  const ThreadTeam& team_;
  Stopwatch wall_;
  std::vector<double> start_cpu_;
};

/// The median of repeated measurements (the mean of the middle two for an even count); zero when empty.
template <class Q>
[[nodiscard]] Q median(std::vector<Q> v) {
  if (v.empty()) return Q::from_value(0.0);
  std::sort(v.begin(), v.end(), [](const Q& a, const Q& b) { return a.value() < b.value(); });
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : Q::from_value(0.5 * (v[n / 2 - 1].value() + v[n / 2].value()));
}

}  // namespace infracalc::kernels
