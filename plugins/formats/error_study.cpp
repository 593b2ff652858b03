#include "plugins/formats/error_study.hpp"

#include <cmath>
#include <limits>
#include <numbers>

namespace infracalc::formats {

namespace {

// splitmix64 (Steele, Lea and Flood 2014): a tiny generator with a fixed output on every platform, unlike
// std::normal_distribution whose algorithm the standard leaves to the library.
struct SplitMix {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in (0, 1): 53 random bits, never 0.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
};

}  // namespace

SyntheticTensor make_tensor(const TensorRecipe& r) {
  SyntheticTensor t;
  t.values.resize(r.count);
  t.outlier.assign(r.count, 0);
  SplitMix rng{r.seed};
  // Box–Muller (1958): two uniforms give two independent standard normals.
  for (std::size_t i = 0; i < r.count; i += 2) {
    const double u1 = rng.uniform(), u2 = rng.uniform();
    const double radius = std::sqrt(-2.0 * std::log(u1));
    t.values[i] = static_cast<float>(r.sigma * radius * std::cos(2.0 * std::numbers::pi * u2));
    if (i + 1 < r.count) t.values[i + 1] = static_cast<float>(r.sigma * radius * std::sin(2.0 * std::numbers::pi * u2));
  }
  // Distinct outlier positions by a partial Fisher–Yates shuffle of the indices.
  const std::size_t k = r.outliers < r.count ? r.outliers : r.count;
  std::vector<std::size_t> idx(r.count);
  for (std::size_t i = 0; i < r.count; ++i) idx[i] = i;
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t j = i + static_cast<std::size_t>(rng.next() % (r.count - i));
    std::swap(idx[i], idx[j]);
    const double sign = (rng.next() & 1u) != 0 ? -1.0 : 1.0;
    t.values[idx[i]] = static_cast<float>(sign * r.outlier_sigmas * r.sigma);
    t.outlier[idx[i]] = 1;
  }
  return t;
}

ErrorStats measure_error(const SyntheticTensor& t, const TensorLayout& layout) {
  const QuantizedTensor q = quantize(t.values, layout);
  std::vector<float> back(t.values.size());
  dequantize(q, back);
  ErrorStats s;
  s.bytes = q.bytes();
  double sig = 0, err = 0, err_bulk = 0, err_out = 0;
  std::size_t n_bulk = 0, n_out = 0, nonzero_bulk = 0, zeroed = 0;
  for (std::size_t i = 0; i < t.values.size(); ++i) {
    const double x = t.values[i];
    const double d = static_cast<double>(back[i]) - x;
    sig += x * x;
    err += d * d;
    s.max_abs = std::max(s.max_abs, std::fabs(d));
    if (t.outlier[i] != 0) {
      err_out += d * d;
      ++n_out;
    } else {
      err_bulk += d * d;
      ++n_bulk;
      if (x != 0.0) {
        ++nonzero_bulk;
        if (back[i] == 0.0f) ++zeroed;
      }
    }
  }
  const double n = static_cast<double>(t.values.size());
  s.rms = n > 0 ? std::sqrt(err / n) : 0.0;
  s.rms_bulk = n_bulk > 0 ? std::sqrt(err_bulk / static_cast<double>(n_bulk)) : 0.0;
  s.rms_outliers = n_out > 0 ? std::sqrt(err_out / static_cast<double>(n_out)) : 0.0;
  s.snr_db = err > 0 ? 10.0 * std::log10(sig / err) : std::numeric_limits<double>::infinity();
  s.zeroed_share = nonzero_bulk > 0 ? static_cast<double>(zeroed) / static_cast<double>(nonzero_bulk) : 0.0;
  return s;
}

}  // namespace infracalc::formats
