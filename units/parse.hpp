// The strict, case-sensitive parser for quantities and unit expressions.
#pragma once

#include <string>
#include <string_view>

#include "units/dim.hpp"
#include "units/expected.hpp"
#include "units/quantity.hpp"

namespace infracalc {

/// A parsed unit expression: multiply a number by `factor` (then add `offset`) to get base units.
struct Unit {
  /// Base units per one of this unit.
  double factor = 1.0;
  /// Its dimension.
  Dim dim;
  /// Added after scaling (degC only: 273.15 K).
  double offset = 0.0;
  /// True for a temperature-point unit (degC).
  bool point = false;
  /// True when a binary (IEC) prefix appeared: Ki, Mi, Gi...
  bool binary = false;
  /// The text as the user wrote it, trimmed.
  std::string text;
};

/// Parses a unit expression such as "TB/s", "J/(kg*K)", "W/cm2", "$/Mtok", "kg*m^2/s^3".
[[nodiscard]] Expected<Unit> parse_unit(std::string_view text);

/// Parses "NUMBER [UNIT]", "$NUMBER[/UNIT]", "128k" or "8Ki" (count suffixes), "70%".
/// A bare number is dimensionless here; parse_input() gives bare numbers a meaning per input.
[[nodiscard]] Expected<Quantity> parse_quantity(std::string_view text);

/// What an input expects: its dimension, and whether a temperature point is wanted.
struct Expectation {
  /// The dimension the input must have.
  Dim dim;
  /// True when a temperature point (degC) is expected rather than an amount or difference.
  bool point = false;
};

/// True for dimensions where a bare number and count suffixes (128k, 8Ki) are accepted:
/// plain numbers, tokens and FLOP counts.
[[nodiscard]] bool is_count_like(const Dim& d);

/// Parses `text` for the input called `input_name` (e.g. "--bandwidth") and checks its dimension.
/// Errors name the input, both dimensions in words and an example, and give a hint.
[[nodiscard]] Expected<Quantity> parse_input(std::string_view text, const Expectation& want, std::string_view input_name);

/// The error for a quantity of the wrong dimension, shared by every place that checks dimensions.
[[nodiscard]] Error dimension_error(std::string_view input_name, const Expectation& want, std::string_view got_text,
                                    const Quantity& got);

/// Every unit symbol the parser knows (without prefixes), for help text and suggestions.
[[nodiscard]] std::string known_unit_symbols();

}  // namespace infracalc
