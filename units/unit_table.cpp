#include "units/unit_table.hpp"

#include <array>
#include <unordered_map>

namespace infracalc {

namespace {

using enum PrefixClass;

// Conversion factors: inch and foot are exact (international yard, 1959); the US liquid gallon is
// exactly 231 in^3; psi uses the standard pound-force; the British thermal unit is the International Table BTU,
// 1055.05585262 J; a ton of refrigeration is 12,000 BTU/h; a degree Fahrenheit is 5/9 K with 0 degF at
// 459.67 degR = 255.372 K (NIST SP 811, appendix B). A month is a twelfth of the Julian year (30.4375 d), as the
// year here is Julian; numbat spells its month the same way, from its own year.
constexpr double kBtu = 1055.05585262;
constexpr std::array kSymbols = {
    UnitSymbol{"m", 1.0, dims::length, si, "metre"},
    UnitSymbol{"in", 0.0254, dims::length, none, "inch"},
    UnitSymbol{"ft", 0.3048, dims::length, none, "foot"},
    UnitSymbol{"L", 1e-3, dims::volume, si, "litre"},
    UnitSymbol{"gal", 3.785411784e-3, dims::volume, none, "US gallon"},
    UnitSymbol{"g", 1e-3, dims::mass, si, "gram"},
    UnitSymbol{"t", 1e3, dims::mass, large, "tonne"},
    UnitSymbol{"gCO2e", 1e-3, dims::mass, si, "gram of CO2-equivalent"},
    UnitSymbol{"gCO2", 1e-3, dims::mass, si, "gram of CO2"},
    UnitSymbol{"tCO2e", 1e3, dims::mass, large, "tonne of CO2-equivalent"},
    UnitSymbol{"tCO2", 1e3, dims::mass, large, "tonne of CO2"},
    UnitSymbol{"s", 1.0, dims::time, si, "second"},
    UnitSymbol{"min", 60.0, dims::time, none, "minute"},
    UnitSymbol{"h", 3600.0, dims::time, none, "hour"},
    UnitSymbol{"d", 86400.0, dims::time, none, "day"},
    UnitSymbol{"wk", 7 * 86400.0, dims::time, none, "week"},
    UnitSymbol{"yr", kSecondsPerYear, dims::time, none, "Julian year (365.25 d)"},
    UnitSymbol{"K", 1.0, dims::temperature, si, "kelvin (temperature difference)"},
    UnitSymbol{"degC", 1.0, dims::temperature, none, "degree Celsius (temperature point)", 273.15, true},
    UnitSymbol{"\u00B0C", 1.0, dims::temperature, none, "degree Celsius (temperature point)", 273.15, true},
    UnitSymbol{"degF", 5.0 / 9.0, dims::temperature, none, "degree Fahrenheit (temperature point)", 459.67 * 5.0 / 9.0, true},
    UnitSymbol{"\u00B0F", 5.0 / 9.0, dims::temperature, none, "degree Fahrenheit (temperature point)", 459.67 * 5.0 / 9.0, true},
    UnitSymbol{"A", 1.0, dims::current, si, "ampere"},
    UnitSymbol{"V", 1.0, dims::voltage, si, "volt"},
    UnitSymbol{"ohm", 1.0, dims::resistance, si, "ohm"},
    UnitSymbol{"\u03A9", 1.0, dims::resistance, si, "ohm"},
    UnitSymbol{"W", 1.0, dims::power, si, "watt"},
    UnitSymbol{"var", 1.0, dims::power, si, "volt-ampere reactive (reactive power)"},
    UnitSymbol{"VA", 1.0, dims::power, si, "volt-ampere (apparent power)"},
    UnitSymbol{"J", 1.0, dims::energy, si, "joule"},
    UnitSymbol{"Wh", 3600.0, dims::energy, si, "watt-hour"},
    UnitSymbol{"BTU", kBtu, dims::energy, none, "British thermal unit (International Table)"},
    UnitSymbol{"TR", 12000.0 * kBtu / 3600.0, dims::power, none, "ton of refrigeration (12,000 BTU/h)"},
    UnitSymbol{"gpm", 3.785411784e-3 / 60.0, dims::volume_flow, none, "US gallon per minute"},
    UnitSymbol{"Hz", 1.0, dims::frequency, si, "hertz"},
    UnitSymbol{"Bd", 1.0, dims::frequency, large, "baud (symbols per second)"},
    UnitSymbol{"T", 1.0, dims::none, large, "transfer (GT/s)"},
    UnitSymbol{"Pa", 1.0, dims::pressure, si, "pascal"},
    UnitSymbol{"bar", 1e5, dims::pressure, si, "bar"},
    UnitSymbol{"psi", 6894.757293168361, dims::pressure, none, "pound-force per square inch"},
    UnitSymbol{"B", 1.0, dims::information, large_iec, "byte"},
    UnitSymbol{"bit", 0.125, dims::information, large_iec, "bit"},
    UnitSymbol{"b", 0.125, dims::information, large_iec, "bit"},
    UnitSymbol{"USD", 1.0, dims::currency, none, "US dollar"},
    UnitSymbol{"$", 1.0, dims::currency, none, "US dollar"},
    UnitSymbol{"tok", 1.0, dims::token, large, "token"},
    UnitSymbol{"FLOP", 1.0, dims::flop, large, "floating-point operation"},
    UnitSymbol{"FLOPS", 1.0, dims::flop_rate, large, "FLOP per second"},
    UnitSymbol{"OP", 1.0, dims::flop, large, "operation (integer math counts as FLOP)"},
    UnitSymbol{"OPS", 1.0, dims::flop_rate, large, "operation per second"},
    UnitSymbol{"%", 0.01, dims::none, none, "percent"},
    UnitSymbol{"ppm", 1e-6, dims::none, none, "part per million"},
    // Time spelled out, singular and plural, as people write durations ("3 days", "1 month").
    UnitSymbol{"second", 1.0, dims::time, none, "second", 0.0, false, true},
    UnitSymbol{"seconds", 1.0, dims::time, none, "second", 0.0, false, true},
    UnitSymbol{"minute", 60.0, dims::time, none, "minute", 0.0, false, true},
    UnitSymbol{"minutes", 60.0, dims::time, none, "minute", 0.0, false, true},
    UnitSymbol{"hour", 3600.0, dims::time, none, "hour", 0.0, false, true},
    UnitSymbol{"hours", 3600.0, dims::time, none, "hour", 0.0, false, true},
    UnitSymbol{"day", 86400.0, dims::time, none, "day", 0.0, false, true},
    UnitSymbol{"days", 86400.0, dims::time, none, "day", 0.0, false, true},
    UnitSymbol{"week", 7 * 86400.0, dims::time, none, "week", 0.0, false, true},
    UnitSymbol{"weeks", 7 * 86400.0, dims::time, none, "week", 0.0, false, true},
    UnitSymbol{"month", kSecondsPerYear / 12, dims::time, none, "month (a twelfth of a Julian year)", 0.0, false, true},
    UnitSymbol{"months", kSecondsPerYear / 12, dims::time, none, "month (a twelfth of a Julian year)", 0.0, false, true},
    UnitSymbol{"year", kSecondsPerYear, dims::time, none, "Julian year (365.25 d)", 0.0, false, true},
    UnitSymbol{"years", kSecondsPerYear, dims::time, none, "Julian year (365.25 d)", 0.0, false, true},
};

// Binary prefixes come first so that "Gi" wins over "G"; both micro signs are accepted.
constexpr std::array kPrefixes = {
    Prefix{"Ki", 1024.0, true},
    Prefix{"Mi", 1048576.0, true},
    Prefix{"Gi", 1073741824.0, true},
    Prefix{"Ti", 1099511627776.0, true},
    Prefix{"Pi", 1125899906842624.0, true},
    Prefix{"Ei", 1152921504606846976.0, true},
    Prefix{"a", 1e-18, false},
    Prefix{"f", 1e-15, false},
    Prefix{"p", 1e-12, false},
    Prefix{"n", 1e-9, false},
    Prefix{"\u00B5", 1e-6, false},
    Prefix{"\u03BC", 1e-6, false},
    Prefix{"u", 1e-6, false},
    Prefix{"m", 1e-3, false},
    Prefix{"c", 1e-2, false},
    Prefix{"k", 1e3, false},
    Prefix{"M", 1e6, false},
    Prefix{"G", 1e9, false},
    Prefix{"T", 1e12, false},
    Prefix{"P", 1e15, false},
    Prefix{"E", 1e18, false},
};

}  // namespace

std::span<const UnitSymbol> unit_symbols() { return kSymbols; }
std::span<const Prefix> unit_prefixes() { return kPrefixes; }

const UnitSymbol* find_symbol(std::string_view text) {
  // The unit parser and every formatted number look symbols up; a hash map built on first use (not at
  // start-up) replaces a scan of the whole table.
  static const std::unordered_map<std::string_view, const UnitSymbol*> index = [] {
    std::unordered_map<std::string_view, const UnitSymbol*> m;
    for (const auto& s : kSymbols) m.emplace(s.symbol, &s);  // the first of a repeated symbol wins, as the scan did
    return m;
  }();
  const auto it = index.find(text);
  return it == index.end() ? nullptr : it->second;
}

bool prefix_allowed(const Prefix& prefix, PrefixClass cls) {
  switch (cls) {
    case none:
      return false;
    case si:
      return !prefix.binary;
    case large:
      return !prefix.binary && prefix.factor >= 1e3;
    case large_iec:
      return prefix.factor >= 1e3;
  }
  return false;
}

}  // namespace infracalc
