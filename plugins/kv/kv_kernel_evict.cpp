// Reference kernel kv-evict: a one-layer, one-head cache decodes with real queries and keys, and the
// eviction policies run on it as published: StreamingLLM drops the oldest non-sink token once sinks +
// window are full; H2O keeps the most recent half of its budget plus the tokens with the largest
// accumulated attention, evicting the lowest-scoring older token whenever the cache exceeds
// ceil(ratio x length); SnapKV scores prompt tokens by the attention of the last prompt queries (its
// observation window) once after prefill, keeps the window plus the top-scoring rest up to its budget, and
// appends generated tokens. The tokens that stay are counted at every step and their K/V bytes totalled.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <numeric>
#include <vector>

#include "plugins/kv/kv_compress.hpp"
#include "plugins/kv/kv_kernels.hpp"
#include "units/bridge.hpp"

namespace infracalc::kv {

namespace {

constexpr int kDim = 16;

struct Token {
  std::int64_t position;
  std::vector<float> k, v;
  double score = 0;  // accumulated attention (H2O) or observation-window attention (SnapKV)
};

struct Stream {
  std::uint64_t state;
  float next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<float>(static_cast<double>(state >> 11) * 0x1.0p-53 * 2.0 - 1.0);
  }
  std::vector<float> vec() {
    std::vector<float> v(kDim);
    for (auto& x : v) x = next();
    return v;
  }
};

// Attention weights of query q over the cached tokens.
std::vector<double> weights(const std::vector<float>& q, const std::vector<Token>& cache) {
  std::vector<double> w(cache.size());
  double top = -1e300;
  for (std::size_t i = 0; i < cache.size(); ++i) {
    double dot = 0;
    for (int d = 0; d < kDim; ++d) dot += static_cast<double>(q[static_cast<std::size_t>(d)]) * cache[i].k[static_cast<std::size_t>(d)];
    w[i] = dot / std::sqrt(static_cast<double>(kDim));
    top = std::max(top, w[i]);
  }
  double sum = 0;
  for (auto& x : w) sum += (x = std::exp(x - top));
  for (auto& x : w) x /= sum;
  return w;
}

Token make(std::int64_t pos, Stream& s) { return {pos, s.vec(), s.vec(), 0.0}; }

// The cache's bytes as a GPU would hold them: K and V of every kept token at 2 bytes per element.
double held_bytes(const std::vector<Token>& cache) {
  std::vector<std::uint16_t> k, v;
  for (const auto& t : cache) {
    for (float x : t.k) k.push_back(static_cast<std::uint16_t>(std::lround((x + 1.0f) * 32767.0f)));
    for (float x : t.v) v.push_back(static_cast<std::uint16_t>(std::lround((x + 1.0f) * 32767.0f)));
  }
  return static_cast<double>((k.size() + v.size()) * sizeof(std::uint16_t));
}

struct Run {
  std::vector<std::int64_t> kept;  // after each generated token (index 0: after prefill)
  double bytes = 0;
};

Run streaming(std::int64_t prompt, std::int64_t generate, const CompressSettings& s) {
  Stream rng{1};
  std::vector<Token> cache;
  Run r;
  auto add = [&](std::int64_t pos) {
    cache.push_back(make(pos, rng));
    if (static_cast<std::int64_t>(cache.size()) > s.sinks + s.window) cache.erase(cache.begin() + s.sinks);
  };
  for (std::int64_t p = 0; p < prompt; ++p) add(p);
  r.kept.push_back(static_cast<std::int64_t>(cache.size()));
  for (std::int64_t g = 1; g <= generate; ++g) {
    add(prompt + g - 1);
    r.kept.push_back(static_cast<std::int64_t>(cache.size()));
  }
  r.bytes = held_bytes(cache);
  return r;
}

Run h2o(std::int64_t prompt, std::int64_t generate, const CompressSettings& s) {
  Stream rng{2};
  std::vector<Token> cache;
  Run r;
  auto budget = [&](std::int64_t length) { return static_cast<std::int64_t>(std::ceil(s.h2o_ratio * static_cast<double>(length) - 1e-9)); };
  // Every token's query attends to the cache (itself included) and adds its weights to the scores; then
  // the cache is cut back to the budget, keeping the recent half and the heaviest of the rest.
  auto step = [&](std::int64_t pos) {
    cache.push_back(make(pos, rng));
    const auto w = weights(rng.vec(), cache);
    for (std::size_t i = 0; i < cache.size(); ++i) cache[i].score += w[i];
    const std::int64_t keep = std::max<std::int64_t>(1, budget(pos + 1));
    while (static_cast<std::int64_t>(cache.size()) > keep) {
      const std::int64_t recent = keep / 2;
      const auto older_end = cache.end() - recent;
      const auto victim = std::min_element(cache.begin(), older_end, [](const Token& a, const Token& b) { return a.score < b.score; });
      cache.erase(victim);
    }
  };
  for (std::int64_t p = 0; p < prompt; ++p) step(p);
  r.kept.push_back(static_cast<std::int64_t>(cache.size()));
  for (std::int64_t g = 1; g <= generate; ++g) {
    step(prompt + g - 1);
    r.kept.push_back(static_cast<std::int64_t>(cache.size()));
  }
  r.bytes = held_bytes(cache);
  return r;
}

Run snapkv(std::int64_t prompt, std::int64_t generate, const CompressSettings& s) {
  Stream rng{3};
  std::vector<Token> cache;
  for (std::int64_t p = 0; p < prompt; ++p) cache.push_back(make(p, rng));
  const std::int64_t window = std::min<std::int64_t>({32, prompt, s.snapkv_budget});
  if (prompt > s.snapkv_budget) {
    // The observation window's queries vote for the earlier prompt tokens.
    for (std::int64_t w = 0; w < window; ++w) {
      const auto at = static_cast<std::size_t>(prompt - window + w);
      std::vector<Token> visible(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(at) + 1);
      const auto wt = weights(rng.vec(), visible);
      for (std::size_t i = 0; i < wt.size(); ++i) cache[i].score += wt[i];
    }
    std::vector<Token> older(cache.begin(), cache.end() - window);
    std::stable_sort(older.begin(), older.end(), [](const Token& a, const Token& b) { return a.score > b.score; });
    older.resize(static_cast<std::size_t>(s.snapkv_budget - window));
    std::sort(older.begin(), older.end(), [](const Token& a, const Token& b) { return a.position < b.position; });
    older.insert(older.end(), cache.end() - window, cache.end());
    cache = std::move(older);
  }
  Run r;
  r.kept.push_back(static_cast<std::int64_t>(cache.size()));
  for (std::int64_t g = 1; g <= generate; ++g) {
    cache.push_back(make(prompt + g - 1, rng));
    r.kept.push_back(static_cast<std::int64_t>(cache.size()));
  }
  r.bytes = held_bytes(cache);
  return r;
}

ModelArch one_head() {
  ModelArch m;
  m.layers = 1;
  m.attention_heads = 1;
  m.kv_heads = 1;
  m.head_dim = kDim;
  m.layer_types = {LayerAttention::full};
  return m;
}

}  // namespace

