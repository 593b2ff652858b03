// The calc expression evaluator.
#include <catch2/catch.hpp>

#include "units/expr.hpp"
#include "units/format.hpp"

using namespace infracalc;

namespace {
std::string calc(const char* e) {
  auto r = evaluate(e);
  if (!r) return "error: " + r.error().text();
  if (r->target) {
    try {
      return format_in_unit(r->value, *r->target, 4);
    } catch (const UserError& err) {
      return "error: " + err.error.text();
    }
  }
  FormatOptions f;
  f.binary = r->binary;
  return format_human(r->value, f);
}
}  // namespace

TEST_CASE("calc examples from the design", "[units][calc]") {
  CHECK(calc("140 GB / (3.35 TB/s)") == "41.79 ms");
  CHECK(calc("70e9 * 2 B") == "140 GB");
  CHECK(calc("700 W * 1 yr -> MWh") == "6.136 MWh");
  CHECK(calc("192 GiB -> GB") == "206.2 GB");
  const std::string err = calc("3 W + 2 GB");
  CHECK_THAT(err, Catch::Contains("a power"));
  CHECK_THAT(err, Catch::Contains("an amount of data"));
}

TEST_CASE("operators, functions and precedence", "[units][calc]") {
  CHECK(calc("2 + 3 * 4") == "14");
  CHECK(calc("(2 + 3) * 4") == "20");
  CHECK(calc("2^10") == "1,024");
  CHECK(calc("-2^2") == "-4");
  CHECK(calc("ceil(140 GB / (80 GB))") == "2");
  CHECK(calc("floor(7 / 2)") == "3");
  CHECK(calc("sqrt(16 m2)") == "4 m");
  CHECK(calc("min(3 GB, 2 GiB)") == "2 GiB");
  CHECK(calc("max(1 s, 2 ms)") == "1 s");
  CHECK(calc("8Ki * 327680 B") == "2.5 GiB");
  CHECK(calc("$2.20/h / (2500 tok/s)") == "$0.2444/Mtok");
  CHECK(calc("64^3/4") == "65,536");
  CHECK(calc("30 degC + 10 K") == "40 degC");
  CHECK(calc("30 degC - 20 degC") == "10 K");
  CHECK(calc("140 GB \u00F7 80 GB \u00D7 1") == "1.75");
}

TEST_CASE("calc errors", "[units][calc]") {
  CHECK_THAT(calc("1 GB / 0"), Catch::Contains("division by zero"));
  CHECK_THAT(calc("ceil(3 GB)"), Catch::Contains("plain number"));
  CHECK_THAT(calc("sqrt(2 m)"), Catch::Contains("sqrt"));
  CHECK_THAT(calc("2 * (3 + 4"), Catch::Contains("missing ')'"));
  CHECK_THAT(calc("5 W -> GB"), Catch::Contains("cannot convert"));
  CHECK_THAT(calc("30 degC * 2"), Catch::Contains("temperature point"));
  CHECK_THAT(calc("1e308 * 1e308"), Catch::Contains("finite"));
  CHECK_THAT(calc("3 GB ? 2"), Catch::Contains("unexpected character"));
  CHECK_THAT(calc("min(3)"), Catch::Contains("at least 2"));
  CHECK_THAT(calc(""), Catch::Contains("ends too early"));
}
