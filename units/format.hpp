// Human and machine formatting of quantities.
#pragma once

#include <string>
#include <string_view>

#include "units/parse.hpp"
#include "units/quantity.hpp"

namespace infracalc {

/// How human output is written.
struct FormatOptions {
  /// Significant digits (--digits); 4 by default.
  int digits = 4;
  /// Binary (IEC) prefixes for data sizes and rates (--binary, or the user typed a binary prefix).
  bool binary = false;
};

/// `v` with `digits` significant digits and no trailing zeros: 41.79, 140, 0.2444, 1.2e-07 → "1.2e-7".
[[nodiscard]] std::string format_number(double v, int digits);

/// A dimensionless count: exact with thousands separators when it is a whole number below 10^12,
/// otherwise with significant digits.
[[nodiscard]] std::string format_count(double v, int digits);

/// A quantity in its preferred display unit with an engineering prefix, e.g. "41.79 ms", "2.621 GB",
/// "$0.2444/Mtok", "6.136 MWh". `unit_hint` may name a display unit to use instead (e.g. "Gb/s",
/// "L/min", "$/MWh"); the prefix is then still chosen by size when the hint's numerator takes one.
[[nodiscard]] std::string format_human(const Quantity& q, const FormatOptions& opt = {}, std::string_view unit_hint = {});

/// format_human with the default options and a display-unit hint: how notes quote a quantity.
[[nodiscard]] inline std::string format_human(const Quantity& q, std::string_view unit_hint) {
  return format_human(q, FormatOptions{}, unit_hint);
}

/// The quantity expressed in `unit` (no prefix change): "206.2 GB" for 192 GiB in GB. Throws UserError when
/// the dimensions differ.
[[nodiscard]] std::string format_in_unit(const Quantity& q, const Unit& unit, int digits);

/// A double for machine output (JSON, CSV): shortest text that reads back to the same value.
[[nodiscard]] std::string format_machine(double v);
/// Appends format_machine(v) to `out` without a temporary string (the JSON writers' hot path).
void append_machine(std::string& out, double v);

}  // namespace infracalc
