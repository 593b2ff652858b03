#include "units/parse.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <string>
#include <vector>

#include "units/charconv.hpp"
#include "units/dim_check.hpp"
#include "units/suggest.hpp"
#include "units/unit_table.hpp"

namespace infracalc {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// Bytes that can be part of a unit symbol: ASCII letters, digits (m2, gCO2e), $, % and the UTF-8
// lead/continuation bytes of µ, μ, Ω, °, ², ³.
bool is_symbol_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_ascii_digit(c) || c == '$' || c == '%' || u >= 0x80;
}

std::vector<std::string_view> suggestion_pool() {
  static const std::vector<std::string> extra = [] {
    std::vector<std::string> v;
    for (const char* p : {"k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti"})
      for (const char* s : {"B", "b", "bit"}) v.push_back(std::string(p) + s);
    for (const char* p : {"k", "M", "G", "T"})
      for (const char* s : {"W", "Wh", "tok", "FLOP", "Hz", "Pa", "J", "g"}) v.push_back(std::string(p) + s);
    for (const char* s : {"ms", "us", "ns", "mm", "cm", "km", "mm2", "cm2", "m2", "m3", "kg", "mL", "mohm", "kPa"})
      v.emplace_back(s);
    return v;
  }();
  std::vector<std::string_view> pool;
  for (const auto& s : unit_symbols()) pool.push_back(s.symbol);
  for (const auto& s : extra) pool.push_back(s);
  return pool;
}

Error unknown_symbol(std::string_view sym) {
  // Byte-style typos that must never be guessed silently.
  if (sym.size() >= 2 && sym[0] == 'K' && (sym.substr(1) == "B" || sym.substr(1) == "b" || sym.substr(1) == "bit"))
    return {"unknown unit '" + std::string(sym) + "'", "kilo is a lower-case k: write k" + std::string(sym.substr(1)) +
                                                           " (1000) or Ki" + std::string(sym.substr(1)) + " (1024)?"};
  if (sym == "hr" || sym == "hrs") return {"unknown unit '" + std::string(sym) + "'", "hours are written h (or hour)"};
  if (sym == "y") return {"unknown unit '" + std::string(sym) + "'", "years are written yr (a Julian year, 365.25 d)"};
  if (sym == "C" || sym == "F")
    return {"unknown unit '" + std::string(sym) + "'", "temperatures are written degC or degF (points) or K (a difference)"};
  if (sym == "tokens" || sym == "token") return {"unknown unit '" + std::string(sym) + "'", "tokens are written tok"};
  // "8 k": a prefix alone, which a count suffix would have been without the space.
  for (const auto& p : unit_prefixes())
    if (p.text == sym && p.factor > 1)
      return {"unknown unit '" + std::string(sym) + "'", "'" + std::string(sym) + "' alone is a prefix: for a count write it right after the number (8" +
                                                          std::string(sym) + ", no space), or add a unit (8 " + std::string(sym) + "B)"};
  if (sym == "nan" || sym == "NaN" || sym == "inf" || sym == "Inf" || sym == "infinity" || sym == "Infinity")
    return {"'" + std::string(sym) + "' is not a finite number", "write a finite number such as 1.5e9"};
  // Unit symbols are short (the longest is a handful of characters): a long unknown word is no typo of one.
  // The same text is often parsed several times in a row (a value tried against several inputs): the last
  // word's suggestion is remembered.
  thread_local std::string last_word, last_hint;
  if (sym != last_word) {
    last_hint = sym.size() <= 12 ? did_you_mean(sym, suggestion_pool()) : std::string();
    last_word = std::string(sym);
  }
  std::string hint = last_hint;
  if (hint.empty()) hint = "units are case-sensitive; known symbols: " + known_unit_symbols();
  return {"unknown unit '" + std::string(sym) + "'", hint};
}

