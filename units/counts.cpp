#include "units/counts.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <string>

#include "units/expected.hpp"
#include "units/format.hpp"

namespace infracalc {

namespace {

[[noreturn]] void too_many(const CountOf& of, double most) {
  throw UserError{{fmt::format("{}: needs more than {} {}", of.driver, format_count(most, 4), of.what), std::string(of.hint)}};
}

}  // namespace

std::int64_t whole_count(double x, Rounding r, const CountOf& of, double most) {
  if (std::isnan(x))
    throw UserError{{fmt::format("{}: the number of {} is not a number (a zero or infinite input)", of.driver, of.what), std::string(of.hint)}};
  if (x < 0) throw UserError{{fmt::format("{}: gives a negative number of {} ({:.4g})", of.driver, of.what, x), std::string(of.hint)}};
  if (!std::isfinite(x) || x > most + 1) too_many(of, most);
  // Rounding noise in a ratio is a few ulps; the slack is capped so a large exact count is never moved.
  const double slack = std::min(1e-9 * std::max(1.0, x), 1e-3);
  const double n = r == Rounding::up ? std::ceil(x - slack) : std::floor(x + slack);
  if (n > most) too_many(of, most);
  return static_cast<std::int64_t>(std::max(0.0, n));
}

int whole_int(double x, Rounding r, const CountOf& of, double most) {
  return static_cast<int>(whole_count(x, r, of, std::min(most, static_cast<double>(std::numeric_limits<int>::max()))));
}

std::int64_t count_product(std::int64_t a, std::int64_t b, const CountOf& of, double most) {
  return whole_count(static_cast<double>(a) * static_cast<double>(b), Rounding::up, of, most);
}

std::string divisors_text(std::int64_t n) {
  std::string out;
  std::int64_t d = 1;
  for (; d <= n && d <= 100'000 && out.size() < 100; ++d)
    if (n % d == 0) out += (out.empty() ? "" : ", ") + std::to_string(d);
  if (d <= n) out += fmt::format(", ..., {}", n);
  return out;
}

}  // namespace infracalc
