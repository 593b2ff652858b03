// The unit-checked expression evaluator behind `infracalc calc`.
#pragma once

#include <optional>
#include <string_view>

#include "units/expected.hpp"
#include "units/parse.hpp"
#include "units/quantity.hpp"

namespace infracalc {

/// The value of an expression and how the user asked to see it.
struct CalcResult {
  /// The value in base units.
  Quantity value;
  /// The unit after "->", when given.
  std::optional<Unit> target;
  /// True when the expression used a binary prefix (so output defaults to binary prefixes).
  bool binary = false;
};

/// Evaluates an expression: + − × ÷ (also * /), ^, parentheses, min max ceil floor sqrt abs, numbers with
/// units ("3.35 TB/s", "$2.50/h", "128k"), and an optional "-> UNIT" conversion at the end.
/// Errors (dimension mismatch, unknown unit, syntax) come back as Error with a hint.
[[nodiscard]] Expected<CalcResult> evaluate(std::string_view expression);

}  // namespace infracalc
