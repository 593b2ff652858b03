// Hostile and extreme input to the unit-checked core: nesting limits instead of stack overflows, dimension
// exponents that never wrap, huge and tiny magnitudes in readable notation, suggestions ranked by real edits.
#include <catch2/catch.hpp>

#include <string>

#include "units/dim_check.hpp"
#include "units/expr.hpp"
#include "units/format.hpp"
#include "units/printable.hpp"
#include "units/suggest.hpp"

using namespace infracalc;

namespace {
std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}
std::string joined(const std::string& item, const std::string& sep, int n) {
  std::string out = item;
  for (int i = 1; i < n; ++i) out += sep + item;
  return out;
}
std::string limit_result(const std::string& e) {
  auto r = evaluate(e);
  if (!r) return "error: " + r.error().text();
  if (r->target) return format_in_unit(r->value, *r->target, 4);
  FormatOptions f;
  f.binary = r->binary;
  return format_human(r->value, f);
}
std::string human(double value, const Dim& dim, FormatOptions opt = {}) { return format_human(Quantity{value, dim, false}, opt); }
}  // namespace

TEST_CASE("deep nesting is an error, not a stack overflow", "[units][limits]") {
  CHECK_THAT(limit_result(repeat("(", 10000) + "1" + repeat(")", 10000)), Catch::Contains("nesting deeper than 256 levels"));
  CHECK_THAT(limit_result(repeat("sqrt(", 10000) + "1" + repeat(")", 10000)), Catch::Contains("nesting deeper than 256 levels"));
  CHECK_THAT(limit_result(repeat("-", 100000) + "1"), Catch::Contains("nesting deeper than 256 levels"));
  CHECK_THAT(limit_result(joined("2", "^", 10000)), Catch::Contains("nesting deeper than 256 levels"));
  CHECK_THAT(limit_result(repeat("(", 10000)), Catch::Contains("nesting deeper than 256 levels"));
  CHECK_THAT(limit_result("1 m -> " + repeat("(", 10000) + "m" + repeat(")", 10000)), Catch::Contains("nesting deeper than 256 levels"));
  // Just inside the limit still works.
  CHECK(limit_result(repeat("(", 200) + "2 m" + repeat(")", 200)) == "2 m");
  CHECK(limit_result("1 m -> " + repeat("(", 200) + "m" + repeat(")", 200)) == "1 " + repeat("(", 200) + "m" + repeat(")", 200));
}

TEST_CASE("an expression is bounded in size, so that evaluating it cannot overflow the stack", "[units][limits]") {
  CHECK(limit_result(joined("1", "+", 1000)) == "1,000");
  CHECK_THAT(limit_result(joined("1", "+", 100000)), Catch::Contains("the expression is too long"));
}

TEST_CASE("dimension exponents never wrap around", "[units][limits]") {
  // 130 metres in one unit: m^130 would wrap to m^-126 in an int8.
  CHECK_THAT(limit_result("1 " + joined("m", "*", 130)), Catch::Contains("dimension exponent out of range"));
  CHECK_THAT(limit_result("1 " + joined("m", "*", 130)), Catch::Contains("length^100"));
  // 256 products of 1 m would wrap to a plain number (and 2 after "+ 1").
  CHECK_THAT(limit_result(joined("1 m", " * ", 256) + " + 1"), Catch::Contains("dimension exponent out of range"));
  CHECK_THAT(limit_result(joined("1 m", " * ", 256) + " + 1"), Catch::Contains("product of length^99 and length"));
  // 3000 divisions by GB would end as B^74/s.
  CHECK_THAT(limit_result("1 GB/" + joined("GB", "/", 3000) + "/s"), Catch::Contains("dimension exponent out of range"));
  CHECK_THAT(limit_result("(1 m^9 * 1 m^9 * 1 m^9)^4"), Catch::Contains("dimension exponent out of range"));
  CHECK_THAT(limit_result("1 " + joined("m^9", "*", 12)), Catch::Contains("length^108"));
  CHECK_THAT(limit_result("$1/" + joined("h", "/", 120)), Catch::Contains("dimension exponent out of range"));
  CHECK_THAT(limit_result(joined("1 m", " / ", 120)), Catch::Contains("quotient"));
  // Large but legal exponents still compute.
  CHECK_FALSE(limit_result(joined("1 m", " * ", 99)).starts_with("error"));
  CHECK_FALSE(limit_result("1 " + joined("m", "*", 99)).starts_with("error"));
  CHECK(dims_fit(dims::length.pow(99), 1, dims::none, 0));
  CHECK_FALSE(dims_fit(dims::length.pow(99), 1, dims::length, 1));
  CHECK_FALSE(dims_fit(dims::length.pow(20), 8, dims::none, 0));
  CHECK(dims_fit(dims::length.pow(99), 1, dims::length.pow(99), -1));
  auto e = combine_dims(dims::time.pow(-60), 1, dims::time.pow(60), -1, "a test");
  REQUIRE_FALSE(e.ok());
  CHECK_THAT(e.error().message, Catch::Contains("dimension exponent out of range in a test: time^-120"));
}

