// Reference kernel kv-paged-attention: several sequences decode token by token while their K/V go into
// blocks handed out by the paged allocator (interleaved, with sequences finishing and their blocks reused
// by others), and every step's attention output is computed twice: reading K/V through the block table,
// and from a plain contiguous copy of the same cache. The outputs must agree to within 1e-6.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <vector>

#include "plugins/kv/kv_blocks.hpp"
#include "plugins/kernels/rng.hpp"
#include "plugins/kv/kv_kernels.hpp"

namespace infracalc::kv {

namespace {

struct Shape {
  int heads;
  int kv_heads;
  int dim;
  int block;
  int blocks;
};

float signed_unit(kernels::Rng& r) { return static_cast<float>(2.0 * r.uniform() - 1.0); }

// The physical pool: for every block, K and V of block_size positions x kv_heads x dim floats.
class PagedStore {
 public:
  explicit PagedStore(const Shape& s)
      : s_(s), k_(static_cast<std::size_t>(s.blocks) * s.block * s.kv_heads * s.dim), v_(k_.size()) {}
  float* k(std::int32_t block, int slot, int head) { return &k_[index(block, slot, head)]; }
  float* v(std::int32_t block, int slot, int head) { return &v_[index(block, slot, head)]; }

 private:
  [[nodiscard]] std::size_t index(std::int32_t block, int slot, int head) const {
    return ((static_cast<std::size_t>(block) * s_.block + static_cast<std::size_t>(slot)) * s_.kv_heads + static_cast<std::size_t>(head)) *
           static_cast<std::size_t>(s_.dim);
  }
  Shape s_;
  std::vector<float> k_, v_;
};

struct Seq {
  std::vector<std::int32_t> table;     // block table
  std::vector<float> k, v;             // contiguous copy: [position][kv_head][dim]
  int length = 0;
  int target = 0;
};

// softmax(q . k / sqrt(d)) . v for every query head, grouped onto its KV head; K/V come from `kv_at`.
template <class KvAt>
std::vector<double> attend(const Shape& s, const std::vector<float>& q, int length, KvAt kv_at) {
  std::vector<double> out(static_cast<std::size_t>(s.heads * s.dim), 0.0);
  const int group = s.heads / s.kv_heads;
  const double scale = 1.0 / std::sqrt(static_cast<double>(s.dim));
  std::vector<double> score(static_cast<std::size_t>(length));
  for (int h = 0; h < s.heads; ++h) {
    const int kvh = h / group;
    double top = -1e300;
    for (int p = 0; p < length; ++p) {
      const auto [k, v] = kv_at(p, kvh);
      (void)v;
      double dot = 0;
      for (int i = 0; i < s.dim; ++i) dot += static_cast<double>(q[static_cast<std::size_t>(h * s.dim + i)]) * k[i];
      score[static_cast<std::size_t>(p)] = dot * scale;
      top = std::max(top, dot * scale);
    }
    double sum = 0;
    for (auto& x : score) sum += (x = std::exp(x - top));
    for (int p = 0; p < length; ++p) {
      const auto [k, v] = kv_at(p, kvh);
      (void)k;
      const double w = score[static_cast<std::size_t>(p)] / sum;
      for (int i = 0; i < s.dim; ++i) out[static_cast<std::size_t>(h * s.dim + i)] += w * v[i];
    }
  }
  return out;
}

struct Result {
  double max_diff = 0;
  std::int64_t allocations = 0;
  std::int64_t reuses = 0;
};

Result run(const Shape& s, const std::vector<int>& lengths, bool trace) {
  PagedStore store(s);
  BlockAllocator pool(s.blocks);
  std::vector<Seq> seqs(lengths.size());
  for (std::size_t i = 0; i < seqs.size(); ++i) seqs[i].target = lengths[i];
  kernels::Rng rng(12345);
  Result r;
  // Sequences start staggered so that blocks of finished sequences are reused by later ones.
  for (int step = 0;; ++step) {
    bool any = false;
    for (std::size_t i = 0; i < seqs.size(); ++i) {
      Seq& q = seqs[i];
      if (step < static_cast<int>(i) * 3 || q.length >= q.target) continue;
      any = true;
      if (q.length % s.block == 0) q.table.push_back(*pool.allocate());
      const std::int32_t blk = q.table.back();
      const int slot = q.length % s.block;
      for (int h = 0; h < s.kv_heads; ++h)
        for (int d = 0; d < s.dim; ++d) {
          const float kk = signed_unit(rng), vv = signed_unit(rng);
          store.k(blk, slot, h)[d] = kk;
          store.v(blk, slot, h)[d] = vv;
          q.k.push_back(kk);
          q.v.push_back(vv);
        }
      ++q.length;
      std::vector<float> query(static_cast<std::size_t>(s.heads * s.dim));
      for (auto& x : query) x = signed_unit(rng);
      const auto paged = attend(s, query, q.length, [&](int p, int h) {
        const std::int32_t b = q.table[static_cast<std::size_t>(p / s.block)];
        return std::pair<const float*, const float*>{store.k(b, p % s.block, h), store.v(b, p % s.block, h)};
      });
      const auto flat = attend(s, query, q.length, [&](int p, int h) {
        const std::size_t at = (static_cast<std::size_t>(p) * s.kv_heads + static_cast<std::size_t>(h)) * static_cast<std::size_t>(s.dim);
        return std::pair<const float*, const float*>{&q.k[at], &q.v[at]};
      });
      for (std::size_t j = 0; j < paged.size(); ++j) r.max_diff = std::max(r.max_diff, std::fabs(paged[j] - flat[j]));
      if (q.length == q.target) {
        for (auto b : q.table) pool.release(b);
        if (trace) fmt::print(stderr, "kv-paged-attention: sequence {} done at step {} with {} blocks\n", i, step, q.table.size());
      }
    }
    if (!any) break;
  }
  r.allocations = pool.stats().allocations;
  r.reuses = pool.stats().reuses;
  return r;
}

}  // namespace

std::vector<KernelCheck> run_attention_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> checks;
  struct Setup {
    Shape shape;
    std::vector<int> lengths;
  };
  std::vector<Setup> setups = {
      {{8, 2, 16, 16, 64}, {40, 7, 65, 16, 33, 90}},
      {{4, 4, 8, 4, 128}, {17, 3, 50, 21, 9, 64, 5}},
      {{6, 1, 32, 8, 96}, {100, 1, 60, 25}},
  };
  if (!opt.quick) setups.push_back({{16, 4, 64, 16, 512}, {300, 150, 500, 17, 220, 400, 64, 129}});
  for (const auto& st : setups) {
    const Result r = run(st.shape, st.lengths, opt.trace);
    const std::string name = fmt::format("{} q heads / {} kv, d {}, block {}, {} sequences", st.shape.heads, st.shape.kv_heads, st.shape.dim,
                                         st.shape.block, st.lengths.size());
    checks.push_back({"max |paged - contiguous| attention output: " + name, Quantity::number(0), Quantity::number(r.max_diff), 0.0, 1e-6});
    double expect = 0;
    for (int len : st.lengths) expect += std::ceil(static_cast<double>(len) / st.shape.block);
    checks.push_back({"blocks allocated = sum ceil(length / B): " + name, Quantity::number(expect),
                      Quantity::number(static_cast<double>(r.allocations)), 0.0});
    if (opt.trace) fmt::print(stderr, "kv-paged-attention: {}: {} of {} allocations reused a freed block\n", name, r.reuses, r.allocations);
  }
  return checks;
}

}  // namespace infracalc::kv
