#include "units/format.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>

#include "units/charconv.hpp"
#include "units/unit_table.hpp"

namespace infracalc {

namespace {

// A display unit: value shown = base value × den_factor / num_factor, then a prefix on the numerator.
struct Display {
  Dim dim;
  std::string_view num;    // numerator symbol, e.g. "B", "$", "W"
  double num_factor;       // base units per numerator unit (Wh: 3600)
  PrefixClass prefixes;    // prefixes allowed on the numerator
  std::string_view den;    // denominator text including '/', e.g. "/s", "/Mtok"
  double den_factor;       // base units per denominator unit (Mtok: 1e6)
};

using enum PrefixClass;

constexpr std::array kDisplays = {
    Display{dims::information, "B", 1, large_iec, "", 1},
    Display{dims::data_rate, "B", 1, large_iec, "/s", 1},
    Display{dims::bytes_per_token, "B", 1, large_iec, "/tok", 1},
    Display{dims::flop, "FLOP", 1, large, "", 1},
    Display{dims::flop_rate, "FLOP", 1, large, "/s", 1},
    Display{dims::intensity, "FLOP", 1, none, "/B", 1},
    Display{dims::token, "tok", 1, large, "", 1},
    Display{dims::token_rate, "tok", 1, large, "/s", 1},
    Display{dims::power, "W", 1, si, "", 1},
    Display{dims::voltage, "V", 1, si, "", 1},
    Display{dims::current, "A", 1, si, "", 1},
    Display{dims::resistance, "ohm", 1, si, "", 1},
    Display{dims::pressure, "Pa", 1, si, "", 1},
    // Request, packet and event rates: "0.3/s", "720/s" -- never "300 mHz" (read as megahertz) or "720 Hz". No
    // prefix either ("300 m/s" would read as a speed). A clock or a signal asks for hertz with the hint "Hz".
    Display{dims::frequency, "", 1, none, "/s", 1},
    Display{dims::length, "m", 1, si, "", 1},
    Display{dims::volume, "L", 1e-3, si, "", 1},
    Display{dims::volume_flow, "L", 1e-3, none, "/min", 60},
    Display{dims::mass_flow, "kg", 1, none, "/s", 1},
    Display{dims::temperature, "K", 1, none, "", 1},
    Display{dims::density, "kg", 1, none, "/m3", 1},
    Display{dims::specific_heat, "J", 1, si, "/(kg*K)", 1},
    Display{dims::heat_flux, "W", 1, si, "/cm2", 1e-4},
    Display{dims::energy_per_token, "J", 1, si, "/tok", 1},
    Display{dims::energy_per_bit, "J", 1, si, "/bit", 0.125},
    Display{dims::carbon_intensity, "g", 1e-3, none, "/kWh", 3.6e6},
    Display{dims::water_intensity, "L", 1e-3, none, "/kWh", 3.6e6},
    Display{dims::money_rate, "$", 1, none, "/h", 3600},
    Display{dims::money_per_token, "$", 1, none, "/Mtok", 1e6},
    Display{dims::money_per_energy, "$", 1, none, "/kWh", 3.6e6},
    Display{dims::currency, "$", 1, none, "", 1},
    Display{dims::power / dims::temperature, "W", 1, si, "/K", 1},
    Display{dims::temperature / dims::power, "K", 1, none, "/W", 1},
    Display{dims::money_per_power, "$", 1, none, "/MW", 1e6},
    Display{dims::money_per_token_time, "$", 1, none, "/(Mtok*h)", 3.6e9},
    Display{dims::energy_per_bit_length, "J", 1, si, "/bit/mm", 0.125e-3},
    Display{dims::length_per_temperature, "m", 1, si, "/K", 1},
    Display{dims::velocity, "m", 1, none, "/s", 1},
    Display{dims::dynamic_viscosity, "Pa", 1, si, "*s", 1},
    Display{dims::resistivity, "ohm", 1, si, "*m", 1},
    Display{dims::power_ramp, "W", 1, si, "/s", 1},
    Display{dims::thermal_conductivity, "W", 1, none, "/(m*K)", 1},
    Display{dims::specific_energy, "J", 1, si, "/kg", 1},
    Display{dims::flop_per_token, "FLOP", 1, large, "/tok", 1},
};

const Display* find_display(const Dim& d) {
  for (const auto& x : kDisplays)
    if (x.dim == d) return &x;
  return nullptr;
}

std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

// `v` with `decimals` digits after the point, correctly rounded (std::to_chars, several times faster than
// fmt for the numbers every note and table prints).
std::string round_fixed(double v, int decimals) {
  char buf[400];
  const auto r = write_fixed(buf, buf + sizeof buf, v, decimals);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : fmt::format("{:.{}f}", v, decimals);
}

// Numbers in [kFixedLow, kFixedHigh) print in fixed notation; outside it, a fixed number would be a long run of
// digits or zeros (1e30 s is 31688087814028950241280 yr), so they print in scientific notation.
constexpr double kFixedLow = 1e-6;
constexpr double kFixedHigh = 1e15;

// `v` in scientific notation with `digits` significant digits and no trailing zeros: 3.169e22, 1.2e-7.
std::string scientific(double v, int digits) {
  std::string s = fmt::format("{:.{}e}", v, std::max(0, digits - 1));
  const auto e = s.find('e');
  std::string mant = trim_zeros(s.substr(0, e));
  const int exp = std::stoi(s.substr(e + 1));
  return mant + "e" + std::to_string(exp);
}

constexpr std::array<double, 16> kPowersOfTen = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

// Rounds to `digits` significant digits; returns the text and the rounded value. Fixed notation within
// [kFixedLow, kFixedHigh) after rounding, scientific outside.
std::pair<std::string, double> round_sig(double v, int digits) {
  if (v == 0.0) return {"0", 0.0};
  const double a = std::fabs(v);
  // A whole number of at most `digits` digits is its own rounding (a byte width, a layer count): no digits to
  // round, print or read back.
  if (a < 1e15 && a == std::floor(a) && digits > 0 && digits < 16 && a < kPowersOfTen[static_cast<std::size_t>(digits)]) {
    char buf[24];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<long long>(v));
    return {std::string(buf, r.ptr), v};
  }
  double back = 0.0;
  if (a >= kFixedLow && a < kFixedHigh) {
    const int mag = static_cast<int>(std::floor(std::log10(a)));
    const int decimals = std::max(0, digits - 1 - mag);
    std::string s = round_fixed(v, decimals);
    read_double(s.data(), s.data() + s.size(), back);
    if (std::fabs(back) < kFixedHigh) return {trim_zeros(std::move(s)), back};  // 999999999999999.9 rounds up
  }
  std::string s = scientific(v, digits);
  read_double(s.data(), s.data() + s.size(), back);
  return {std::move(s), back};
}

// Picks the prefix that puts |v| in [1, 1000) (or [1, 1024) for binary), re-prefixing after rounding.
std::string with_prefix(double v, int digits, PrefixClass cls, bool binary, std::string_view num, std::string_view den) {
  struct P {
    std::string_view text;
    double f;
  };
  static constexpr std::array kSi = {P{"a", 1e-18}, P{"f", 1e-15}, P{"p", 1e-12}, P{"n", 1e-9}, P{"\u00B5", 1e-6},
                                     P{"m", 1e-3},  P{"", 1},       P{"k", 1e3},    P{"M", 1e6},  P{"G", 1e9},
                                     P{"T", 1e12},  P{"P", 1e15},   P{"E", 1e18}};
  static constexpr std::array kIec = {P{"", 1},           P{"Ki", 1024.0},         P{"Mi", 1048576.0},
                                      P{"Gi", 1073741824.0}, P{"Ti", 1099511627776.0}, P{"Pi", 1125899906842624.0},
                                      P{"Ei", 1152921504606846976.0}};
  const double a = std::fabs(v);
  auto emit_text = [&](std::string& text, std::string_view p) {
    text.reserve(text.size() + 1 + p.size() + num.size() + den.size());
    text += ' ';
    text += p;
    text += num;
    text += den;
    return std::move(text);
  };
  auto emit = [&](std::string_view p, double f) {
    std::string text = round_sig(v / f, digits).first;
    return emit_text(text, p);
  };
  if (cls == none || a == 0.0) {
    // A unit without a numerator symbol ("/s") follows the number directly: "0.3/s", as rates are typed.
    const std::string sep = num.empty() ? "" : " ";
    // A large amount in a unit that takes no prefix keeps its thousands separators (416,831,798 gal); a bare rate
    // ("12207031/s") stays as the parser reads it back.
    if (!num.empty() && a >= 1e4 && a < 1e12) return format_count(std::round(v), digits) + sep + std::string(num) + std::string(den);
    if (a != 0.0 && (a >= 1e6 || a < 1e-3)) return format_number(v, digits) + sep + std::string(num) + std::string(den);
    return round_sig(v, digits).first + sep + std::string(num) + std::string(den);
  }
  if (binary && cls == large_iec) {
    std::size_t i = 0;
    while (i + 1 < kIec.size() && a >= kIec[i + 1].f) ++i;
    auto [t, r] = round_sig(v / kIec[i].f, digits);
    if (std::fabs(r) < 1024.0 || i + 1 == kIec.size()) return emit_text(t, kIec[i].text);
    return emit(kIec[i + 1].text, kIec[i + 1].f);
  }
  std::size_t lo = 0;
  if (cls == large || cls == large_iec) lo = 6;  // no sub-unit prefixes on bytes, tokens, FLOP
  std::size_t i = lo;
  while (i + 1 < kSi.size() && a >= kSi[i + 1].f) ++i;
  if (a < kSi[lo].f) {
    if (a < kSi[0].f * 1e-3 || (lo == 6 && a < 1e-3)) return format_number(v, digits) + " " + std::string(num) + std::string(den);
    i = lo;
  }
  if (a >= kSi.back().f * 1000) return format_number(v, digits) + " " + std::string(num) + std::string(den);
  auto [t, r] = round_sig(v / kSi[i].f, digits);
  if (std::fabs(r) < 1000.0 || i + 1 == kSi.size()) return emit_text(t, kSi[i].text);
  return emit(kSi[i + 1].text, kSi[i + 1].f);
}

std::string format_money(double usd, int digits, std::string_view den) {
  const double a = std::fabs(usd);
  const std::string sign = usd < 0 ? "-" : "";
  if (a >= 1000.0) {
    std::string s = with_prefix(a, digits, large, false, "", "");  // "40 k"
    const auto sp = s.find(' ');
    // Money reads k, M, B, T (a billion dollars is $30B; $30G reads as a typo).
    std::string prefix = s.substr(sp + 1);
    if (prefix == "G") prefix = "B";
    return sign + "$" + s.substr(0, sp) + prefix + std::string(den);
  }
  if (a >= 1.0 && digits <= 4) return sign + "$" + round_fixed(a, 2) + std::string(den);
  // Fixed notation down to a millionth of a dollar: $0.0006772 per request, not $6.772e-4.
  std::string s = round_sig(a, digits).first;
  // Cents stay visible below a dollar: $0.30/h, not $0.3/h.
  if (a >= 0.01 && a < 1.0 && s.find('e') == std::string::npos) {
    const auto dot = s.find('.');
    if (dot == std::string::npos) s += ".00";
    else if (s.size() - dot - 1 < 2) s += std::string(2 - (s.size() - dot - 1), '0');
  }
  return sign + "$" + s + std::string(den);
}

std::string format_time(double s, int digits) {
  const double a = std::fabs(s);
  struct T {
    double limit;
    double unit;
    std::string_view sym;
  };
  static constexpr std::array kTimes = {T{60, 1, "s"}, T{3600, 60, "min"}, T{86400, 3600, "h"},
                                        T{kSecondsPerYear, 86400, "d"}, T{1e300, kSecondsPerYear, "yr"}};
  if (a < 1.0) return with_prefix(s, digits, si, false, "s", "");
  for (const auto& t : kTimes) {
    if (a >= t.limit) continue;
    auto [text, r] = round_sig(s / t.unit, digits);
    if (std::fabs(r) * t.unit >= t.limit && &t != &kTimes.back()) continue;  // 59.99 s rounds to 60 s
    return text + " " + std::string(t.sym);
  }
  return format_number(s, digits) + " s";
}

std::string format_energy(double j, int digits) {
  if (std::fabs(j) < 3600.0) return with_prefix(j, digits, si, false, "J", "");
  return with_prefix(j / 3600.0, digits, si, false, "Wh", "");
}

std::string format_mass(double kg, int digits) {
  if (std::fabs(kg) >= 1000.0) return with_prefix(kg / 1000.0, digits, large, false, "t", "");
  return with_prefix(kg * 1000.0, digits, si, false, "g", "");
}

}  // namespace

