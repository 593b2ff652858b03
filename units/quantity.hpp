// The run-time quantity: a value in base units with its dimension, used for all text in and out.
#pragma once

#include <string>

#include "units/dim.hpp"

namespace infracalc {

/// A value in base units (m, kg, s, K, A, B, USD, tok, FLOP) with its dimension.
/// Temperature points (degC) are stored as absolute kelvin with `point` set; everything else is a
/// difference or an amount.
struct Quantity {
  /// The value in base units.
  double value = 0.0;
  /// Its dimension.
  Dim dim;
  /// True for a temperature point (absolute, read from degC); false for amounts and differences.
  bool point = false;

  /// A dimensionless number.
  static Quantity number(double v) { return Quantity{v, dims::none, false}; }
};

/// Quantity arithmetic for the expression evaluator and for tests; throws UserError on a dimension
/// mismatch, naming both dimensions in words.
Quantity add(const Quantity& a, const Quantity& b);
/// a − b; point − point is a difference, point − difference a point.
Quantity subtract(const Quantity& a, const Quantity& b);
/// a × b; temperature points may not be multiplied.
Quantity multiply(const Quantity& a, const Quantity& b);
/// a ÷ b; division by zero is a UserError.
Quantity divide(const Quantity& a, const Quantity& b);
/// a^n for an integer n (or any real n when a is dimensionless).
Quantity power(const Quantity& a, double n);

}  // namespace infracalc
