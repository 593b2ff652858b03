// Human and machine formatting: significant digits, prefixes, preferred units, re-prefixing after rounding.
#include <catch2/catch.hpp>

#include <charconv>
#include <cstdint>
#include <vector>

#include "units/format.hpp"

using namespace infracalc;

namespace {
std::string h(const char* text, FormatOptions opt = {}) {
  auto q = parse_quantity(text);
  REQUIRE(q.ok());
  return format_human(*q, opt);
}
}  // namespace

TEST_CASE("human output uses four significant digits and engineering prefixes", "[units][format]") {
  CHECK(h("140 GB") == "140 GB");
  CHECK(h("327680 B") == "327.7 kB");
  CHECK(h("2621440000 B") == "2.621 GB");
  CHECK(h("3.35 TB/s") == "3.35 TB/s");
  CHECK(h("989.4 TFLOP/s") == "989.4 TFLOP/s");
  CHECK(h("700 W") == "700 W");
  CHECK(h("132000 W") == "132 kW");
  CHECK(h("0.041791 s") == "41.79 ms");
  CHECK(h("5e-7 s") == "500 ns");
  CHECK(h("90 s") == "1.5 min");
  CHECK(h("18000 s") == "5 h");
  CHECK(h("3845214.84 s") == "44.5 d");
  CHECK(h("2 yr") == "2 yr");
  CHECK(h("1 kWh") == "1 kWh");
  CHECK(h("6136.2 kWh") == "6.136 MWh");
  CHECK(h("10 J") == "10 J");
  CHECK(h("$2.48/h") == "$2.48/h");
  CHECK(h("$0.2444/Mtok") == "$0.2444/Mtok");
  CHECK(h("$8747000") == "$8.747M");
  CHECK(h("$40000") == "$40k");
  CHECK(h("$0.08/kWh") == "$0.08/kWh");
  CHECK(h("86 W/cm2") == "86 W/cm2");
  CHECK(h("814 mm2") == "814 mm2");
  CHECK(h("190 L/min") == "190 L/min");
  CHECK(h("30 degC") == "30 degC");
  CHECK(h("10 K") == "10 K");
  CHECK(h("8000 tok") == "8,000 tok");
  CHECK(h("2500 tok/s") == "2.5 ktok/s");
  CHECK(h("65536") == "65,536");
  CHECK(h("0.4") == "0.4");
  CHECK(h("6.3e24 FLOP") == "6.3e24 FLOP");
}

TEST_CASE("request and event rates print per second, never in hertz", "[units][format]") {
  // Issue 19 item 16: `serve capacity` printed 0.3 requests per second as "300 mHz" (read as megahertz).
  for (const char* rate : {"0.3/s", "18/min", "300 mHz", "720 Hz", "21.6/s", "12207031.25/s", "3000/h", "1e-5/s", "0/s"}) {
    auto q = parse_quantity(rate);
    REQUIRE(q.ok());
    const std::string shown = format_human(*q);
    INFO(rate << " shows as " << shown);
    CHECK(shown.find("Hz") == std::string::npos);
    CHECK(shown.ends_with("/s"));
    CHECK(shown.find(' ') == std::string::npos);  // no prefix, no space: "0.3/s", never "300 m/s"
    auto back = parse_quantity(shown);            // what is printed reads back as the same rate
    REQUIRE(back.ok());
    CHECK(back->dim == q->dim);
    CHECK(back->value == Approx(q->value).epsilon(1e-3));
  }
  CHECK(h("300 mHz") == "0.3/s");
  CHECK(h("720 Hz") == "720/s");
  // A clock or a signal still prints in hertz when its output asks for it.
  auto nyquist = parse_quantity("16 GHz");
  REQUIRE(nyquist.ok());
  CHECK(format_human(*nyquist, {}, "Hz") == "16 GHz");
}

TEST_CASE("rounding never leaves 1000 before a prefix", "[units][format]") {
  CHECK(h("999.99 GB") == "1 TB");
  CHECK(h("999.96 W") == "1 kW");
  CHECK(h("59.999 s") == "1 min");
}

TEST_CASE("whole numbers within the digits print as they are; longer ones are rounded", "[units][format]") {
  CHECK(h("2 B") == "2 B");
  CHECK(h("-7 s") == "-7 s");
  CHECK(h("999 W") == "999 W");
  CHECK(h("9999 W") == "9.999 kW");
  FormatOptions three;
  three.digits = 3;
  CHECK(h("999 W", three) == "999 W");
  CHECK(h("9999 W", three) == "10 kW");
  CHECK(h("1234 W", three) == "1.23 kW");
  FormatOptions one;
  one.digits = 1;
  CHECK(h("7 s", one) == "7 s");
}