// Resolves one symbol token such as "GiB", "mm2", "kWh".
Expected<Unit> resolve_symbol(std::string_view sym) {
  auto make = [](const UnitSymbol& s, double pf, bool binary, int power) {
    Unit u;
    u.factor = std::pow(s.factor * pf, power);
    u.dim = s.dim.pow(power);
    u.offset = s.offset;
    u.point = s.point;
    u.binary = binary;
    return u;
  };
  // A trailing 2 or 3 (or ² ³) squares or cubes a length: m2, cm2, mm2, m3.
  int power = 1;
  std::string_view base = sym;
  if (const UnitSymbol* s = find_symbol(sym)) return make(*s, 1.0, false, 1);
  if (base.size() >= 2 && (base.back() == '2' || base.back() == '3')) {
    power = base.back() - '0';
    base.remove_suffix(1);
  } else if (base.size() >= 3 && base.substr(base.size() - 2) == "\u00B2") {
    power = 2;
    base.remove_suffix(2);
  } else if (base.size() >= 3 && base.substr(base.size() - 2) == "\u00B3") {
    power = 3;
    base.remove_suffix(2);
  }
  auto try_resolve = [&](std::string_view b, int pw) -> const UnitSymbol* {
    const UnitSymbol* s = find_symbol(b);
    if (s != nullptr && (pw == 1 || s->dim == dims::length)) return s;
    return nullptr;
  };
  if (const UnitSymbol* s = try_resolve(base, power); s != nullptr && power != 1) return make(*s, 1.0, false, power);
  for (const auto& p : unit_prefixes()) {
    if (base.size() <= p.text.size() || base.substr(0, p.text.size()) != p.text) continue;
    const UnitSymbol* s = try_resolve(base.substr(p.text.size()), power);
    if (s == nullptr) continue;
    if (!prefix_allowed(p, s->prefixes)) {
      std::string hint;
      if (s->prefixes == PrefixClass::none)
        hint = "'" + std::string(s->symbol) + "' takes no prefix";
      else if (p.binary)
        hint = "binary prefixes (Ki, Mi, Gi) apply to bytes and bits only";
      else
        hint = "'" + std::string(s->symbol) + "' takes only k, M, G, T, P, E" +
               (s->prefixes == PrefixClass::large_iec ? " or Ki, Mi, Gi..." : "") + "; did you mean upper case?";
      return Error{"prefix '" + std::string(p.text) + "' is not allowed on '" + std::string(s->symbol) + "'", hint};
    }
    return make(*s, p.factor, p.binary, power);
  }
  return unknown_symbol(sym);
}

// Parentheses a unit may nest (the parser recurses once per level; deeper input is an error, not a crash).
constexpr int kMaxUnitNesting = 256;

// Recursive-descent parser over a unit expression: term (('*'|'·'|'/') term)*.
class UnitParser {
 public:
  explicit UnitParser(std::string_view text) : s_(text) {}

  Expected<Unit> parse() {
    auto u = expr();
    if (!u) return u;
    skip_ws();
    if (pos_ != s_.size())
      return Error{"unexpected '" + std::string(s_.substr(pos_)) + "' in " + quoted(),
                   "units combine with * and /, e.g. J/(kg*K)"};
    return u;
  }