std::vector<KernelCheck> run_evict_kernel(const KernelOptions& opt) {
  CompressSettings s;
  s.base = plain_precision(*find_storage_format("fp16"));
  s.int8 = s.base;
  s.int4 = s.base;
  s.h2o_ratio = 0.2;
  s.snapkv_budget = 96;
  s.sinks = 4;
  s.window = 60;
  const std::int64_t prompt = opt.quick ? 300 : 1200;
  const std::int64_t generate = opt.quick ? 200 : 800;
  const ModelArch m = one_head();
  std::vector<KernelCheck> checks;
  struct Policy {
    Method method;
    Run run;
  };
  const Policy policies[] = {{Method::streaming, streaming(prompt, generate, s)},
                             {Method::h2o, h2o(prompt, generate, s)},
                             {Method::snapkv, snapkv(prompt, generate, s)}};
  for (const auto& p : policies) {
    double worst = 0;
    for (std::size_t g = 0; g < p.run.kept.size(); ++g)
      worst = std::max(worst, std::fabs(static_cast<double>(p.run.kept[g] - retained_positions(p.method, s, prompt, static_cast<std::int64_t>(g)))));
    const std::string name(method_name(p.method));
    if (opt.trace) fmt::print(stderr, "kv-evict: {} keeps {} of {} tokens\n", name, p.run.kept.back(), prompt + generate);
    checks.push_back({fmt::format("{}: largest difference in tokens kept over {} steps", name, p.run.kept.size()), Quantity::number(0),
                      Quantity::number(worst), 0.0, 0.0});
    checks.push_back({fmt::format("{}: K/V bytes held after {} + {} tokens (one head, d {}, fp16)", name, prompt, generate, kDim),
                      to_quantity(compressed_bytes(m, p.method, s, prompt, generate, Number::from_value(1.0))),
                      Quantity{p.run.bytes, dims::information}, 0.0});
  }
  return checks;
}

}  // namespace infracalc::kv
