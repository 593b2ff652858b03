#include "plugins/power/swing_sim.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

namespace infracalc::pwr {

namespace {

// Power share of one accelerator at time t into its own cycle: ramp down, wait, ramp up, compute.
double share_at(double t, double compute, double wait, double ramp, double low) {
  const double period = compute + wait + 2.0 * ramp;
  double x = std::fmod(t, period);
  if (x < 0) x += period;
  if (x < compute) return 1.0;
  x -= compute;
  if (x < ramp) return 1.0 - (1.0 - low) * x / ramp;
  x -= ramp;
  if (x < wait) return low;
  x -= wait;
  return low + (1.0 - low) * x / ramp;
}

}  // namespace

SwingMeasured simulate_swing(const SwingSetup& s, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(0.0, s.skew.value());
  std::vector<double> start(static_cast<std::size_t>(s.gpus));
  for (auto& x : start) x = s.skew.value() > 0 ? offset(rng) : 0.0;
  const double c = s.compute.value(), w = s.wait.value(), r = s.ramp.value(), dt = s.dt.value();
  const double period = c + w + 2.0 * r;
  const auto steps = static_cast<long>(std::llround(period * s.iterations / dt));
  const auto first = static_cast<long>(std::llround(period / dt));
  double hi = -1.0, lo = 1e300, ramp = 0.0, sum = 0.0, prev = 0.0;
  long counted = 0;
  for (long k = 0; k <= steps; ++k) {
    const double t = static_cast<double>(k) * dt;
    double p = 0.0;
    for (double st : start) p += share_at(t - st, c, w, r, s.low_fraction);
    p *= s.gpu_power.value();
    if (k >= first) {
      hi = std::max(hi, p);
      lo = std::min(lo, p);
      if (k > first) ramp = std::max(ramp, std::fabs(p - prev) / dt);
      if (k < steps) {
        sum += p;
        ++counted;
      }
    }
    prev = p;
  }
  return {from_base<Watts>(hi), from_base<Watts>(lo), from_base<WattsPerSecond>(ramp),
          from_base<Watts>(counted > 0 ? sum / static_cast<double>(counted) : 0.0)};
}

}  // namespace infracalc::pwr