std::string format_number(double v, int digits) {
  if (v == 0.0) return "0";
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  const double a = std::fabs(v);
  if (a >= 1e-3) return round_sig(v, digits).first;
  return scientific(v, digits);
}

std::string format_count(double v, int digits) {
  const double a = std::fabs(v);
  if (a < 1e12 && v == std::round(v)) {
    // A whole number below 10^12 is exact in an int64: its digits without the fixed-point formatter, which notes
    // call for every count in every batch record.
    char digits_buf[24];
    const auto end = std::to_chars(digits_buf, digits_buf + sizeof digits_buf, static_cast<std::int64_t>(a)).ptr;
    const auto n = static_cast<std::size_t>(end - digits_buf);
    std::string out;
    out.reserve(n + n / 3 + 1);
    if (v < 0) out += '-';
    for (std::size_t i = 0; i < n; ++i) {
      if (i > 0 && (n - i) % 3 == 0) out += ',';
      out += digits_buf[i];
    }
    return out;
  }
  return format_number(v, digits);
}

std::string format_human(const Quantity& q, const FormatOptions& opt, std::string_view unit_hint) {
  const int digits = std::clamp(opt.digits, 1, 17);
  if (q.point) return format_number(q.value - 273.15, digits) + " degC";
  if (!unit_hint.empty()) {
    // A hint is a numerator symbol and an optional denominator ("b/s", "$/MWh", "gal/min"); the numerator
    // still gets a prefix chosen by size when it takes one.
    const std::string text(unit_hint);
    const auto slash = text.find('/');
    const std::string num = text.substr(0, slash);
    const std::string den = slash == std::string::npos ? "" : text.substr(slash);
    const UnitSymbol* sym = find_symbol(num);
    auto den_unit = den.empty() ? Expected<Unit>(Unit{}) : parse_unit(den.substr(1));
    if (sym != nullptr && den_unit && sym->dim / den_unit->dim == q.dim && !sym->point) {
      const double shown = q.value * den_unit->factor / sym->factor;
      if (num == "$") return format_money(shown, digits, den);
      return with_prefix(shown, digits, sym->prefixes, opt.binary, num, den);
    }
  }
  if (q.dim.dimensionless()) return format_count(q.value, digits);
  // Token counts read best exact ("8,000 tok"); rates and fractions of tokens take prefixes.
  if (q.dim == dims::token && q.value == std::round(q.value) && std::fabs(q.value) < 1e9)
    return format_count(q.value, digits) + " tok";
  if (q.dim == dims::time) return format_time(q.value, digits);
  if (q.dim == dims::energy) return format_energy(q.value, digits);
  if (q.dim == dims::mass) return format_mass(q.value, digits);
  if (q.dim == dims::area) {
    if (std::fabs(q.value) < 1e-2) return format_number(q.value * 1e6, digits) + " mm2";
    return format_number(q.value, digits) + " m2";
  }
  if (const Display* d = find_display(q.dim)) {
    const double shown = q.value * d->den_factor / d->num_factor;
    if (d->num == "$") return format_money(shown, digits, d->den);
    return with_prefix(shown, digits, d->prefixes, opt.binary, d->num, d->den);
  }
  return format_number(q.value, digits) + " " + base_unit_string(q.dim);
}

