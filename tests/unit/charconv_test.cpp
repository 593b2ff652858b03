// The portable decimal conversions (units/charconv.cpp, what the WebAssembly build uses) against the standard
// library's std::from_chars and std::to_chars: the same text and the same errors, so a number the web page
// shows is the number the command line prints.
#include <catch2/catch.hpp>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "units/charconv.hpp"

using namespace infracalc;

namespace {

std::string std_shortest(double v) {
  char buf[64];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}
std::string portable_shortest(double v) {
  char buf[64];
  const auto r = portable_charconv::write_shortest(buf, buf + sizeof buf, v);
  REQUIRE(r.ec == std::errc());
  return std::string(buf, r.ptr);
}
std::string std_fixed(double v, int decimals) {
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("(too large)");
}
std::string portable_fixed(double v, int decimals) {
  char buf[400];
  const auto r = portable_charconv::write_fixed(buf, buf + sizeof buf, v, decimals);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("(too large)");
}

// The doubles the tests convert: powers of two and ten and their neighbours, whole numbers, numbers with a few
// significant digits (what data files and flags hold), and random bit patterns across the whole range.
std::vector<double> sample_doubles() {
  std::vector<double> out = {0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1e15, 1e16, 1e-5, 1e-6, 1e-7, 123456789012345678.0,
                             std::numeric_limits<double>::max(), std::numeric_limits<double>::min(),
                             std::numeric_limits<double>::denorm_min(), 5e-324, 2.5, 0.125, 1e21, 1e22, 1e23, 9007199254740993.0};
  for (int e = -1074; e <= 1023; ++e) {
    const double p = std::ldexp(1.0, e);
    out.insert(out.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, 1e308), -p});
  }
  for (int e = -320; e <= 308; ++e) {
    const double p = std::pow(10.0, e);
    out.insert(out.end(), {p, std::nextafter(p, 0.0), std::nextafter(p, 1e308), 3 * p, 1.5 * p, 9.999 * p});
  }
  std::mt19937_64 rng(20261203);
  for (int i = 0; i < 200000; ++i) {
    const double v = std::bit_cast<double>(rng());
    if (std::isfinite(v)) out.push_back(v);
  }
  std::uniform_int_distribution<int> digits(1, 999999), power(-12, 15);
  for (int i = 0; i < 100000; ++i) out.push_back(digits(rng) * std::pow(10.0, power(rng)));
  for (int i = 0; i < 20000; ++i) out.push_back(static_cast<double>(static_cast<std::int64_t>(rng() >> (rng() % 64))));
  return out;
}

}  // namespace

TEST_CASE("the portable shortest text is std::to_chars's for every sampled double", "[core][charconv]") {
  std::size_t differ = 0;
  for (const double v : sample_doubles()) {
    const std::string expected = std_shortest(v), got = portable_shortest(v);
    if (expected != got && ++differ <= 10) FAIL_CHECK(expected << " written as " << got);
  }
  CHECK(differ == 0);
}

TEST_CASE("the portable fixed text is std::to_chars's, correctly rounded, ties and all", "[core][charconv]") {
  std::size_t differ = 0;
  std::mt19937_64 rng(7);
  std::vector<double> values = sample_doubles();
  values.resize(60000);
  for (const double v : {0.5, 1.5, 2.5, 0.125, 0.375, 1e300, 1.005, 2.675, -0.0, 1e-300})
    values.push_back(v);
  for (const double v : values)
    for (const int decimals : {0, 1, 2, 3, 6, 17, static_cast<int>(rng() % 40)}) {
      const std::string expected = std_fixed(v, decimals), got = portable_fixed(v, decimals);
      if (expected != got && ++differ <= 10) FAIL_CHECK(v << " with " << decimals << " decimals: " << expected << " written as " << got);
    }
  CHECK(differ == 0);
}

TEST_CASE("the portable reader accepts, ends and fails where std::from_chars does", "[core][charconv]") {
  std::vector<std::string> texts = {"0",      "-0",     "1e400",  "1e-400", "1e-310", "4.9e-324", "2e-324", "0e999",  "-1e400",
                                    "inf",    "-INF",   "Infinity", "nan",  "nan(123)", "1.5x",   "0x10",   "+1",     ".5",
                                    "5.",     "1e",     "1e+",    "1e-5z",  "00012",  "",         "-",      ".",      "e5",
                                    " 1",     "1,5",    "3_350",  "1.7976931348623157e308", "1.7976931348623159e308",
                                    "2.4703282292062328e-324", "0.000000000000000000000000000001e-300"};
  for (const double v : sample_doubles()) {
    if (texts.size() > 100000) break;
    texts.push_back(std_shortest(v));
    texts.push_back(std_fixed(v, 3));
  }
  std::size_t differ = 0;
  for (const std::string& t : texts) {
    double a = 42.0, b = 42.0;
    const auto ra = std::from_chars(t.data(), t.data() + t.size(), a);
    const auto rb = portable_charconv::read_double(t.data(), t.data() + t.size(), b);
    const bool same = ra.ec == rb.ec && ra.ptr == rb.ptr &&
                      (std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b)));
    if (!same && ++differ <= 10)
      FAIL_CHECK("'" << t << "': " << a << " (" << static_cast<int>(ra.ec) << ", " << ra.ptr - t.data() << ") read as " << b << " ("
                     << static_cast<int>(rb.ec) << ", " << rb.ptr - t.data() << ")");
  }
  CHECK(differ == 0);
}