 private:
  // "unit 'TEXT'", the text cut short when it is long (errors quote it, and it may be thousands of bytes).
  std::string quoted() const {
    constexpr std::size_t kShown = 48;
    if (s_.size() <= kShown) return "unit '" + std::string(s_) + "'";
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(s_[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    return "unit '" + std::string(s_.substr(0, cut)) + "...'";
  }

  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(std::string_view tok) {
    skip_ws();
    if (s_.substr(pos_, tok.size()) == tok) {
      pos_ += tok.size();
      return true;
    }
    return false;
  }

  Expected<Unit> expr() {
    auto left = term();
    if (!left) return left;
    Unit acc = std::move(left).value();
    for (;;) {
      bool div = false;
      if (eat("/"))
        div = true;
      else if (eat("*") || eat("\u00B7"))
        div = false;
      else
        break;
      auto right = term();
      if (!right) return right;
      const Unit& r = right.value();
      if (acc.point || r.point)
        return Error{"degC is a temperature point and cannot be part of a compound unit",
                     "use K for temperature differences, e.g. J/(kg*K)"};
      if (!dims_fit(acc.dim, 1, r.dim, div ? -1 : 1)) return dim_range_error(acc.dim, 1, r.dim, div ? -1 : 1, quoted());
      acc.factor = div ? acc.factor / r.factor : acc.factor * r.factor;
      acc.dim = div ? acc.dim / r.dim : acc.dim * r.dim;
      acc.binary = acc.binary || r.binary;
    }
    return acc;
  }

  Expected<Unit> term() {
    skip_ws();
    Unit u;
    if (eat("(")) {
      if (++depth_ > kMaxUnitNesting)
        return Error{"nesting deeper than " + std::to_string(kMaxUnitNesting) + " levels in " + quoted(),
                     "a unit needs a parenthesis or two, e.g. J/(kg*K)"};
      auto inner = expr();
      --depth_;
      if (!inner) return inner;
      if (!eat(")")) return Error{"missing ')' in " + quoted(), "close every parenthesis"};
      u = std::move(inner).value();
    } else if (pos_ < s_.size() && s_[pos_] == '1' && (pos_ + 1 == s_.size() || !is_symbol_byte(s_[pos_ + 1]))) {
      ++pos_;  // "1/s"
    } else {
      const std::size_t start = pos_;
      if (pos_ < s_.size() && is_ascii_digit(s_[pos_]))
        return Error{"unexpected number in " + quoted(), "write the number before the unit"};
      while (pos_ < s_.size() && is_symbol_byte(s_[pos_])) ++pos_;
      if (pos_ == start) {
        if (pos_ >= s_.size()) return Error{"missing unit after an operator in " + quoted(), ""};
        return Error{"unexpected '" + std::string(1, s_[pos_]) + "' in " + quoted(),
                     "units combine with * and /"};
      }
      auto r = resolve_symbol(s_.substr(start, pos_ - start));
      if (!r) return r;
      u = std::move(r).value();
    }
    if (eat("^")) {
      skip_ws();
      int sign = 1;
      if (pos_ < s_.size() && s_[pos_] == '-') {
        sign = -1;
        ++pos_;
      }
      const std::size_t start = pos_;
      while (pos_ < s_.size() && is_ascii_digit(s_[pos_])) ++pos_;
      if (pos_ == start || pos_ - start > 1)
        return Error{"bad exponent in " + quoted(), "exponents are whole numbers from -9 to 9"};
      if (u.point) return Error{"degC cannot be raised to a power", "use K for temperature differences"};
      const int n = sign * (s_[pos_ - 1] - '0');
      if (!dims_fit(u.dim, n, Dim{}, 0)) return dim_range_error(u.dim, n, Dim{}, 0, quoted());
      u.factor = std::pow(u.factor, n);
      u.dim = u.dim.pow(n);
    }
    return u;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

// Count suffixes accepted right after a number: 128k, 1.5M, 8Ki.
double count_suffix(std::string_view s) {
  for (const auto& p : unit_prefixes()) {
    if (p.text != s) continue;
    if (p.binary || p.factor >= 1e3) return p.factor;
  }
  return 0.0;
}

}  // namespace

bool is_count_like(const Dim& d) { return d == dims::none || d == dims::token || d == dims::flop; }

std::string known_unit_symbols() {
  std::string out;
  for (const auto& s : unit_symbols()) {
    if (s.word) continue;
    if (!out.empty()) out += ' ';
    out += s.symbol;
  }
  return out;
}

Expected<Unit> parse_unit(std::string_view text) {
  text = trim(text);
  if (text.empty()) return Error{"empty unit", "write a unit such as GB, TB/s or W"};
  // A stream of records repeats a handful of units ("tok/s", "$/h"): remember the last few parses.
  thread_local std::array<Unit, 32> memo;
  thread_local std::size_t memo_used = 0, memo_next = 0;
  for (std::size_t i = 0; i < memo_used; ++i)
    if (memo[i].text == text) return memo[i];
  auto u = UnitParser(text).parse();
  if (!u) return u;
  Unit out = std::move(u).value();
  out.text = std::string(text);
  memo[memo_next] = out;
  memo_next = (memo_next + 1) % memo.size();
  memo_used = std::max(memo_used, memo_next == 0 ? memo.size() : memo_next);
  return out;
}

namespace {
// The parse proper; `had_unit` reports whether a unit (or $) followed the number. `example` is a value of the
// expected kind, for the hints of text that is no number at all.
Expected<Quantity> parse_quantity_impl(std::string_view text, bool& had_unit, std::string_view example) {
  had_unit = false;
  const std::string_view original = text;
  text = trim(text);
  if (text.empty()) return Error{"empty value", "write a value, e.g. " + std::string(example)};
  std::size_t pos = 0;
  bool negative = false;
  auto sign = [&] {
    if (pos < text.size() && (text[pos] == '-' || text[pos] == '+')) {
      negative = text[pos] == '-';
      ++pos;
      return true;
    }
    return false;
  };
  const bool signed_before = sign();
  bool money = false;
  if (pos < text.size() && text[pos] == '$') {
    money = true;
    ++pos;
    if (!signed_before) sign();  // "$-0.08/kWh" reads like "-$0.08/kWh"
  }
  // Collect the number, dropping '_' digit separators (only between digits).
  std::string digits;
  const std::size_t num_start = pos;
  bool seen_digit = false;
  while (pos < text.size()) {
    const char c = text[pos];
    if (is_ascii_digit(c)) {
      digits += c;
      seen_digit = true;
    } else if (c == '_' && seen_digit && pos + 1 < text.size() && is_ascii_digit(text[pos + 1])) {
      // separator
    } else if (c == '.') {
      digits += c;
    } else if ((c == 'e' || c == 'E') && seen_digit && pos + 1 < text.size() &&
               (is_ascii_digit(text[pos + 1]) ||
                ((text[pos + 1] == '-' || text[pos + 1] == '+') && pos + 2 < text.size() && is_ascii_digit(text[pos + 2])))) {
      digits += c;
      digits += text[++pos];
    } else {
      break;
    }
    ++pos;
  }
  if (!seen_digit) {
    if (pos < text.size() && std::string_view("nNiI").find(text[pos]) != std::string_view::npos)
      return Error{"'" + std::string(original) + "' is not a finite number", "write a finite number such as 1.5e9"};
    return Error{"'" + std::string(original) + "' does not start with a number", "write a number first, e.g. " + std::string(example)};
  }
  if (pos < text.size() && text[pos] == ',' && pos + 1 < text.size() && is_ascii_digit(text[pos + 1]))
    return Error{"'" + std::string(original) + "' uses ',' inside a number",
                 "write 3350 or 3_350 (commas are not digit separators here)"};
  double value = 0.0;
  const auto res = read_double(digits.data(), digits.data() + digits.size(), value);
  if (res.ec == std::errc::result_out_of_range)
    return Error{"'" + std::string(original) + "' is out of range", "numbers must lie within about 1e-300 to 1e300"};
  if (res.ec != std::errc() || res.ptr != digits.data() + digits.size())
    return Error{"'" + std::string(text.substr(num_start, pos - num_start)) + "' is not a valid number", ""};
  if (negative) value = -value;

  // An attached count suffix ("128k", "8Ki", "$40k") followed by the end or a space.
  std::size_t suffix_end = pos;
  while (suffix_end < text.size() && is_symbol_byte(text[suffix_end])) ++suffix_end;
  const std::string_view attached = text.substr(pos, suffix_end - pos);
  if (const double mult = count_suffix(attached); mult != 0.0) {
    value *= mult;
    pos = suffix_end;
  } else if (money && !attached.empty()) {
    return Error{"'" + std::string(original) + "': unexpected '" + std::string(attached) + "' after a dollar amount",
                 attached == "B" || attached == "bn" ? "for billions write $1.8e9" : "write e.g. $2.50/h or $40k"};
  }

  const std::string_view rest = trim(text.substr(pos));
  Quantity q = Quantity::number(value);
  had_unit = money || !rest.empty();
  if (money) {
    q.dim = dims::currency;
    if (rest.empty()) return q;
    if (rest.front() != '/')
      return Error{"'" + std::string(original) + "': a dollar amount may only be followed by /UNIT", "e.g. $2.50/h"};
    auto u = parse_unit(rest.substr(1));
    if (!u) return u.error();
    if (u->point) return Error{"a price per degC makes no sense", "use K"};
    if (!dims_fit(dims::currency, 1, u->dim, -1)) return dim_range_error(dims::currency, 1, u->dim, -1, "'" + std::string(original) + "'");
    q.value /= u->factor;
    q.dim = dims::currency / u->dim;
    if (!std::isfinite(q.value)) return Error{"'" + std::string(original) + "' is out of range", ""};
    return q;
  }
  if (rest.empty()) return q;
  // "20/s" and "5/min" are rates of a count: read them as 20 (1/s).
  auto u = rest.front() == '/' ? parse_unit("1" + std::string(rest)) : parse_unit(rest);
  if (!u) return u.error();
  q.value = value * u->factor + u->offset;
  q.dim = u->dim;
  q.point = u->point;
  if (!std::isfinite(q.value)) return Error{"'" + std::string(original) + "' is out of range", ""};
  return q;
}
}  // namespace

Expected<Quantity> parse_quantity(std::string_view text) {
  bool had_unit = false;
  return parse_quantity_impl(text, had_unit, "80 GB");
}

Error dimension_error(std::string_view input_name, const Expectation& want, std::string_view got_text,
                      const Quantity& got) {
  const std::string name = input_name.empty() ? std::string("value") : std::string(input_name);
  std::string expected = want.point ? "a temperature (a point such as \"30 degC\")"
                                    : dim_words(want.dim) + " (" + dim_formula(want.dim) + ")";
  if (!want.point) {
    const std::string ex = dim_example(want.dim);
    if (!ex.empty())
      expected = dim_words(want.dim) + " (" + dim_formula(want.dim) + ", e.g. \"" + ex + "\")";
  }
  const std::string got_words =
      got.point ? "a temperature point (degC)" : dim_words(got.dim) + " (" + dim_formula(got.dim) + ")";
  std::string hint;
  if (want.dim == got.dim && want.point && !got.point) {
    hint = "write a temperature point in degC, e.g. 30 degC (K is for differences)";
  } else if (want.dim == got.dim && !want.point && got.point) {
    hint = "a difference is written in K, e.g. 10 K (degC is a point)";
  } else if (is_count_like(want.dim) && got.dim == dims::information) {
    hint = "B means bytes; for a count write 70e9 (70 billion) or 128k";
  } else if (got.dim == dims::temperature && want.dim != dims::temperature && !got_text.empty() && got_text.back() == 'K') {
    // "128K" reads as 128 kelvin; the writer almost always meant thousands.
    std::string thousands(got_text);
    thousands.back() = 'k';
    hint = "K is kelvin; for thousands write a lower-case k, e.g. " + thousands;
  } else if (want.dim[Base::currency] != 0 && got.dim[Base::currency] == 0 && got_text.size() >= 2 &&
             (got_text[0] == '.' || got_text[0] == '0') && std::isdigit(static_cast<unsigned char>(got_text[1])) != 0) {
    // "$2.50/h" typed unquoted reaches the program as ".50/h": the shell read $2 as a variable (empty).
    const std::string ex = dim_example(want.dim);
    hint = "an unquoted $ followed by a digit is a shell variable, which the shell replaced (\"$2.50/h\" arrives as \".50/h\"): "
           "put the price in single quotes, e.g. '" + (ex.empty() ? std::string("$2.50/h") : ex) + "'";
  } else if (got.dim.dimensionless()) {
    const std::string ex = dim_example(want.dim);
    hint = ex.empty() ? "add a unit" : "add a unit, e.g. " + ex;
  } else {
    const Dim extra = got.dim / want.dim;  // got = want * extra
    const Dim missing = want.dim / got.dim;
    auto simple = [](const Dim& d) {
      for (auto x : d.e)
        if (x < 0) return false;
      return !d.dimensionless() && dim_words(d).rfind("a quantity of", 0) != 0;
    };
    // Prefer the fix that names a plain quantity ("multiply by a time" over "divide by a frequency").
    if (simple(extra))
      hint = "divide by " + dim_words(extra);
    else if (simple(missing))
      hint = "multiply by " + dim_words(missing);
    else if (dim_words(extra).rfind("a quantity of", 0) != 0)
      hint = "divide by " + dim_words(extra);
    else if (dim_words(missing).rfind("a quantity of", 0) != 0)
      hint = "multiply by " + dim_words(missing);
    else
      hint = "check the unit";
  }
  std::string shown(got_text);
  if (shown.empty()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%g", got.point ? got.value - 273.15 : got.value);
    shown = std::string(buf) + " " + (got.point ? std::string("degC") : base_unit_string(got.dim));
  }
  return Error{name + ": expected " + expected + ", got \"" + shown + "\" (" + got_words + ")", hint};
}

namespace {
// A value of the expected kind for hints: the dimension's stock example ("$0.08/kWh" for a tariff).
std::string example_of(const Expectation& want) {
  if (want.point) return "30 degC";
  if (want.dim == dims::none) return "8 or 0.5";
  const std::string ex = dim_example(want.dim);
  return ex.empty() ? "1 " + base_unit_string(want.dim) : ex;
}
}  // namespace

Expected<Quantity> parse_input(std::string_view text, const Expectation& want, std::string_view input_name) {
  bool had_unit = false;
  // Only a failed parse needs the example; the common path builds no string for it.
  auto q = parse_quantity_impl(text, had_unit, {});
  if (!q) q = parse_quantity_impl(text, had_unit, example_of(want));
  if (!q) return Error{(input_name.empty() ? std::string("value") : std::string(input_name)) + ": " + q.error().message, q.error().hint};
  Quantity v = q.value();
  // A bare number is a count of whatever the input counts (tokens, FLOP, or a plain number).
  if (!had_unit && is_count_like(want.dim) && !want.point) v.dim = want.dim;
  if (v.dim != want.dim || v.point != want.point) return dimension_error(input_name, want, trim(text), v);
  return v;
}

}  // namespace infracalc
