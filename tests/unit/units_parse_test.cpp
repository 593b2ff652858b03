// Parser rules of the unit-checked core: accepted forms and rejections with hints.
#include <catch2/catch.hpp>

#include "units/parse.hpp"

using namespace infracalc;

namespace {

struct Accept {
  const char* text;
  double value;  // in base units
  Dim dim;
};

struct Reject {
  const char* text;
  const char* phrase;  // must appear in message or hint
};

}  // namespace

TEST_CASE("quantities that parse", "[units][parse]") {
  const Accept cases[] = {
      {"80 GB", 80e9, dims::information},
      {"80GB", 80e9, dims::information},
      {"192 GiB", 192.0 * 1073741824.0, dims::information},
      {"1 KiB", 1024, dims::information},
      {"1 kB", 1000, dims::information},
      {"1 MiB", 1048576, dims::information},
      {"1 TiB", 1099511627776.0, dims::information},
      {"1 PB", 1e15, dims::information},
      {"8 bit", 1, dims::information},
      {"400 Gb/s", 50e9, dims::data_rate},
      {"400 Gbit/s", 50e9, dims::data_rate},
      {"3.35 TB/s", 3.35e12, dims::data_rate},
      {"1 Mib", 131072, dims::information},
      {"10 ms", 0.01, dims::time},
      {"5 us", 5e-6, dims::time},
      {"5 \u00B5s", 5e-6, dims::time},
      {"2 min", 120, dims::time},
      {"1 h", 3600, dims::time},
      {"1 d", 86400, dims::time},
      {"1 wk", 604800, dims::time},
      {"1 yr", 31557600, dims::time},
      {"700 W", 700, dims::power},
      {"1.2 kW", 1200, dims::power},
      {"132 kW", 132000, dims::power},
      {"1 kWh", 3.6e6, dims::energy},
      {"8 TWh", 8 * 3.6e15, dims::energy},
      {"48 V", 48, dims::voltage},
      {"100 A", 100, dims::current},
      {"2 mohm", 0.002, dims::resistance},
      {"989.4 TFLOP/s", 989.4e12, dims::flop_rate},
      {"989.4 TFLOPS", 989.4e12, dims::flop_rate},
      {"6e24 FLOP", 6e24, dims::flop},
      {"1978.9 TOP/s", 1978.9e12, dims::flop_rate},
      {"2500 tok/s", 2500, dims::token_rate},
      {"15 Ttok", 15e12, dims::token},
      {"$2.50/h", 2.5 / 3600, dims::money_rate},
      {"$40000", 40000, dims::currency},
      {"$40k", 40000, dims::currency},
      {"$0.08/kWh", 0.08 / 3.6e6, dims::money_per_energy},
      {"$0.50/Mtok", 0.5e-6, dims::money_per_token},
      {"2.5 USD/h", 2.5 / 3600, dims::money_rate},
      {"128k", 128000, dims::none},
      {"8Ki", 8192, dims::none},
      {"1.5M", 1.5e6, dims::none},
      {"70e9", 70e9, dims::none},
      {"1_000_000", 1e6, dims::none},
      {"70%", 0.7, dims::none},
      {"50 ppm", 5e-5, dims::none},
      {"814 mm2", 814e-6, dims::area},
      {"86 W/cm2", 86e4, dims::heat_flux},
      {"1 m3", 1, dims::volume},
      {"59 L/min", 59e-3 / 60, dims::volume_flow},
      {"1 gal", 3.785411784e-3, dims::volume},
      {"30 psi", 30 * 6894.757293168361, dims::pressure},
      {"1 bar", 1e5, dims::pressure},
      {"100 kPa", 1e5, dims::pressure},
      {"10 K", 10, dims::temperature},
      {"4186 J/(kg*K)", 4186, dims::specific_heat},
      {"4186 J/kg/K", 4186, dims::specific_heat},
      {"997 kg/m3", 997, dims::density},
      {"400 g/kWh", 0.4 / 3.6e6, dims::carbon_intensity},
      {"5 pJ/bit", 5e-12 * 8, dims::energy_per_bit},
      {"1 kg*m^2/s^3", 1, dims::power},
      {"2 1/s", 2, dims::frequency},
      {"32 GT/s", 32e9, dims::frequency},
      {"12 in", 0.3048, dims::length},
      {"-5 W", -5, dims::power},
      {"1e-3 s", 1e-3, dims::time},
      {"  80 GB  ", 80e9, dims::information},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto q = parse_quantity(c.text);
    REQUIRE(q.ok());
    CHECK(q->dim == c.dim);
    CHECK(q->value == Approx(c.value).epsilon(1e-12));
    CHECK_FALSE(q->point);
  }
}

