// The calc expression evaluator.
#include <catch2/catch.hpp>

#include "units/expr.hpp"
#include "units/format.hpp"

using namespace infracalc;

namespace {
std::string expr_result(const char* e) {
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
  CHECK(expr_result("140 GB / (3.35 TB/s)") == "41.79 ms");
  CHECK(expr_result("70e9 * 2 B") == "140 GB");
  CHECK(expr_result("700 W * 1 yr -> MWh") == "6.136 MWh");
  CHECK(expr_result("192 GiB -> GB") == "206.2 GB");
  const std::string err = expr_result("3 W + 2 GB");
  CHECK_THAT(err, Catch::Contains("a power"));
  CHECK_THAT(err, Catch::Contains("an amount of data"));
}

TEST_CASE("operators, functions and precedence", "[units][calc]") {
  CHECK(expr_result("2 + 3 * 4") == "14");
  CHECK(expr_result("(2 + 3) * 4") == "20");
  CHECK(expr_result("2^10") == "1,024");
  CHECK(expr_result("-2^2") == "-4");
  CHECK(expr_result("ceil(140 GB / (80 GB))") == "2");
  CHECK(expr_result("floor(7 / 2)") == "3");
  CHECK(expr_result("sqrt(16 m2)") == "4 m");
  CHECK(expr_result("min(3 GB, 2 GiB)") == "2 GiB");
  CHECK(expr_result("max(1 s, 2 ms)") == "1 s");
  CHECK(expr_result("8Ki * 327680 B") == "2.5 GiB");
  CHECK(expr_result("$2.20/h / (2500 tok/s)") == "$0.2444/Mtok");
  CHECK(expr_result("64^3/4") == "65,536");
  CHECK(expr_result("30 degC + 10 K") == "40 degC");
  CHECK(expr_result("30 degC - 20 degC") == "10 K");
  CHECK(expr_result("140 GB \u00F7 80 GB \u00D7 1") == "1.75");
}

TEST_CASE("calc errors", "[units][calc]") {
  CHECK_THAT(expr_result("1 GB / 0"), Catch::Contains("division by zero"));
  CHECK_THAT(expr_result("ceil(3 GB)"), Catch::Contains("plain number"));
  CHECK_THAT(expr_result("sqrt(2 m)"), Catch::Contains("sqrt"));
  CHECK_THAT(expr_result("2 * (3 + 4"), Catch::Contains("missing ')'"));
  CHECK_THAT(expr_result("5 W -> GB"), Catch::Contains("cannot convert"));
  CHECK_THAT(expr_result("30 degC * 2"), Catch::Contains("temperature point"));
  CHECK_THAT(expr_result("1e308 * 1e308"), Catch::Contains("finite"));
  CHECK_THAT(expr_result("3 GB ? 2"), Catch::Contains("unexpected character"));
  CHECK_THAT(expr_result("min(3)"), Catch::Contains("at least 2"));
  CHECK_THAT(expr_result(""), Catch::Contains("ends too early"));
}

TEST_CASE("references resolve through a resolver, and expressions translate to spreadsheet formulas", "[units][calc]") {
  auto e = parse_expression("@price / (@rate * 1 s) * 1e6 tok * 1 s");
  REQUIRE(e.ok());
  CHECK(e->refs == std::vector<std::string>{"price", "rate"});
  const ExprResolver r = [](std::string_view name) -> std::optional<Quantity> {
    if (name == "price") return Quantity{2.2 / 3600, dims::money_rate, false};
    if (name == "rate") return Quantity{2500, dims::token_rate, false};
    return std::nullopt;
  };
  auto v = evaluate(*e, r);
  REQUIRE(v.ok());
  CHECK(v->dim == dims::currency);
  CHECK(v->value == Approx(2.2 / 3600 / 2500 * 1e6));
  auto missing = parse_expression("@nope * 2");
  REQUIRE(missing.ok());
  CHECK_FALSE(evaluate(*missing, r).ok());
  // Cells at scale 1 (shown in base units): the formula is the expression with base-unit literals.
  const SpreadsheetTerm f = to_spreadsheet_formula(*e, [](std::string_view n) { return SpreadsheetTerm{n == "price" ? "B2" : "B3", 1}; });
  CHECK(f.text == "(((B2/(B3*1))*1000000)*1)");
  CHECK(f.scale == 1);
  auto c = parse_expression("ceil(@n / 8) + max(1, 2)");
  REQUIRE(c.ok());
  CHECK(to_spreadsheet_formula(*c, [](std::string_view) { return SpreadsheetTerm{"A1", 1}; }).text == "(CEILING((A1/8),1)+MAX(1,2))");
}

TEST_CASE("spreadsheet formulas carry the scale of cells shown in display units, and write factors the short way round", "[units][calc]") {
  // price in $/h (1/3600 $/s per unit), rate in tok/s: the product keeps one scale instead of converting each operand.
  auto e = parse_expression("@price / @rate * 1e6 tok");
  REQUIRE(e.ok());
  const SpreadsheetTerm t = to_spreadsheet_formula(*e, [](std::string_view n) {
    return n == "price" ? SpreadsheetTerm{"B2", 1.0 / 3600} : SpreadsheetTerm{"B3", 1};
  });
  CHECK(t.text == "((B2/B3)*1000000)");
  CHECK(t.scale == Approx(1.0 / 3600));
  // Shown in $/Mtok (1e-6 $ per unit): ((B2/B3)*1000000) * (1/3600) / 1e-6.
  CHECK(scaled_formula(t, t.scale / 1e-6) == "(((B2/B3)*1000000)/0.0036)");
  CHECK(scaled_formula({"B4", 1}, 1.0 / 3600) == "(B4/3600)");
  CHECK(scaled_formula({"B4", 1}, 3600) == "(B4*3600)");
  CHECK(scaled_formula({"B4", 1}, 1e-6) == "(B4/1000000)");
  CHECK(scaled_formula({"B4", 1}, 1.0 / 3600 * 3600) == "B4");
  // A sum brings the right operand to the left one's scale; rounding works on base-unit values.
  auto sum = parse_expression("@a + @b");
  REQUIRE(sum.ok());
  const SpreadsheetTerm s = to_spreadsheet_formula(*sum, [](std::string_view n) {
    return n == "a" ? SpreadsheetTerm{"A1", 1000} : SpreadsheetTerm{"A2", 1};
  });
  CHECK(s.text == "(A1+(A2/1000))");
  CHECK(s.scale == 1000);
  auto round = parse_expression("ceil(@a)");
  REQUIRE(round.ok());
  const SpreadsheetTerm r = to_spreadsheet_formula(*round, [](std::string_view) { return SpreadsheetTerm{"A1", 1000}; });
  CHECK(r.text == "CEILING((A1*1000),1)");
  CHECK(r.scale == 1);
  CHECK(spreadsheet_number(3600) == "3600");
  CHECK(spreadsheet_number(1e-6) == "1E-06");
  CHECK(spreadsheet_number(1.0 / 3600) == "0.000277777777778");
  CHECK(spreadsheet_number(31557600) == "31557600");
}

TEST_CASE("a temperature point takes its sign as part of the reading; other operations on a point are errors", "[units][calc]") {
  CHECK(expr_result("-10 degC") == "-10 degC");
  const auto minus_ten = evaluate("-10 degC");
  REQUIRE(minus_ten.ok());
  CHECK(minus_ten->value.point);
  CHECK(minus_ten->value.value == Approx(263.15));
  CHECK(expr_result("- 40 degC + 5 K") == "-35 degC");
  CHECK(expr_result("20 degC - -10 degC") == "30 K");
  CHECK(expr_result("min(-10 degC, 5 degC)") == "-10 degC");
  CHECK(expr_result("max(-10 degC, -20 degC)") == "-10 degC");
  CHECK(expr_result("-10 K") == "-10 K");
  CHECK(expr_result("-2^2") == "-4");
  CHECK(expr_result("abs(-10 degC - 5 degC)") == "15 K");
  CHECK_THAT(expr_result("-(10 degC)"), Catch::Contains("cannot negate a temperature point"));
  CHECK_THAT(expr_result("-(30 degC + 10 K)"), Catch::Contains("cannot negate a temperature point"));
  for (const char* f : {"abs", "sqrt", "ceil", "floor", "round"}) {
    INFO(f);
    const std::string err = expr_result((std::string(f) + "(-10 degC)").c_str());
    CHECK_THAT(err, Catch::Contains(std::string(f) + "() of a temperature point"));
    CHECK_THAT(err, Catch::Contains("hint:"));
  }
  CHECK_THAT(expr_result("min(20 degC, 5 K)"), Catch::Contains("compares temperature points (degC) with temperature differences (K)"));
}

TEST_CASE("calc knows Fahrenheit, BTU, refrigeration tons, US gpm and time words (issue 20, item 8)", "[units][expr]") {
  auto value = [](const char* text) {
    auto r = evaluate(text);
    REQUIRE(r.ok());
    return r->value;
  };
  // 212 degF is 100 degC (373.15 K); -40 is the same reading on both scales.
  CHECK(value("212 degF").value == Approx(373.15));
  CHECK(value("212 degF").point);
  CHECK(value("-40 degF").value == Approx(value("-40 degC").value));
  CHECK(value("98.6 \u00B0F - 32 degF").value == Approx(37.0));
  // International Table BTU (NIST SP 811): 1 BTU/h = 0.29307107 W; a ton of refrigeration is 12,000 BTU/h.
  CHECK(value("1 BTU/h").value == Approx(0.29307107).epsilon(1e-8));
  CHECK(value("1 TR").value == Approx(3516.8528).epsilon(1e-7));
  CHECK(value("1 TR").dim == dims::power);
  // A US gallon per minute is 231 in^3 a minute.
  CHECK(value("1 gpm").value == Approx(231 * 0.0254 * 0.0254 * 0.0254 / 60));
  CHECK(value("1 gpm").value == Approx(value("1 gal/min").value));
  // Words for durations: a month is a twelfth of the Julian year.
  CHECK(value("3 days").value == Approx(3 * 86400.0));
  CHECK(value("2 weeks").value == Approx(value("14 d").value));
  CHECK(value("1 month").value == Approx(365.25 * 86400 / 12));
  CHECK(value("12 months").value == Approx(value("1 yr").value));
  CHECK(value("1 hour + 30 minutes").value == Approx(5400.0));
  CHECK(value("2 years").value == Approx(value("2 yr").value));
}

TEST_CASE("exp, ln, log10 and log2 take and give plain numbers", "[units][expr]") {
  auto value = [](const char* text) {
    auto r = evaluate(text);
    REQUIRE(r.ok());
    return r->value.value;
  };
  CHECK(value("exp(1)") == Approx(2.718281828459045));
  CHECK(value("ln(exp(2.5))") == Approx(2.5));
  CHECK(value("log10(1e6)") == Approx(6));
  CHECK(value("log2(1 GiB / (1 KiB))") == Approx(20));
  auto bad = evaluate("ln(2 m)");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("needs a plain number"));
  auto zero = evaluate("log2(0)");
  REQUIRE_FALSE(zero.ok());
  CHECK_THAT(zero.error().message, Catch::Contains("positive numbers only"));
  CHECK_FALSE(evaluate("log10(-1)").ok());
}
