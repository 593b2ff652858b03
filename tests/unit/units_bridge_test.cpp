// The meeting points of the compile-time and run-time layers.
#include <catch2/catch.hpp>

#include "units/bridge.hpp"

using namespace infracalc;

TEST_CASE("dim_of matches the run-time dimensions", "[units][bridge]") {
  STATIC_REQUIRE(dim_of<Bytes>() == dims::information);
  STATIC_REQUIRE(dim_of<BytesPerSecond>() == dims::data_rate);
  STATIC_REQUIRE(dim_of<Watts>() == dims::power);
  STATIC_REQUIRE(dim_of<Joules>() == dims::energy);
  STATIC_REQUIRE(dim_of<UsdPerHour>() == dims::money_rate);
  STATIC_REQUIRE(dim_of<UsdPerToken>() == dims::money_per_token);
  STATIC_REQUIRE(dim_of<FlopsPerSecond>() == dims::flop_rate);
  STATIC_REQUIRE(dim_of<TokensPerSecond>() == dims::token_rate);
  STATIC_REQUIRE(dim_of<KelvinPerWatt>() == dims::temperature / dims::power);
  STATIC_REQUIRE(dim_of<JoulesPerKilogramKelvin>() == dims::specific_heat);
  STATIC_REQUIRE(dim_of<Number>() == dims::none);
}

TEST_CASE("as<Q> checks the dimension and round-trips", "[units][bridge]") {
  auto q = parse_quantity("3.35 TB/s");
  REQUIRE(q.ok());
  const BytesPerSecond bw = as<BytesPerSecond>(*q, "--bandwidth");
  CHECK(bw.value() == 3.35e12);
  const Bytes weights = from_base<Bytes>(140e9);
  const Seconds t = weights / bw;
  CHECK(t.value() == Approx(0.041791));
  CHECK(to_quantity(t).dim == dims::time);
  CHECK_THROWS_AS(as<Watts>(*q, "--power"), UserError);
  try {
    (void)as<Watts>(*q, "--power");
  } catch (const UserError& e) {
    CHECK_THAT(e.error.message, Catch::Contains("--power"));
    CHECK_THAT(e.error.message, Catch::Contains("a power"));
  }
}

TEST_CASE("typed arithmetic gives the named types", "[units][bridge]") {
  const Watts p = from_base<Watts>(700);
  const Seconds s = from_base<Seconds>(3600);
  const Joules e = p * s;
  CHECK(e.value() == 700 * 3600.0);
  const UsdPerJoule tariff = from_base<UsdPerJoule>(0.08 / 3.6e6);
  const Usd bill = tariff * e;
  CHECK(bill.value() == Approx(0.056));
}