TEST_CASE("temperature points and differences", "[units][parse]") {
  auto p = parse_quantity("30 degC");
  REQUIRE(p.ok());
  CHECK(p->point);
  CHECK(p->value == Approx(303.15));
  auto d = parse_quantity("10 K");
  REQUIRE(d.ok());
  CHECK_FALSE(d->point);
  auto want_point = parse_input("30 degC", {dims::temperature, true}, "--supply");
  CHECK(want_point.ok());
  auto wrong = parse_input("10 K", {dims::temperature, true}, "--supply");
  REQUIRE_FALSE(wrong.ok());
  CHECK_THAT(wrong.error().hint, Catch::Contains("degC"));
  auto wrong2 = parse_input("30 degC", {dims::temperature, false}, "--delta-t");
  REQUIRE_FALSE(wrong2.ok());
  CHECK_THAT(wrong2.error().hint, Catch::Contains("K"));
}

TEST_CASE("quantities that are rejected, with a hint", "[units][parse]") {
  const Reject cases[] = {
      {"80 KB", "kB"},
      {"80 KB", "KiB"},
      {"80 Kb", "kb"},
      {"80 gb", "GB"},
      {"80 kw", "kW"},
      {"80 KW", "kW"},
      {"16 mb", "not allowed"},
      {"3 mtok", "not allowed"},
      {"3 GiW", "binary prefixes"},
      {"3 kh", "no prefix"},
      {"5 hr", "h"},
      {"1 y", "yr"},
      {"30 C", "degC"},
      {"86 F", "degF"},
      {"100 tokens", "tok"},
      {"3 foo", "unknown unit"},
      {"GB", "number"},
      {"", "empty"},
      {"3,350 GB/s", "3350"},
      {"1e400 B", "out of range"},
      {"nan", "finite"},
      {"inf W", "finite"},
      {"$1.8B", "1.8e9"},
      {"$5 W", "/UNIT"},
      {"3 GB/", "missing unit"},
      {"3 GB//s", "unexpected"},
      {"3 (GB", "missing ')'"},
      {"3 m^x", "exponent"},
      {"30 degC/s", "degC"},
      {"5 W 3", "unexpected"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    auto q = parse_quantity(c.text);
    REQUIRE_FALSE(q.ok());
    CHECK_THAT(q.error().text(), Catch::Contains(c.phrase));
  }
}

TEST_CASE("inputs check their dimension and explain the fix", "[units][parse]") {
  auto e = parse_input("4.8 TB", {dims::data_rate, false}, "--bandwidth");
  REQUIRE_FALSE(e.ok());
  CHECK_THAT(e.error().message, Catch::Contains("--bandwidth"));
  CHECK_THAT(e.error().message, Catch::Contains("a data rate"));
  CHECK_THAT(e.error().message, Catch::Contains("information/time"));
  CHECK_THAT(e.error().message, Catch::Contains("\"4.8 TB\""));
  CHECK(e.error().hint == "divide by a time");

  auto m = parse_input("10 W", {dims::energy, false}, "--energy");
  REQUIRE_FALSE(m.ok());
  CHECK(m.error().hint == "multiply by a time");

  auto count = parse_input("70B", {dims::none, false}, "--params");
  REQUIRE_FALSE(count.ok());
  CHECK_THAT(count.error().hint, Catch::Contains("70e9"));

  auto bare = parse_input("3.35", {dims::data_rate, false}, "--bandwidth");
  REQUIRE_FALSE(bare.ok());
  CHECK_THAT(bare.error().hint, Catch::Contains("add a unit"));

  auto tokens = parse_input("128k", {dims::token, false}, "--tokens");
  REQUIRE(tokens.ok());
  CHECK(tokens->dim == dims::token);
  CHECK(tokens->value == 128000);

  auto ki = parse_input("8Ki", {dims::token, false}, "--tokens");
  REQUIRE(ki.ok());
  CHECK(ki->value == 8192);

  auto flops = parse_input("6.3e24", {dims::flop, false}, "--flops");
  REQUIRE(flops.ok());
  CHECK(flops->dim == dims::flop);

  auto suffix_on_rate = parse_input("3k", {dims::data_rate, false}, "--bandwidth");
  CHECK_FALSE(suffix_on_rate.ok());
}

TEST_CASE("unit expressions", "[units][parse]") {
  auto u = parse_unit("TB/s");
  REQUIRE(u.ok());
  CHECK(u->factor == 1e12);
  CHECK(u->dim == dims::data_rate);
  auto b = parse_unit("GiB");
  REQUIRE(b.ok());
  CHECK(b->binary);
  auto c = parse_unit("J/(kg*K)");
  REQUIRE(c.ok());
  CHECK(c->dim == dims::specific_heat);
  auto d = parse_unit("$/Mtok");
  REQUIRE(d.ok());
  CHECK(d->factor == Approx(1e-6));
  CHECK(d->dim == dims::money_per_token);
}
