// The paged scheduler, prefix sharing, compression, work and offload math of the kv plugin.
#include <catch2/catch.hpp>

#include <random>

#include "plugins/kv/kv_blocks.hpp"
#include "plugins/kv/kv_compress.hpp"
#include "plugins/kv/kv_offload.hpp"
#include "plugins/kv/kv_paged.hpp"
#include "plugins/kv/kv_prefix.hpp"
#include "plugins/kv/kv_work.hpp"
#include "units/expected.hpp"

using namespace infracalc;
using namespace infracalc::kv;

TEST_CASE("request lists parse in every form", "[kv][paged]") {
  const auto r = parse_requests("2x100+20, 5+1@7\n# comment\n30 40 2\n", "--requests");
  REQUIRE(r.size() == 4);
  CHECK(r[0].prompt == 100);
  CHECK(r[1].output == 20);
  CHECK(r[2].arrival == 7);
  CHECK(r[3].prompt == 30);
  CHECK(r[3].output == 40);
  CHECK(r[3].arrival == 2);
  CHECK_THROWS_AS(parse_requests("100", "--requests"), UserError);
  CHECK_THROWS_AS(parse_requests("100+0", "--requests"), UserError);
  CHECK_THROWS_AS(parse_requests("a+b", "--requests"), UserError);
  CHECK_THROWS_AS(parse_requests("", "--requests"), UserError);
}

TEST_CASE("a seeded stream is the same every time and respects the maximum length", "[kv][paged]") {
  const auto a = random_requests(200, 7, 500, 300, LengthDistribution::exponential, 0.5, 1000);
  const auto b = random_requests(200, 7, 500, 300, LengthDistribution::exponential, 0.5, 1000);
  REQUIRE(a.size() == 200);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].prompt == b[i].prompt);
    CHECK(a[i].arrival == b[i].arrival);
    CHECK(a[i].prompt + a[i].output <= 1000);
    CHECK(a[i].output >= 1);
    if (i > 0) CHECK(a[i].arrival >= a[i - 1].arrival);
  }
  const auto f = random_requests(3, 1, 10, 20, LengthDistribution::fixed, 0, 100);
  CHECK(f[2].prompt == 10);
  CHECK(f[2].output == 20);
  CHECK(f[2].arrival == 0);
}

TEST_CASE("a constrained pool preempts, resumes and still finishes everything", "[kv][paged]") {
  const auto reqs = random_requests(120, 3, 200, 150, LengthDistribution::uniform, 2.0, 800);
  for (const auto mode : {Preemption::recompute, Preemption::swap}) {
    PagedConfig cfg;
    cfg.block_size = 16;
    cfg.blocks = 120;
    cfg.preemption = mode;
    const PagedReport r = simulate_paged(reqs, cfg);
    std::int64_t outputs = 0;
    for (const auto& q : reqs) outputs += q.output;
    CHECK(r.generated_tokens == outputs);
    CHECK(r.pool.allocations == r.pool.frees);
    CHECK(r.pool.peak_used <= cfg.blocks);
    CHECK(r.preemptions > 0);
    for (const auto& o : r.outcomes) CHECK(o.finished >= o.admitted);
    for (const auto& s : r.samples) CHECK(s.tokens_stored <= s.blocks_used * cfg.block_size);
    if (mode == Preemption::swap) {
      CHECK(r.recomputed_tokens == 0);
      CHECK(r.swapped_blocks > 0);
    } else {
      CHECK(r.recomputed_tokens > 0);
    }
  }
}

TEST_CASE("a request larger than the pool is refused, not simulated forever", "[kv][paged]") {
  PagedConfig cfg;
  cfg.blocks = 3;
  CHECK_THROWS_AS(simulate_paged({{40, 20, 0}}, cfg), UserError);
}

TEST_CASE("traced runs list every block movement", "[kv][paged]") {
  PagedConfig cfg;
  cfg.blocks = 10;
  cfg.trace = true;
  const PagedReport r = simulate_paged({{15, 3, 0}}, cfg);
  // arrive, admit (16 tokens: 1 block), grow to 17 (2 blocks), 18, finish.
  REQUIRE(r.events.size() == 4);
  CHECK(r.events[1].what == "admit");
  CHECK(r.events[2].what == "grow");
  CHECK(r.events[2].blocks_used == 2);
  CHECK(r.events[3].what == "finish");
  CHECK(r.events[3].blocks == -2);
}

TEST_CASE("prefix sharing and its break-even price", "[kv][prefix]") {
  const auto b = prefix_blocks({2001, 500, 10, 16});
  CHECK(b.unshared == 10 * 157);
  CHECK(b.shared == 125 + 10 * 32);
  CHECK(b.copies == 9);
  CHECK(prefix_blocks({2000, 0, 10, 16}).shared == 125);
  CHECK(prefix_blocks({2001, 0, 10, 16}).shared == 126);
  CachePricing anthropic{0.1, 1.25};
  CHECK(break_even_hit_rate(anthropic) == Approx(0.25 / 1.15));
  CHECK(break_even_requests(anthropic) == 2);
  CHECK(cost_multiplier(anthropic, 1.0) == Approx(0.1));
  CachePricing one_hour{0.1, 2.0};
  CHECK(break_even_requests(one_hour) == 3);  // 2 + 0.1 > 2, 2 + 0.2 <= 3
  CachePricing no_premium{0.5, 1.0};
  CHECK(break_even_hit_rate(no_premium) == 0.0);
  CHECK(break_even_requests(no_premium) == 1);
}

