#include "units/quantity.hpp"

#include <cmath>

#include "units/dim_check.hpp"
#include "units/expected.hpp"

namespace infracalc {

namespace {
[[noreturn]] void mismatch(const char* op, const Quantity& a, const Quantity& b) {
  throw UserError{{std::string("cannot ") + op + " " + dim_words(a.dim) + " (" + dim_formula(a.dim) + ") and " +
                       dim_words(b.dim) + " (" + dim_formula(b.dim) + ")",
                   "both sides must have the same dimension; convert or rewrite one side"}};
}
void no_points(const Quantity& a, const char* op) {
  if (a.point)
    throw UserError{{std::string("cannot ") + op + " a temperature point (degC)",
                     "subtract two temperatures to get a difference in K first"}};
}
// a.dim^na · b.dim^nb, with the exponents checked; `op` names the operation in the error.
Dim combined(const Quantity& a, int na, const Quantity& b, int nb, const char* op) {
  if (dims_fit(a.dim, na, b.dim, nb)) return a.dim.pow(na) * b.dim.pow(nb);
  const std::string what = nb == 0 ? "(" + dim_formula(a.dim) + ")^" + std::to_string(na)
                                   : std::string("the ") + op + " of " + dim_formula(a.dim) + " and " + dim_formula(b.dim);
  throw UserError{dim_range_error(a.dim, na, b.dim, nb, what)};
}
Quantity checked(Quantity q) {
  if (!std::isfinite(q.value))
    throw UserError{{"the result is not a finite number (overflow or an undefined operation)",
                     "check the magnitudes of the inputs"}};
  return q;
}
}  // namespace

Quantity add(const Quantity& a, const Quantity& b) {
  if (a.dim != b.dim) mismatch("add", a, b);
  if (a.point && b.point)
    throw UserError{{"cannot add two temperature points", "a point plus a difference (K) is a point"}};
  return checked({a.value + b.value, a.dim, a.point || b.point});
}

Quantity subtract(const Quantity& a, const Quantity& b) {
  if (a.dim != b.dim) mismatch("subtract", a, b);
  if (!a.point && b.point)
    throw UserError{{"cannot subtract a temperature point from a difference", "write point − point or point − K"}};
  return checked({a.value - b.value, a.dim, a.point && !b.point});
}

Quantity multiply(const Quantity& a, const Quantity& b) {
  no_points(a, "multiply");
  no_points(b, "multiply");
  return checked({a.value * b.value, combined(a, 1, b, 1, "product"), false});
}

Quantity divide(const Quantity& a, const Quantity& b) {
  no_points(a, "divide");
  no_points(b, "divide");
  if (b.value == 0.0) throw UserError{{"division by zero", "the divisor evaluates to 0"}};
  return checked({a.value / b.value, combined(a, 1, b, -1, "quotient"), false});
}

Quantity power(const Quantity& a, double n) {
  no_points(a, "raise");
  if (!a.dim.dimensionless()) {
    if (n != std::round(n) || std::fabs(n) > 8)
      throw UserError{{"a quantity with a dimension can only be raised to a small whole power",
                       "use sqrt() for square roots, or make the base dimensionless"}};
    return checked({std::pow(a.value, n), combined(a, static_cast<int>(n), Quantity{}, 0, "power"), false});
  }
  return checked({std::pow(a.value, n), a.dim, false});
}

}  // namespace infracalc
