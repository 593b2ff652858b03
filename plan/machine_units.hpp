// The unit a machine-readable value is carried in: base units, except where its key names a unit (a key never
// names a unit its value is not in: `energy_per_bit` in J/bit, `cost_per_mtok` in USD/Mtok, `cost_per_hour` in
// USD/h).
#pragma once

#include <array>
#include <string>
#include <string_view>

#include "units/quantity.hpp"

namespace infracalc::writers {

/// A word a key may contain that names a unit, and the unit it then means.
struct KeyUnitWord {
  /// The word, one `_`-separated part of a key ("bits", "mtok", "hour").
  std::string_view word;
  /// The base unit symbol it replaces in the value's unit ("B", "tok", "s"); empty when `symbol` is a whole unit
  /// that replaces the value's unit when their dimensions agree ("gpm": gal/min for a volume flow).
  std::string_view base_symbol;
  /// The unit the value is carried in instead ("bit", "Mtok", "h", "gal/min").
  std::string_view symbol;
};

/// Every unit word a key may hold. "byte", "bytes", "seconds" and "flops" name base units and change nothing;
/// "gpm" and "gallons" are the US customary forms some cooling results are quoted in.
inline constexpr std::array kKeyUnitWords = {
    KeyUnitWord{"bit", "B", "bit"},       KeyUnitWord{"bits", "B", "bit"},     KeyUnitWord{"byte", "B", "B"},
    KeyUnitWord{"bytes", "B", "B"},       KeyUnitWord{"mtok", "tok", "Mtok"},  KeyUnitWord{"hour", "s", "h"},
    KeyUnitWord{"hours", "s", "h"},       KeyUnitWord{"day", "s", "d"},        KeyUnitWord{"days", "s", "d"},
    KeyUnitWord{"year", "s", "yr"},       KeyUnitWord{"years", "s", "yr"},     KeyUnitWord{"seconds", "s", "s"},
    KeyUnitWord{"flops", "FLOP", "FLOP"}, KeyUnitWord{"gpm", "", "gal/min"}, KeyUnitWord{"gallons", "", "gal"},
};

/// The first letters of the words in kKeyUnitWords that change a value's unit (a fast test before comparing words;
/// a unit test keeps it complete).
inline constexpr std::string_view kConvertingInitials = "bmhdyg";

/// Words that name a unit but are not in kKeyUnitWords: no key may contain them (a test checks every
/// descriptor), since a reader would take the value to be in that unit.
inline constexpr std::array<std::string_view, 26> kForbiddenKeyUnitWords = {
    "kw",  "mw",  "gw",   "kwh", "mwh", "gwh",  "wh",     "kb",     "mb",     "gb",   "tb",  "kib",  "mib",
    "gib", "tib", "gbps", "ms",  "us",  "ns",   "minute", "minutes", "pj",     "usd",  "tflops", "pflops", "ktok"};

/// A value and the unit it is in, as JSON and CSV write them.
struct MachineQuantity {
  /// The value in `unit`.
  double value = 0;
  /// The unit, parseable by parse_unit ("J/bit", "USD/Mtok", "K" for temperature points).
  std::string unit;
};

/// How machine_quantity writes values of one dimension under `key`: the unit, and the factor a value in base units
/// is divided by (1 where the key names no other unit). Temperature points are not converted (see machine_quantity).
struct MachineConversion {
  /// The unit.
  std::string unit;
  /// Base units per `unit`.
  double factor = 1;
};

/// The conversion machine_quantity applies to a quantity of `dim` (not a temperature point) under `key`.
[[nodiscard]] MachineConversion machine_conversion(std::string_view key, const Dim& dim);

/// `q` as machine output under `key`: in base units (machine_unit), with a base symbol replaced where a word of the
/// key names another unit of that dimension (kKeyUnitWords) and the value scaled to match.
[[nodiscard]] MachineQuantity machine_quantity(std::string_view key, const Quantity& q);

}  // namespace infracalc::writers