TEST_CASE("binary prefixes on request", "[units][format]") {
  FormatOptions bin;
  bin.binary = true;
  CHECK(h("2684354560 B", bin) == "2.5 GiB");
  CHECK(h("327680 B", bin) == "320 KiB");
  CHECK(h("1023.99 GiB", bin) == "1 TiB");
}

TEST_CASE("digits option", "[units][format]") {
  FormatOptions two;
  two.digits = 2;
  CHECK(h("2621440000 B", two) == "2.6 GB");
  FormatOptions six;
  six.digits = 6;
  CHECK(h("2621440000 B", six) == "2.62144 GB");
}

TEST_CASE("hints pick the display unit", "[units][format]") {
  auto q = parse_quantity("400 Gb/s");
  REQUIRE(q.ok());
  CHECK(format_human(*q, {}, "b/s") == "400 Gb/s");
  auto t = parse_quantity("$80/MWh");
  REQUIRE(t.ok());
  CHECK(format_human(*t, {}, "$/MWh") == "$80.00/MWh");
}

TEST_CASE("machine output round-trips", "[units][format]") {
  CHECK(format_machine(327680) == "327680");
  CHECK(format_machine(0.1) == "0.1");
  CHECK(std::stod(format_machine(1.0 / 3.0)) == 1.0 / 3.0);
  CHECK(base_unit_string(dims::data_rate) == "B/s");
  CHECK(base_unit_string(dims::power) == "W");
  CHECK(base_unit_string(dims::energy_per_token) == "J/tok");
  CHECK(base_unit_string(dims::money_per_token) == "USD/tok");
  CHECK(base_unit_string(dims::none) == "1");
}

TEST_CASE("machine output of whole numbers is std::to_chars's, digit for digit", "[units][format]") {
  // append_machine writes whole numbers from their integer digits; it must choose fixed or scientific exactly as
  // the shortest round-trip form does.
  auto reference = [](double v) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, r.ptr);
  };
  std::vector<double> values = {1, -1, 7, 10, 100, 1000, 10000, 100000, 1e6, 1e7, 1.2e7, 120000, 1200000, 12345000,
                                -1e6, -120000, 1e14, 9.99e14, 999999999999999, -999999999999999, 1e15, 123456789012345,
                                327680, 80, 8192, 2.5e11, 3e11, 140e9, 1099511627776, 0.5, -0.0, 0.0, 1e15 - 1, 4503599627370497.0};
  std::uint64_t x = 88172645463325252ull;  // xorshift: whole numbers of every length, many with trailing zeros
  for (int i = 0; i < 20000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    const int digits = static_cast<int>(x % 16);
    double v = static_cast<double>((x >> 8) % 1000);
    for (int d = 0; d < digits; ++d) v *= 10;
    values.push_back((x & 1) ? -v : v);
  }
  for (double v : values) {
    INFO(reference(v));
    CHECK(format_machine(v) == reference(v));
  }
}

TEST_CASE("conversions with ->", "[units][format]") {
  auto q = parse_quantity("192 GiB");
  auto u = parse_unit("GB");
  REQUIRE(q.ok());
  REQUIRE(u.ok());
  CHECK(format_in_unit(*q, *u, 4) == "206.2 GB");
  auto w = parse_unit("W");
  REQUIRE(w.ok());
  CHECK_THROWS_AS(format_in_unit(*q, *w, 4), UserError);
}

TEST_CASE("money reads k, M, B, T and large amounts in unprefixed units keep separators (issue 20, item 9)", "[units][format]") {
  CHECK(format_human(Quantity{30e9, dims::currency, false}) == "$30B");
  CHECK(format_human(Quantity{2.5e12, dims::currency, false}) == "$2.5T");
  CHECK(format_human(Quantity{4.2e6, dims::currency, false}) == "$4.2M");
  // 416,831,798 US gallons (a 100 MW site's yearly water at 1.8 L/kWh), shown in gal as cooling results ask.
  const Quantity water{416831798 * 3.785411784e-3, dims::volume, false};
  CHECK(format_human(water, FormatOptions{}, "gal") == "416,831,798 gal");
  CHECK(format_human(Quantity{9999 * 3.785411784e-3, dims::volume, false}, FormatOptions{}, "gal") == "9999 gal");
}
