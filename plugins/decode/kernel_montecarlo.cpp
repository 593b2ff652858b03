#include "plugins/decode/kernel_montecarlo.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "plugins/kernels/rng.hpp"

namespace infracalc::decode {

double simulate_experts_touched(int experts, int k, int tokens, int trials, std::uint64_t seed) {
  kernels::Rng rng(seed);
  std::vector<int> ids(static_cast<std::size_t>(experts));
  std::vector<char> hit(static_cast<std::size_t>(experts));
  double total = 0;
  for (int t = 0; t < trials; ++t) {
    std::fill(hit.begin(), hit.end(), 0);
    for (int tok = 0; tok < tokens; ++tok) {
      // A router's top-k: k distinct experts; a partial Fisher-Yates shuffle draws them uniformly.
      std::iota(ids.begin(), ids.end(), 0);
      for (int j = 0; j < k; ++j) {
        const auto pick = static_cast<std::size_t>(j) + rng.below(static_cast<std::uint64_t>(experts - j));
        std::swap(ids[static_cast<std::size_t>(j)], ids[pick]);
        hit[static_cast<std::size_t>(ids[static_cast<std::size_t>(j)])] = 1;
      }
    }
    total += static_cast<double>(std::count(hit.begin(), hit.end(), 1));
  }
  return total / trials;
}

double simulate_tokens_per_pass(double alpha, int k, int passes, std::uint64_t seed) {
  kernels::Rng rng(seed);
  double total = 0;
  for (int p = 0; p < passes; ++p) {
    int accepted = 0;
    while (accepted < k && rng.uniform() < alpha) ++accepted;
    total += accepted + 1;  // the target's own token: the correction at the first rejection, or a bonus
  }
  return total / passes;
}

TreeCount build_tree(int width, int depth) {
  TreeCount c;
  std::vector<int> level{0};  // node ids of the current level; the root is 0
  int next_id = 1;
  for (int d = 1; d <= depth; ++d) {
    std::vector<int> children;
    for (std::size_t parent = 0; parent < level.size(); ++parent)
      for (int w = 0; w < width; ++w) children.push_back(next_id++);
    c.nodes += static_cast<double>(children.size());
    level = std::move(children);
  }
  c.leaves = static_cast<double>(level.size());
  return c;
}

}  // namespace infracalc::decode
