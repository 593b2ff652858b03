// Unit-checked expressions: `infracalc calc`, plan lines that compute from other lines, and their
// translation to spreadsheet formulas.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "units/expected.hpp"
#include "units/parse.hpp"
#include "units/quantity.hpp"

namespace infracalc {

/// One node of a parsed expression.
struct ExprNode {
  /// What the node is.
  enum class Kind : unsigned char { number, ref, neg, add, sub, mul, div, pow, call };
  /// The kind.
  Kind kind = Kind::number;
  /// The value of a number (a literal with its unit, in base units).
  Quantity value;
  /// The name of a reference (`@name`) or a function (`min`, `ceil`, ...).
  std::string name;
  /// Operands (one for neg, two for binary operators, the arguments of a call).
  std::vector<ExprNode> args;
};

/// A parsed expression, reusable for many evaluations (sweeps evaluate one plan many times).
struct Expression {
  /// The expression tree.
  ExprNode root;
  /// The unit after "->", when given.
  std::optional<Unit> target;
  /// True when a binary prefix was typed (output then defaults to binary prefixes).
  bool binary = false;
  /// Every `@name` referenced, in order of first appearance.
  std::vector<std::string> refs;
};

/// Resolves `@name` references to values; returns nullopt for unknown names.
using ExprResolver = std::function<std::optional<Quantity>(std::string_view name)>;

/// The value of an expression and how the user asked to see it.
struct CalcResult {
  /// The value in base units.
  Quantity value;
  /// The unit after "->", when given.
  std::optional<Unit> target;
  /// True when the expression used a binary prefix (so output defaults to binary prefixes).
  bool binary = false;
};

/// Parses an expression: + − × ÷ (also * /), ^, parentheses, min max ceil floor sqrt abs round, numbers
/// with units ("3.35 TB/s", "$2.50/h", "128k"), references `@name` (letters, digits, _ and .), and an
/// optional "-> UNIT" at the end.
[[nodiscard]] Expected<Expression> parse_expression(std::string_view text);

/// Evaluates a parsed expression; references go through `resolve` (an unknown reference is an error).
[[nodiscard]] Expected<Quantity> evaluate(const Expression& e, const ExprResolver& resolve = {});

/// Parses and evaluates in one step (the `calc` command).
[[nodiscard]] Expected<CalcResult> evaluate(std::string_view expression);

/// Maps a reference to a spreadsheet cell expression that yields its value in base units, e.g.
/// "(Inputs!C4*1000)" for a value shown in kW.
using CellMapper = std::function<std::string(std::string_view name)>;

/// The expression as a spreadsheet formula (without the leading '='), in base units: literals become
/// their base-unit values, references go through `cell`, functions map to MIN, MAX, CEILING, FLOOR, SQRT,
/// ABS and ROUND.
[[nodiscard]] std::string to_spreadsheet_formula(const Expression& e, const CellMapper& cell);

}  // namespace infracalc
