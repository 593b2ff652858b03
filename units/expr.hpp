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

/// A piece of a spreadsheet formula and the scale that turns its value into base units: a cell shown in kW
/// is {"B4", 1000}, one shown in $/h is {"B7", 1/3600}. Keeping the scale beside the text lets a product
/// carry one factor instead of converting every operand ("B7*B9/3600", not "B7*0.0002777...*B9").
struct SpreadsheetTerm {
  /// The formula text (a cell reference, or a parenthesised expression).
  std::string text;
  /// Base units per unit of the text's value.
  double scale = 1;
};

/// Maps a reference to the cell (or cell expression) that holds its value, with that cell's scale.
using CellMapper = std::function<SpreadsheetTerm(std::string_view name)>;

/// The expression as a spreadsheet formula (without the leading '='): its value times the returned scale is
/// the expression's value in base units. Literals are written at their base-unit values, references go
/// through `cell`, functions map to MIN, MAX, CEILING, FLOOR, ROUND, SQRT, ABS, EXP, LN, LOG10 and LOG.
[[nodiscard]] SpreadsheetTerm to_spreadsheet_formula(const Expression& e, const CellMapper& cell);

/// `t`'s value multiplied by `k`, as formula text; the factor is written the short way round ("B4/3600"
/// rather than "B4*0.0002777777777777778") and left out when it is 1.
[[nodiscard]] std::string scaled_formula(const SpreadsheetTerm& t, double k);

/// A number as a spreadsheet literal, in the fewest significant digits that give it back to 1 part in 10^12
/// ("3600", "2.5E-07").
[[nodiscard]] std::string spreadsheet_number(double v);

}  // namespace infracalc