TEST_CASE("compression keeps what each method says", "[kv][compress]") {
  CompressSettings s;
  CHECK(retained_positions(Method::streaming, s, 100, 0) == 100);
  CHECK(retained_positions(Method::streaming, s, 4'000'000, 0) == 1024);
  CHECK(retained_positions(Method::h2o, s, 1000, 0) == 200);
  CHECK(retained_positions(Method::h2o, s, 1001, 0) == 201);
  CHECK(retained_positions(Method::snapkv, s, 8000, 500) == 1024 + 500);
  CHECK(retained_positions(Method::snapkv, s, 600, 500) == 1100);
  CHECK(retained_positions(Method::cachegen, s, 10, 5) == 15);
}

TEST_CASE("work with and without a cache", "[kv][work]") {
  const auto w = projection_work(0, 50);
  CHECK(w.without_cache == 1275);
  CHECK(w.with_cache == 50);
  CHECK(w.reads == 1225);
  CHECK(reads_at_step(0, 6) == 5);
  CHECK(positions_after_step(1000, 3) == 1003);
  const auto p = projection_work(10, 3);
  CHECK(p.without_cache == 11 + 12 + 13);
  CHECK(p.with_cache == 13);
}

TEST_CASE("a transfer costs latency plus bytes over bandwidth", "[kv][offload]") {
  const Tier nvme{"nvme", from_base<Bytes>(4e12), from_base<BytesPerSecond>(13e9), from_base<Seconds>(50e-6)};
  CHECK(transfer_time(nvme, from_base<Bytes>(13e9)).value() == Approx(1.00005));
  CHECK(transfer_time(nvme, from_base<Bytes>(0), 10).value() == Approx(500e-6));
  const Tier small{"hbm", from_base<Bytes>(80e9), from_base<BytesPerSecond>(3.35e12), from_base<Seconds>(500e-9)};
  CHECK(first_fit({small, nvme}, from_base<Bytes>(100e9)) == 1);
  CHECK(first_fit({small, nvme}, from_base<Bytes>(10e12)) == -1);
}

TEST_CASE("the block pool hands out never-used blocks in id order, then freed ones in the order they were freed", "[kv][blocks]") {
  kv::BlockAllocator pool(6);
  std::vector<std::int32_t> a;
  REQUIRE(pool.allocate_into(a, 4));
  CHECK(a == std::vector<std::int32_t>{0, 1, 2, 3});
  CHECK_FALSE(pool.allocate_into(a, 3));  // two free: nothing taken
  CHECK(pool.free_blocks() == 2);
  pool.release(std::vector<std::int32_t>{2, 0});
  pool.release(3);
  CHECK(pool.refcount(0) == 0);
  CHECK(pool.refcount(1) == 1);
  CHECK(pool.refcount(5) == 0);  // never handed out
  std::vector<std::int32_t> b;
  REQUIRE(pool.allocate_into(b, 5));
  CHECK(b == std::vector<std::int32_t>{4, 5, 2, 0, 3});
  CHECK_FALSE(pool.allocate().has_value());
  CHECK(pool.stats().allocations == 9);
  CHECK(pool.stats().reuses == 3);
  CHECK(pool.stats().frees == 3);
  CHECK(pool.stats().peak_used == 6);
  // Shared blocks return at their last reference; a block released once too often is a bug.
  pool.retain(4);
  pool.release(4);
  CHECK(pool.refcount(4) == 1);
  pool.release(4);
  CHECK_THROWS_AS(pool.release(4), std::logic_error);
  // The free list grows past its first ring and keeps its order.
  kv::BlockAllocator big(1000);
  std::vector<std::int32_t> all;
  REQUIRE(big.allocate_into(all, 1000));
  for (std::int32_t i = 999; i >= 0; --i) big.release(i);
  for (std::int32_t i = 999; i >= 0; --i) CHECK(*big.allocate() == i);
}

TEST_CASE("a counted pool shows the counters of a pool that names its blocks", "[kv][blocks]") {
  std::mt19937_64 rng(11);
  for (std::int64_t total : {1, 40, 300}) {
    kv::BlockAllocator named(total);
    kv::BlockCount counted(total);
    std::vector<std::vector<std::int32_t>> held;
    for (int op = 0; op < 5000; ++op) {
      if (held.empty() || rng() % 3 != 0) {
        const auto n = static_cast<std::int64_t>(rng() % 12);
        std::vector<std::int32_t> blocks;
        const bool ok = named.allocate_into(blocks, n);
        REQUIRE(counted.take(n) == ok);
        if (ok) held.push_back(std::move(blocks));
      } else {
        const std::size_t i = rng() % held.size();
        named.release(held[i]);
        counted.release(static_cast<std::int64_t>(held[i].size()));
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      }
      REQUIRE(counted.used_blocks() == named.used_blocks());
    }
    CHECK(named.stats().reuses > 0);
    CHECK(counted.stats().allocations == named.stats().allocations);
    CHECK(counted.stats().reuses == named.stats().reuses);
    CHECK(counted.stats().frees == named.stats().frees);
    CHECK(counted.stats().peak_used == named.stats().peak_used);
  }
}
