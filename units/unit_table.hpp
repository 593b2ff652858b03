// The table of unit symbols and prefixes shared by the parser and the formatter.
#pragma once

#include <span>
#include <string_view>

#include "units/dim.hpp"

namespace infracalc {

/// Which prefixes a unit symbol accepts.
enum class PrefixClass : unsigned char {
  none,       ///< no prefix (min, h, psi, USD)
  si,         ///< every SI prefix from atto to exa (m, s, W)
  large,      ///< k and larger only (tok, FLOP): a milli-token is a typo, not a unit
  large_iec,  ///< k and larger, and the binary Ki, Mi, Gi... (B, bit, b)
};

/// One unit symbol: its value in base units and the prefixes it accepts.
struct UnitSymbol {
  /// The symbol as typed, e.g. "Wh".
  std::string_view symbol;
  /// Base units per one of this unit.
  double factor;
  /// Dimension.
  Dim dim;
  /// Accepted prefixes.
  PrefixClass prefixes;
  /// Name in words, for help text.
  std::string_view name;
  /// Offset added after scaling (degC).
  double offset = 0.0;
  /// True for temperature-point units.
  bool point = false;
  /// True for a word that spells a unit out ("days", "month"): accepted, but not listed among the symbols.
  bool word = false;
};

/// One prefix: its text and multiplier.
struct Prefix {
  /// The prefix as typed, e.g. "Gi".
  std::string_view text;
  /// Its multiplier.
  double factor;
  /// True for binary (IEC) prefixes.
  bool binary;
};

/// Every known unit symbol.
[[nodiscard]] std::span<const UnitSymbol> unit_symbols();
/// Every known prefix (binary first, so that "Gi" is tried before "G").
[[nodiscard]] std::span<const Prefix> unit_prefixes();
/// The symbol entry with exactly this text, or nullptr.
[[nodiscard]] const UnitSymbol* find_symbol(std::string_view text);
/// True when `prefix` is allowed on a symbol of class `cls`.
[[nodiscard]] bool prefix_allowed(const Prefix& prefix, PrefixClass cls);

/// Seconds in a Julian year (365.25 days), the year used by `yr`.
inline constexpr double kSecondsPerYear = 365.25 * 86400.0;

}  // namespace infracalc
