#include "plugins/cluster/experts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>

#include "units/counts.hpp"

namespace infracalc::cluster {

std::int64_t expert_capacity(std::int64_t tokens, int experts, int k, double capacity_factor) {
  const double slots = capacity_factor * static_cast<double>(tokens) * k / experts;
  return whole_count(slots, Rounding::up, {"--capacity-factor", "slots per expert", "a capacity factor near 1 (1.0 to 2.0 is usual)"});
}

double expected_drop_rate_uniform(std::int64_t tokens, int experts, int k, std::int64_t capacity) {
  if (tokens <= 0) return 0.0;
  const double q = static_cast<double>(k) / experts;
  if (q >= 1.0) return capacity >= tokens ? 0.0 : static_cast<double>(tokens - capacity) / tokens;
  const double n = static_cast<double>(tokens);
  // E[(X - C)+] for X ~ Binomial(n, q), summing the pmf in log space from C + 1 up while it matters.
  const double lq = std::log(q), l1q = std::log1p(-q), lgn = std::lgamma(n + 1.0);
  double excess = 0;
  for (std::int64_t x = capacity + 1; x <= tokens; ++x) {
    const double xd = static_cast<double>(x);
    const double lp = lgn - std::lgamma(xd + 1.0) - std::lgamma(n - xd + 1.0) + xd * lq + (n - xd) * l1q;
    const double pmf = std::exp(lp);
    excess += (xd - static_cast<double>(capacity)) * pmf;
    if (xd > n * q + 10.0 && pmf < 1e-16) break;
  }
  return experts * excess / (n * k);
}

namespace {

// The draws of the routing simulation, written out as libstdc++ makes them from a 64-bit engine, so that every
// standard library gives the same experts: the standard fixes std::mt19937_64's sequence but leaves the algorithms
// of its distributions to the library (libc++'s uniform_int_distribution draws other numbers; the WebAssembly
// engine is built against libc++).
__extension__ typedef unsigned __int128 RoutingProduct;

// Uniform on [0, n): Lemire's nearly divisionless method (libstdc++'s uniform_int_distribution).
std::uint64_t routing_index_below(std::mt19937_64& rng, std::uint64_t n) {
  RoutingProduct product = static_cast<RoutingProduct>(rng()) * n;
  auto low = static_cast<std::uint64_t>(product);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      product = static_cast<RoutingProduct>(rng()) * n;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

// Uniform on [0, 1): std::generate_canonical<double, 53> as libstdc++ computes it.
double routing_canonical(std::mt19937_64& rng) {
  const double r = static_cast<double>(rng()) / 0x1p64;
  return r >= 1.0 ? std::nextafter(1.0, 0.0) : r;
}

// Walker's alias table for O(1) draws from a discrete distribution.
struct Alias {
  std::vector<double> prob;
  std::vector<int> alias;
  explicit Alias(const std::vector<double>& w) : prob(w.size()), alias(w.size()) {
    const double total = std::accumulate(w.begin(), w.end(), 0.0);
    const std::size_t n = w.size();
    std::vector<double> scaled(n);
    std::vector<int> small, large;
    for (std::size_t i = 0; i < n; ++i) {
      scaled[i] = w[i] * static_cast<double>(n) / total;
      (scaled[i] < 1.0 ? small : large).push_back(static_cast<int>(i));
    }
    while (!small.empty() && !large.empty()) {
      const int s = small.back(), l = large.back();
      small.pop_back();
      prob[static_cast<std::size_t>(s)] = scaled[static_cast<std::size_t>(s)];
      alias[static_cast<std::size_t>(s)] = l;
      scaled[static_cast<std::size_t>(l)] -= 1.0 - scaled[static_cast<std::size_t>(s)];
      if (scaled[static_cast<std::size_t>(l)] < 1.0) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (int i : large) prob[static_cast<std::size_t>(i)] = 1.0;
    for (int i : small) prob[static_cast<std::size_t>(i)] = 1.0;
  }
  int draw(std::mt19937_64& rng) const {
    const auto i = static_cast<int>(routing_index_below(rng, prob.size()));
    return routing_canonical(rng) < prob[static_cast<std::size_t>(i)] ? i : alias[static_cast<std::size_t>(i)];
  }
};

}  // namespace

RoutingStats simulate_routing(const RoutingSetup& s) {
  RoutingStats out;
  if (s.tokens <= 0 || s.experts <= 0 || s.k <= 0) return out;
  std::mt19937_64 rng(s.seed);
  std::vector<double> w(static_cast<std::size_t>(s.experts));
  for (int e = 0; e < s.experts; ++e) w[static_cast<std::size_t>(e)] = std::pow(static_cast<double>(e + 1), -s.skew);
  const Alias alias(w);
  const int k = std::min(s.k, s.experts);
  std::vector<std::int64_t> load(static_cast<std::size_t>(s.experts));
  std::vector<int> chosen(static_cast<std::size_t>(k));
  const double mean = static_cast<double>(s.tokens) * k / s.experts;
  for (int t = 0; t < s.trials; ++t) {
    std::fill(load.begin(), load.end(), 0);
    for (std::int64_t tok = 0; tok < s.tokens; ++tok) {
      // Successive sampling: redraw an expert already chosen for this token.
      for (int j = 0; j < k; ++j) {
        int e = 0;
        do {
          e = alias.draw(rng);
        } while (std::find(chosen.begin(), chosen.begin() + j, e) != chosen.begin() + j);
        chosen[static_cast<std::size_t>(j)] = e;
        ++load[static_cast<std::size_t>(e)];
      }
    }
    double dropped = 0, max_load = 0, sq = 0, idle = 0;
    for (const auto l : load) {
      dropped += static_cast<double>(std::max<std::int64_t>(0, l - s.capacity));
      max_load = std::max(max_load, static_cast<double>(l));
      sq += (static_cast<double>(l) - mean) * (static_cast<double>(l) - mean);
      if (l == 0) idle += 1;
    }
    out.dropped += dropped;
    out.drop_rate += dropped / (static_cast<double>(s.tokens) * k);
    out.max_load += max_load;
    out.cv += std::sqrt(sq / s.experts) / mean;
    out.idle_experts += idle / s.experts;
  }
  const double n = s.trials;
  out.dropped /= n;
  out.drop_rate /= n;
  out.max_load /= n;
  out.cv /= n;
  out.idle_experts /= n;
  out.imbalance = out.max_load / mean;
  out.last_loads = load;
  return out;
}

Bytes all_to_all_bytes(double tokens_per_device, int k, Bytes bytes_per_token, int ep) {
  if (ep <= 1) return from_base<Bytes>(0);
  return tokens_per_device * k * bytes_per_token * (static_cast<double>(ep - 1) / ep);
}

}  // namespace infracalc::cluster
