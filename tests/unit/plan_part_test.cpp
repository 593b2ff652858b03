// Sweep parts (plan --shard K/N, plan merge): the shards cut the grid into consecutive ranges that cover it once,
// and a row written to a part reads back bit for bit (infinities, NaN, temperature points, text, empty cells).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "plan/plan_part.hpp"
#include "units/expected.hpp"
#include "units/parse.hpp"

using namespace infracalc;
using namespace infracalc::plan;

TEST_CASE("the shards of a grid are consecutive, cover it once and differ in size by at most one", "[plan]") {
  for (std::size_t points : {0UL, 1UL, 7UL, 100UL, 2100UL, 20'000'000UL})
    for (std::size_t shards : {1UL, 2UL, 3UL, 7UL, 12UL, 1000UL, 100'000UL}) {
      std::size_t next = 0, smallest = points, largest = 0;
      for (std::size_t k = 1; k <= shards; ++k) {
        const auto [first, end] = shard_range(points, k, shards);
        REQUIRE(first == next);
        REQUIRE(end >= first);
        smallest = std::min(smallest, end - first);
        largest = std::max(largest, end - first);
        next = end;
      }
      INFO(points << " points in " << shards << " shards");
      CHECK(next == points);
      CHECK(largest - smallest <= 1);
    }
}

TEST_CASE("a shard is read strictly as K/N", "[plan]") {
  CHECK(parse_shard("1/1") == std::pair<std::size_t, std::size_t>{1, 1});
  CHECK(parse_shard("7/8") == std::pair<std::size_t, std::size_t>{7, 8});
  for (const char* bad : {"0/3", "4/3", "1/0", "1/", "/3", "1/3x", " 1/3", "1/-3", "-1/3", "1/100001", "18446744073709551617/2", "3", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_shard(bad), UserError);
  }
}

TEST_CASE("a part's rows read back exactly", "[plan]") {
  namespace fs = std::filesystem;
  const fs::path path = fs::temp_directory_path() / ("infracalc_part_test_" + std::to_string(::getpid()) + ".jsonl");
  PartHeader h;
  h.plan = "plan \"quoted\".toml";
  h.plan_digest = digest("abc");
  h.sets = {"workload.rate=5/s"};
  h.sweeps = {"batch=8,16", "site.tariff=$0.05/kWh..$0.15/kWh:3"};
  h.pareto = "cost_per_mtok,tpot";
  h.version = "test";
  h.shard = 2;
  h.shards = 3;
  h.points = 6;
  std::tie(h.first, h.end) = shard_range(h.points, h.shard, h.shards);

  SweepRow a;
  a.point = h.first;
  a.labels = {"8", "$0.05/kWh"};
  Quantity temperature = parse_quantity("35 degC").value_or_throw();
  a.values = {parse_quantity("70.55 GB").value_or_throw(), Quantity::number(0.1 + 0.2), temperature, std::nullopt,
              std::string("dgx-h100 \"SXM\"\n"), Quantity::number(HUGE_VAL), Quantity::number(-HUGE_VAL)};
  a.failed = "tpot_target;fits";
  SweepRow b;
  b.point = h.first + 1;
  b.labels = {"16", "$0.10/kWh"};
  b.values = {parse_quantity("1e-300 s").value_or_throw(), Quantity::number(std::nan("")), Quantity::number(-0.0), Quantity::number(-std::nan("")),
              std::string(), Quantity::number(5e-324), parse_quantity("2.5e15 FLOP/s").value_or_throw()};
  b.error = "step serve: it failed";
  PartTrailer t;
  t.rows = 2;
  t.counts.points = 2;
  t.counts.checked = 1;
  t.counts.errored = 1;
  t.counts.first_error = b.error;
  t.counts.by_check = {{"tpot_target", 1}, {"fits", 1}};
  t.runs = 3;
  t.hits = 4;
  {
    std::string text;
    append_part_header(text, h);
    append_part_row(text, a);
    append_part_row(text, b);
    append_part_trailer(text, t);
    std::ofstream(path) << text;
  }
  PartReader r(path.string());
  CHECK(r.header().same_sweep(h));
  CHECK(r.header().first == h.first);
  CHECK(r.header().plan == h.plan);
  for (const SweepRow* want : {&a, &b}) {
    SweepRow got;
    REQUIRE(r.next(got, 2, 7));
    CHECK(got.point == want->point);
    CHECK(got.labels == want->labels);
    CHECK(got.failed == want->failed);
    CHECK(got.error == want->error);
    REQUIRE(got.values.size() == want->values.size());
    for (std::size_t i = 0; i < got.values.size(); ++i) {
      INFO("value " << i);
      REQUIRE(got.values[i].has_value() == want->values[i].has_value());
      if (!got.values[i]) continue;
      REQUIRE(got.values[i]->index() == want->values[i]->index());
      if (const auto* q = std::get_if<Quantity>(&*got.values[i])) {
        const auto& w = std::get<Quantity>(*want->values[i]);
        CHECK(q->dim == w.dim);
        CHECK(q->point == w.point);
        // Bit for bit: the same double, the sign of zero and NaN included.
        CHECK(std::memcmp(&q->value, &w.value, sizeof(double)) == 0);
      } else {
        CHECK(std::get<std::string>(*got.values[i]) == std::get<std::string>(*want->values[i]));
      }
    }
  }
  SweepRow end;
  CHECK_FALSE(r.next(end, 2, 7));
  CHECK(r.trailer().rows == 2);
  CHECK(r.trailer().counts.checked == 1);
  CHECK(r.trailer().counts.first_error == b.error);
  CHECK(r.trailer().counts.by_check == t.counts.by_check);
  CHECK(r.trailer().runs == 3);
  fs::remove(path);
}
