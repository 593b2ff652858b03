// Reference kernel kv-work: a one-layer, one-KV-head decoder generates N tokens after a P-token prompt
// twice, once keeping K and V in a cache and once recomputing them from the token vectors at every step.
// It counts the K/V projections (matrix-vector products) each way and the cached pairs read, and checks
// that both ways produce the same attention outputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <vector>

#include "plugins/kernels/rng.hpp"
#include "plugins/kv/kv_kernels.hpp"
#include "plugins/kv/kv_work.hpp"

namespace infracalc::kv {

namespace {

constexpr int kHidden = 16;
constexpr int kWorkDim = 8;

using Vec = std::vector<double>;
using Mat = std::vector<Vec>;  // kWorkDim rows of kHidden

struct Model {
  Mat wq, wk, wv;
};

Mat matrix(kernels::Rng& r) {
  Mat m(kWorkDim, Vec(kHidden));
  for (auto& row : m)
    for (auto& x : row) x = 2.0 * r.uniform() - 1.0;
  return m;
}

Vec apply(const Mat& m, const Vec& x, std::int64_t& count) {
  ++count;
  Vec y(kWorkDim, 0.0);
  for (int i = 0; i < kWorkDim; ++i)
    for (int j = 0; j < kHidden; ++j) y[static_cast<std::size_t>(i)] += m[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] * x[static_cast<std::size_t>(j)];
  return y;
}

Vec attend(const Vec& q, const std::vector<Vec>& k, const std::vector<Vec>& v) {
  std::vector<double> w(k.size());
  double top = -1e300;
  for (std::size_t i = 0; i < k.size(); ++i) {
    double dot = 0;
    for (int d = 0; d < kWorkDim; ++d) dot += q[static_cast<std::size_t>(d)] * k[i][static_cast<std::size_t>(d)];
    w[i] = dot / std::sqrt(static_cast<double>(kWorkDim));
    top = std::max(top, w[i]);
  }
  double sum = 0;
  for (auto& x : w) sum += (x = std::exp(x - top));
  Vec out(kWorkDim, 0.0);
  for (std::size_t i = 0; i < k.size(); ++i)
    for (int d = 0; d < kWorkDim; ++d) out[static_cast<std::size_t>(d)] += w[i] / sum * v[i][static_cast<std::size_t>(d)];
  return out;
}

struct Count {
  std::int64_t kv_projections = 0;  // K and V projected together count as one pair
  std::int64_t reads = 0;
  std::int64_t reads_at_step = 0;
  std::vector<Vec> outputs;
};

Count decode(const Model& m, const std::vector<Vec>& x, std::int64_t prompt, std::int64_t steps, bool cached, std::int64_t report_step) {
  Count c;
  std::int64_t q_count = 0, pair = 0;
  std::vector<Vec> k, v;
  auto project = [&](const Vec& xi) {
    k.push_back(apply(m.wk, xi, pair));
    v.push_back(apply(m.wv, xi, pair));
    ++c.kv_projections;
  };
  if (cached)
    for (std::int64_t p = 0; p < prompt; ++p) project(x[static_cast<std::size_t>(p)]);
  for (std::int64_t t = 1; t <= steps; ++t) {
    const std::int64_t pos = prompt + t - 1;  // 0-based position of the token this step processes
    if (cached) {
      c.reads += static_cast<std::int64_t>(k.size());  // every pair already in the cache is read
      if (t == report_step) c.reads_at_step = static_cast<std::int64_t>(k.size());
      project(x[static_cast<std::size_t>(pos)]);
    } else {
      k.clear();
      v.clear();
      for (std::int64_t i = 0; i <= pos; ++i) project(x[static_cast<std::size_t>(i)]);
    }
    c.outputs.push_back(attend(apply(m.wq, x[static_cast<std::size_t>(pos)], q_count), k, v));
  }
  return c;
}

}  // namespace

std::vector<KernelCheck> run_work_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> checks;
  kernels::Rng rng(99);
  const Model m{matrix(rng), matrix(rng), matrix(rng)};
  struct Setup {
    std::int64_t prompt, steps, report;
  };
  std::vector<Setup> setups = {{0, 50, 6}, {0, 1, 1}, {37, 64, 10}};
  if (!opt.quick) setups.push_back({500, 400, 400});
  for (const auto& s : setups) {
    std::vector<Vec> x(static_cast<std::size_t>(s.prompt + s.steps), Vec(kHidden));
    for (auto& xi : x)
      for (auto& e : xi) e = 2.0 * rng.uniform() - 1.0;
    const Count with = decode(m, x, s.prompt, s.steps, true, s.report);
    const Count without = decode(m, x, s.prompt, s.steps, false, s.report);
    double diff = 0;
    for (std::size_t i = 0; i < with.outputs.size(); ++i)
      for (int d = 0; d < kWorkDim; ++d)
        diff = std::max(diff, std::fabs(with.outputs[i][static_cast<std::size_t>(d)] - without.outputs[i][static_cast<std::size_t>(d)]));
    const ProjectionWork w = projection_work(s.prompt, s.steps);
    const std::string name = fmt::format("prompt {}, {} steps", s.prompt, s.steps);
    if (opt.trace)
      fmt::print(stderr, "kv-work: {}: {} projections with a cache, {} without, {} reads\n", name, with.kv_projections,
                 without.kv_projections, with.reads);
    checks.push_back({name + ": projections without a cache", Quantity::number(w.without_cache),
                      Quantity::number(static_cast<double>(without.kv_projections)), 0.0});
    checks.push_back({name + ": projections with a cache", Quantity::number(w.with_cache), Quantity::number(static_cast<double>(with.kv_projections)), 0.0});
    checks.push_back({name + ": cached pairs read", Quantity::number(w.reads), Quantity::number(static_cast<double>(with.reads)), 0.0, 0.0});
    checks.push_back({fmt::format("{}: pairs read at step {}", name, s.report),
                      Quantity::number(static_cast<double>(reads_at_step(s.prompt, s.report))),
                      Quantity::number(static_cast<double>(with.reads_at_step)), 0.0, 0.0});
    checks.push_back({name + ": max |cached - recomputed| attention output", Quantity::number(0), Quantity::number(diff), 0.0, 1e-12});
  }
  return checks;
}

}  // namespace infracalc::kv