std::string format_in_unit(const Quantity& q, const Unit& unit, int digits) {
  // A reading in degC shown in K is its distance from absolute zero (30 degC -> 303.15 K), and a kelvin value
  // shown in degC is read as one: the thermodynamic temperature, which is what a user converting means.
  if (q.dim != unit.dim) {
    throw UserError{{"cannot convert " + dim_words(q.dim) + " (" + dim_formula(q.dim) + ") to '" + unit.text + "', " +
                         dim_words(unit.dim) + " (" + dim_formula(unit.dim) + ")",
                     "the target unit must have the same dimension as the value"}};
  }
  const double shown = (q.value - unit.offset) / unit.factor;
  if (!unit.text.empty() && unit.text[0] == '$') return format_money(shown, digits, unit.text.substr(1));
  return format_number(shown, digits) + " " + unit.text;
}

std::string format_machine(double v) {
  std::string out;
  append_machine(out, v);
  return out;
}

void append_machine(std::string& out, double v) {
  char buf[32];
  // Whole numbers below 10^15 (byte counts, layers, tokens: most of a result) are written from their integer
  // digits, as std::to_chars writes them: below 2^53 every integer is exact and no shorter decimal reads back to
  // it, so the shortest text is the digits without trailing zeros, in fixed or scientific form, whichever is
  // shorter (fixed on a tie, as the standard says for to_chars without a format).
  if (v != 0 && v > -1e15 && v < 1e15 && v == static_cast<double>(static_cast<std::int64_t>(v))) {
    const auto n = static_cast<std::int64_t>(v);
    const auto r = std::to_chars(buf, buf + sizeof buf, n);
    const char* digits = buf + (n < 0 ? 1 : 0);
    const auto length = static_cast<int>(r.ptr - digits);
    int significant = length;
    while (significant > 1 && digits[significant - 1] == '0') --significant;
    const int exponent = length - 1;
    const int scientific = 1 + (significant > 1 ? significant : 0) + 2 + (exponent >= 100 ? 3 : 2);
    if (scientific >= length) {
      out.append(buf, r.ptr);
      return;
    }
  }
  // std::to_chars gives the shortest text that reads back to the same double, like fmt's "{}" but faster.
  const auto r = write_shortest(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

}  // namespace infracalc
