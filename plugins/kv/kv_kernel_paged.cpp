// Reference kernel kv-paged: the allocator and scheduler of `kv paged` on request streams whose block
// counts follow from first principles: a sequence of L tokens holds ceil(L / B) blocks, so with a pool
// large enough that nothing waits, blocks in use at every step are the sum of that over live requests.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "plugins/kv/kv_kernels.hpp"
#include "plugins/kv/kv_paged.hpp"

namespace infracalc::kv {

namespace {

Quantity n(double v) { return Quantity::number(v); }

// Closed form for an unconstrained pool: request r is live on steps [a_r, a_r + O_r) and after step s
// holds P_r + (s - a_r + 1) tokens.
std::vector<std::int64_t> closed_form_blocks(const std::vector<PagedRequest>& reqs, std::int64_t block, std::int64_t steps) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(steps), 0);
  for (const auto& r : reqs)
    for (std::int64_t s = r.arrival; s < r.arrival + r.output && s < steps; ++s)
      out[static_cast<std::size_t>(s)] += (r.prompt + (s - r.arrival + 1) + block - 1) / block;
  return out;
}

void unconstrained(const std::string& name, const std::vector<PagedRequest>& reqs, std::int64_t block, bool trace,
                   std::vector<KernelCheck>& checks) {
  PagedConfig cfg;
  cfg.block_size = block;
  cfg.blocks = 0;
  for (const auto& r : reqs) cfg.blocks += blocks_for(r.prompt + r.output, block);
  cfg.max_running = static_cast<std::int64_t>(reqs.size());
  cfg.trace = trace;
  const PagedReport rep = simulate_paged(reqs, cfg);
  std::int64_t last = 0;
  for (const auto& r : reqs) last = std::max(last, r.arrival + r.output);
  const auto expect = closed_form_blocks(reqs, block, last);
  double worst = 0;
  std::int64_t peak = 0;
  for (const auto& s : rep.samples) {
    worst = std::max(worst, std::fabs(static_cast<double>(s.blocks_used - expect[static_cast<std::size_t>(s.step)])));
  }
  for (auto b : expect) peak = std::max(peak, b);
  std::int64_t allocations = 0, slack = 0;
  for (const auto& r : reqs) {
    allocations += blocks_for(r.prompt + r.output, block);
    slack += blocks_for(r.prompt + r.output, block) * block - (r.prompt + r.output);
  }
  checks.push_back({name + ": largest per-step difference from sum ceil((P + g) / B)", n(0), n(worst), 0.0, 0.0});
  checks.push_back({name + ": peak blocks", n(static_cast<double>(peak)), n(static_cast<double>(rep.pool.peak_used)), 0.0});
  checks.push_back({name + ": blocks allocated = sum ceil((P + O) / B)", n(static_cast<double>(allocations)),
                    n(static_cast<double>(rep.pool.allocations)), 0.0});
  checks.push_back({name + ": blocks freed = allocated", n(static_cast<double>(allocations)), n(static_cast<double>(rep.pool.frees)), 0.0});
  checks.push_back({name + ": empty slots in last blocks", n(static_cast<double>(slack)), n(static_cast<double>(rep.final_slack_slots)), 0.0});
  checks.push_back({name + ": last step = max(arrival + output) - 1", n(static_cast<double>(last - 1)),
                    n(static_cast<double>(rep.samples.back().step)), 0.0});
}

}  // namespace

std::vector<KernelCheck> run_paged_kernel(const KernelOptions& opt) {
  std::vector<KernelCheck> checks;
  // N identical requests at once: every step holds N x ceil((P + s + 1) / B) blocks.
  unconstrained("8 x (100 + 60) at step 0, B 16", std::vector<PagedRequest>(8, PagedRequest{100, 60, 0}), 16, opt.trace, checks);
  // Staggered, mixed lengths, including a one-token answer and a prompt on a block boundary.
  {
    std::vector<PagedRequest> reqs = {{30, 50, 0}, {64, 1, 3}, {5, 90, 7}, {200, 33, 7}, {1, 16, 40}, {48, 17, 41}};
    if (!opt.quick)
      for (int i = 0; i < 200; ++i) reqs.push_back({(i * 37) % 300, 1 + (i * 53) % 200, i * 3});
    unconstrained(fmt::format("{} staggered requests, B 16", reqs.size()), reqs, 16, opt.trace, checks);
    unconstrained(fmt::format("{} staggered requests, B 1", reqs.size()), reqs, 1, opt.trace, checks);
  }
  // A pool that holds one request at its peak: the second waits (no preemption) and reuses every block.
  {
    PagedConfig cfg;
    cfg.block_size = 16;
    cfg.blocks = blocks_for(40 + 10, 16);
    cfg.trace = opt.trace;
    const PagedReport r = simulate_paged({{40, 10, 0}, {40, 10, 0}}, cfg);
    checks.push_back({"serialised pair: steps = 2 x output", n(20), n(static_cast<double>(r.samples.back().step + 1)), 0.0});
    checks.push_back({"serialised pair: preemptions", n(0), n(static_cast<double>(r.preemptions)), 0.0, 0.0});
    checks.push_back({"serialised pair: blocks reused = the second request's ceil(50 / 16)", n(4), n(static_cast<double>(r.pool.reuses)), 0.0});
  }
  // Two 16 + 40 requests in 5 blocks of 16: both start with 2 blocks; at step 16 the first takes the last
  // free block to reach 33 tokens and the second, needing one too, is preempted with 32 tokens (2 blocks).
  // It is recomputed once the first finishes (step 39: 56 tokens) at step 40, and needs 23 more steps.
  {
    PagedConfig cfg;
    cfg.block_size = 16;
    cfg.blocks = 5;
    cfg.trace = opt.trace;
    const PagedReport r = simulate_paged({{16, 40, 0}, {16, 40, 0}}, cfg);
    checks.push_back({"preemption: preemptions", n(1), n(static_cast<double>(r.preemptions)), 0.0});
    checks.push_back({"preemption: tokens recomputed (16 prompt + 16 generated)", n(32), n(static_cast<double>(r.recomputed_tokens)), 0.0});
    checks.push_back({"preemption: steps (the second finishes at step 63)", n(64), n(static_cast<double>(r.samples.back().step + 1)), 0.0});
    checks.push_back({"preemption: output tokens generated once each", n(80), n(static_cast<double>(r.generated_tokens)), 0.0});
    checks.push_back({"preemption: peak blocks = pool", n(5), n(static_cast<double>(r.pool.peak_used)), 0.0});
  }
  return checks;
}

}  // namespace infracalc::kv