TEST_CASE("numbers of 1e15 and more print in scientific notation on every path", "[units][limits][format]") {
  CHECK(limit_result("1e30 s") == "3.169e22 yr");
  CHECK(limit_result("1e30 GiB") == "9.313e20 EiB");
  CHECK(limit_result("1e30 GB") == "1e39 B");
  CHECK(limit_result("1e30 W") == "1e30 W");
  CHECK(limit_result("1e299 s") == "3.169e291 yr");
  CHECK(limit_result("1e40") == "1e40");
  CHECK(limit_result("1e30 tok") == "1e30 tok");
  CHECK(limit_result("$1e30") == "$1e30");
  CHECK(limit_result("$1e30/h") == "$1e30/h");
  CHECK(limit_result("1e30 s -> s") == "1e30 s");
  CHECK(limit_result("1e30 s -> h") == "2.778e26 h");
  CHECK(limit_result("$1e30 -> $") == "$1e30");
  FormatOptions bin;
  bin.binary = true;
  CHECK(human(1e36, dims::information, bin) == "8.674e17 EiB");
  FormatOptions six;
  six.digits = 6;
  CHECK(human(1e30, dims::time, six) == "3.16881e22 yr");
  CHECK(format_number(999999999999999.9, 4) == "1e15");
  CHECK(format_count(1e20, 4) == "1e20");
  CHECK(format_human(Quantity{1e20 + 273.15, dims::temperature, true}) == "1e20 degC");
  // Normal magnitudes are unchanged.
  CHECK(limit_result("1e14 s") == "3168809 yr");
  CHECK(limit_result("5e14") == "500000000000000");
  CHECK(limit_result("2 yr") == "2 yr");
  CHECK(limit_result("$8747000") == "$8.747M");
}

TEST_CASE("money below a tenth of a cent prints in fixed notation down to a millionth", "[units][limits][format]") {
  CHECK(human(6.772e-4, dims::currency) == "$0.0006772");
  CHECK(human(1.5e-6, dims::currency) == "$0.0000015");
  CHECK(human(9.9e-7, dims::currency) == "$9.9e-7");
  CHECK(human(-6.772e-4, dims::currency) == "-$0.0006772");
  CHECK(human(0.3 / 3600, dims::money_rate) == "$0.30/h");
  CHECK(human(2.2 / 3600 / 2500, dims::money_per_token) == "$0.2444/Mtok");
  CHECK(human(0.05, dims::currency) == "$0.05");
  CHECK(limit_result("$6.772e-4") == "$0.0006772");
}

TEST_CASE("suggestions rank a real one-edit typo before a fragment of a long name", "[units][limits][suggest]") {
  const std::vector<std::string_view> names = {"experts_per_token", "tokens", "model"};
  CHECK(closest_match("token", names) == "tokens");
  CHECK(did_you_mean("token", names) == "did you mean 'tokens' or 'experts_per_token'?");
  CHECK(did_you_mean("token", names, "--") == "did you mean '--tokens' or '--experts_per_token'?");
  CHECK(did_you_mean("modle", names, "--") == "did you mean '--model'?");
  CHECK(did_you_mean("zzzzzz", names, "--").empty());
  // Equally close fragments still list together, nearest first, then by name.
  const std::vector<std::string_view> gpus = {"h100-sxm", "h100-pcie", "h100-nvl", "a100-sxm"};
  CHECK(did_you_mean("h100", gpus) == "did you mean 'h100-nvl', 'h100-sxm' or 'h100-pcie'?");
}

TEST_CASE("a value that is no number gets an example of the expected kind", "[units][limits][parse]") {
  auto tp = parse_input("abc", {dims::none, false}, "--tp");
  REQUIRE_FALSE(tp.ok());
  CHECK_THAT(tp.error().hint, Catch::Contains("e.g. 8 or 0.5"));
  auto tariff = parse_input("kWh", {dims::money_per_energy, false}, "--tariff");
  REQUIRE_FALSE(tariff.ok());
  CHECK_THAT(tariff.error().hint, Catch::Contains("e.g. $0.08/kWh"));
  auto empty = parse_input("", {dims::time, false}, "--ttft");
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(empty.error().hint, Catch::Contains("e.g. 10 ms"));
  auto temp = parse_input("warm", {dims::temperature, true}, "--inlet");
  REQUIRE_FALSE(temp.ok());
  CHECK_THAT(temp.error().hint, Catch::Contains("degC"));
  // parse_quantity, which expects nothing in particular, keeps its generic example.
  CHECK_THAT(parse_quantity("abc").error().hint, Catch::Contains("80 GB"));
  // A sign after the dollar reads like one before it.
  auto neg = parse_quantity("$-0.08/kWh");
  REQUIRE(neg.ok());
  CHECK(neg->dim == dims::money_per_energy);
  CHECK(neg->value == Approx(-0.08 / 3.6e6));
  CHECK_FALSE(parse_quantity("-$-0.08").ok());
}

TEST_CASE("bytes in error messages are printable", "[units][limits]") {
  CHECK(printable("abc") == "abc");
  CHECK(printable("\xEF\xBB\xBF") == "U+FEFF");
  CHECK(printable("caf\xC3\xA9") == "cafU+00E9");
  CHECK(printable("\xEF") == "\\xEF");
  CHECK(printable("\x01\n") == "\\x01\\x0A");
  CHECK(printable("\xF0\x9F\x98\x80") == "U+1F600");
  CHECK(utf8_sequence_length("\xC3\xA9") == 2);
  CHECK(utf8_sequence_length("\xC3") == 0);
  CHECK(utf8_sequence_length("\x80") == 0);
  CHECK_THAT(limit_result("3 \x01 GB"), Catch::Contains("unexpected character '\\x01'"));
}
