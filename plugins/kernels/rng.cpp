#include "plugins/kernels/rng.hpp"

namespace infracalc::kernels {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Rng::Rng(std::uint64_t seed) {
  for (auto& s : s_) s = splitmix64(seed);
}

std::uint64_t Rng::next() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

// 53 random mantissa bits give every double in [0, 1) on a 2^-53 grid.
double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::uint64_t Rng::below(std::uint64_t n) {
  if (n <= 0xffffffffULL) return ((next() >> 32) * n) >> 32;
  return next() % n;  // bias below n / 2^64: negligible for the sizes kernels use
}

void fill_uniform(std::span<float> out, std::uint64_t seed, float lo, float hi) {
  Rng r(seed);
  const float span = hi - lo;
  for (auto& x : out) x = lo + span * static_cast<float>(static_cast<double>(r.next() >> 40) * 0x1.0p-24);
}

}  // namespace infracalc::kernels
