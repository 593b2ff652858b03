// The chip plugin: the formulas and the calculators' cross-checks (the golden cases hold the worked examples).
#include <catch2/catch.hpp>

#include <cmath>

#include "plugins/chip/chip_math.hpp"
#include "host/context.hpp"
#include "plugins/registry.hpp"
#include "tests/unit/calc_test_util.hpp"

using namespace infracalc;
using namespace calc_test;

TEST_CASE("peak rate is MACs per cycle x 2 x clock, and the implied clock inverts it", "[chip]") {
  const double macs = chip::chip_macs_per_cycle(132, 4, 512);
  const auto clock = from_base<PerSecond>(1.83e9);
  const FlopsPerSecond peak = chip::peak_rate(macs, 2, clock);
  CHECK(chip::implied_clock(peak, macs, 2).value() == Approx(clock.value()));
  CHECK(chip::systolic_macs(128, 128) * 4 == Approx(chip::chip_macs_per_cycle(1, 4, 16384)));
}

TEST_CASE("yield models agree for small lambda and Murphy sits above Poisson", "[chip]") {
  CHECK(chip::murphy_yield(0) == 1.0);
  CHECK(chip::murphy_yield(1e-9) == Approx(chip::poisson_yield(1e-9)));
  for (double l : {0.1, 0.5, 1.0, 3.0}) CHECK(chip::murphy_yield(l) > chip::poisson_yield(l));
  const auto d = from_base<chip::PerSquareMeter>(1000);
  const auto a = from_base<SquareMeters>(1e-6);
  CHECK(chip::defective_cores(1e6, d, a) == Approx(1e6 * (1 - std::exp(-1e-3))));
}

TEST_CASE("chip sram: more chips than the minimum add headroom, the minimum holds the weights", "[chip]") {
  const Result min = run("chip", "sram", {{"params", "70e9"}, {"dtype", "fp16"}, {"gpu", "groq-lpu"}});
  const double chips = value(min, "min_chips");
  CHECK(value(min, "headroom") >= 0);
  CHECK(value(min, "total_sram") - value(min, "weights") < value(min, "total_sram") / chips);
  const Result one_more = run("chip", "sram", {{"params", "70e9"}, {"dtype", "fp16"}, {"gpu", "groq-lpu"}, {"chips", std::to_string(static_cast<long>(chips) - 1)}});
  REQUIRE(!one_more.verdicts.empty());
  CHECK_FALSE(one_more.verdicts.front().ok);
}

TEST_CASE("chip peak notes a quoted peak that assumes another clock", "[chip]") {
  const Result r = run("chip", "peak", {{"gpu", "h100-sxm"}, {"matrix-units", "4"}, {"macs-per-clock", "512"}, {"clock", "1.6GHz"}});
  CHECK(value(r, "implied_clock") == Approx(1.83e9).epsilon(1e-3));
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("implies") != std::string::npos;
  CHECK(noted);
}
