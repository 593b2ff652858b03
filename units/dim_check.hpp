// Dimension arithmetic on dimensions built from user input (unit expressions, calc), with the exponents checked:
// Dim keeps int8 exponents, and m*m*...*m (130 times) must be an error, not m^-126.
#pragma once

#include <string_view>

#include "units/dim.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// Largest exponent magnitude of a dimension built from user input. Real units stay far below it; the headroom
/// keeps Dim's own (unchecked, int8) arithmetic on such a dimension, in display and error hints, from wrapping.
inline constexpr int kMaxExponent = 99;

/// True when every exponent of a^na · b^nb lies within ±kMaxExponent (computed in int: no wrap-around).
[[nodiscard]] constexpr bool dims_fit(const Dim& a, int na, const Dim& b, int nb) {
  bool ok = true;
  for (std::size_t i = 0; i < kBaseCount; ++i) {
    const int x = a.e[i] * na + b.e[i] * nb;
    ok = ok && x >= -kMaxExponent && x <= kMaxExponent;
  }
  return ok;
}

/// The error for a^na · b^nb when !dims_fit(): "dimension exponent out of range in WHAT: length^100", with the
/// allowed range in the hint. `what` names the expression, e.g. "unit 'm*m*m'" or "a product".
[[nodiscard]] Error dim_range_error(const Dim& a, int na, const Dim& b, int nb, std::string_view what);

/// a^na · b^nb, or dim_range_error() when an exponent leaves ±kMaxExponent.
[[nodiscard]] inline Expected<Dim> combine_dims(const Dim& a, int na, const Dim& b, int nb, std::string_view what) {
  if (!dims_fit(a, na, b, nb)) return dim_range_error(a, na, b, nb, what);
  return a.pow(na) * b.pow(nb);
}

}  // namespace infracalc
