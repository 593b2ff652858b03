// Seeded pseudo-random numbers for reference kernels: reproducible runs, no global state.
#pragma once

#include <cstdint>
#include <span>

namespace infracalc::kernels {

/// xoshiro256** (Blackman and Vigna 2018), seeded through SplitMix64: fast, reproducible, good statistics.
class Rng {
 public:
  /// A generator whose whole sequence is fixed by `seed`.
  explicit Rng(std::uint64_t seed);
  /// The next 64 random bits.
  std::uint64_t next();
  /// Uniform on [0, 1).
  double uniform();
  /// Uniform integer on [0, n) for n > 0 (Lemire's multiply-shift for n < 2^32, bias below n / 2^32).
  std::uint64_t below(std::uint64_t n);

 private:
  std::uint64_t s_[4];
};

/// Fills `out` with values uniform on [lo, hi) from a generator seeded with `seed`.
void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi);

}  // namespace infracalc::kernels
