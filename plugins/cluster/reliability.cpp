#include "plugins/cluster/reliability.hpp"

#include <cmath>
#include <random>

namespace infracalc::cluster {

Seconds fleet_mtbf(Seconds per_device, double devices) { return per_device / devices; }

Seconds young_interval(Seconds checkpoint, Seconds mtbf) { return from_base<Seconds>(std::sqrt(2.0 * checkpoint.value() * mtbf.value())); }

Seconds daly_interval(Seconds checkpoint, Seconds mtbf) {
  const double d = checkpoint.value(), m = mtbf.value();
  if (d >= 2.0 * m) return mtbf;
  const double x = d / (2.0 * m);
  return from_base<Seconds>(std::sqrt(2.0 * d * m) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - d);
}

Seconds expected_wall_time(Seconds work, Seconds interval, Seconds checkpoint, Seconds restart, Seconds mtbf) {
  const double m = mtbf.value(), tau = interval.value();
  const double segments = std::ceil(work.value() / tau - 1e-9);
  // Expected time to complete one segment of length a = τ + δ when each failure costs R of (interruptible)
  // restart: M e^{R/M} (e^{a/M} - 1).
  return from_base<Seconds>(segments * m * std::exp(restart.value() / m) * std::expm1((tau + checkpoint.value()) / m));
}

Seconds expected_loss_per_failure(Seconds segment, Seconds mtbf) {
  const double a = segment.value(), m = mtbf.value();
  return from_base<Seconds>(m - a / std::expm1(a / m));
}

FailureSimResult simulate_failures(double work, double interval, double checkpoint, double restart, double mtbf, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::exponential_distribution<double> next_failure(1.0 / mtbf);
  FailureSimResult r;
  double clock = 0, done = 0;
  double until_failure = next_failure(rng);
  // Runs `length` of activity; returns false (after advancing to the failure) if a failure strikes first.
  auto run = [&](double length) {
    if (until_failure >= length) {
      until_failure -= length;
      clock += length;
      return true;
    }
    clock += until_failure;
    ++r.failures;
    return false;
  };
  while (done < work - 1e-9) {
    const double seg_work = std::min(interval, work - done);
    const double seg = seg_work + checkpoint;
    const double before = until_failure;
    if (run(seg)) {
      done += seg_work;
      r.checkpointing += checkpoint;
      continue;
    }
    r.lost += before;  // the segment's work and any partial checkpoint are gone
    ++r.segment_failures;
    // Restart until one completes; a failure during a restart starts it again.
    for (;;) {
      until_failure = next_failure(rng);
      const double b = until_failure;
      if (run(restart)) {
        r.restarting += restart;
        break;
      }
      r.restarting += b;
    }
  }
  r.wall = clock;
  r.mean_interval = r.failures > 0 ? clock / static_cast<double>(r.failures) : 0.0;
  return r;
}

}  // namespace infracalc::cluster
