#include "units/charconv.hpp"

#include <cmath>
#include <cstdio>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <fmt/format.h>

namespace infracalc::portable_charconv {

namespace {

bool charconv_digit(char c) { return c >= '0' && c <= '9'; }

bool charconv_word(const char* p, const char* last, const char* word) {
  const std::size_t n = std::strlen(word);
  if (static_cast<std::size_t>(last - p) < n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if ((p[i] | 0x20) != word[i]) return false;
  return true;
}

}  // namespace

std::from_chars_result read_double(const char* first, const char* last, double& value) {
  // The extent of the text std::from_chars accepts: strtod accepts more (a '+', leading spaces, hexadecimal).
  const char* p = first;
  if (p != last && *p == '-') ++p;
  const char* end = nullptr;
  bool special = false;
  bool nonzero = false;
  if (charconv_word(p, last, "infinity")) {
    end = p + 8, special = true;
  } else if (charconv_word(p, last, "inf")) {
    end = p + 3, special = true;
  } else if (charconv_word(p, last, "nan")) {
    end = p + 3, special = true;
    if (end != last && *end == '(') {
      const char* q = end + 1;
      while (q != last && (charconv_digit(*q) || std::isalpha(static_cast<unsigned char>(*q)) || *q == '_')) ++q;
      if (q != last && *q == ')') end = q + 1;
    }
  } else {
    const char* q = p;
    std::size_t digits = 0;
    for (; q != last && charconv_digit(*q); ++q, ++digits) nonzero = nonzero || *q != '0';
    if (q != last && *q == '.')
      for (++q; q != last && charconv_digit(*q); ++q, ++digits) nonzero = nonzero || *q != '0';
    if (digits == 0) return {first, std::errc::invalid_argument};
    if (q != last && (*q == 'e' || *q == 'E')) {
      const char* e = q + 1;
      if (e != last && (*e == '+' || *e == '-')) ++e;
      if (e != last && charconv_digit(*e)) {
        while (e != last && charconv_digit(*e)) ++e;
        q = e;
      }
    }
    end = q;
  }
  const std::string text(first, end);
  const double v = std::strtod(text.c_str(), nullptr);
  if (!special && (std::isinf(v) || (v == 0.0 && nonzero))) return {end, std::errc::result_out_of_range};
  value = v;
  return {end, std::errc()};
}

std::to_chars_result write_shortest(char* first, char* last, double v) {
  // fmt's "{}" is the shortest text that reads back to v, as std::to_chars is (both pick the closest of the
  // shortest); only its choice between fixed and scientific differs, so its digits are laid out again here.
  char shortest[64];
  const char* shortest_end = fmt::format_to_n(shortest, sizeof shortest, "{}", v).out;
  std::string out;
  if (!std::isfinite(v) || v == 0.0) {
    out.assign(shortest, static_cast<std::size_t>(shortest_end - shortest));
  } else {
    const char* p = shortest;
    if (*p == '-') ++p, out += '-';
    std::string digits;
    int point = -1;  // digits before the decimal point, in fmt's text
    for (; p != shortest_end && (charconv_digit(*p) || *p == '.'); ++p) {
      if (*p == '.') point = static_cast<int>(digits.size());
      else digits += *p;
    }
    if (point < 0) point = static_cast<int>(digits.size());
    int exponent = 0;
    if (p != shortest_end && *p == 'e') exponent = std::stoi(std::string(p + 1, shortest_end));
    const std::size_t lead = digits.find_first_not_of('0');
    // `e`: the power of ten of the first significant digit.
    const int e = point - 1 - static_cast<int>(lead) + exponent;
    digits = digits.substr(lead);
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    const int n = static_cast<int>(digits.size());
    const int exponent_digits = std::abs(e) >= 100 ? 3 : 2;
    const int scientific_length = n + (n > 1 ? 1 : 0) + 2 + exponent_digits;
    const int fixed_length = e >= n - 1 ? e + 1 : e >= 0 ? n + 1 : n + 1 - e;
    if (fixed_length <= scientific_length) {
      if (e >= n - 1) {
        // A whole number is written with all its digits, exact, as printf's %f writes it (std::to_chars does
        // the same): 2^57 is 144115188075855872, not the shortest 144115188075855870.
        char whole[400];
        std::snprintf(whole, sizeof whole, "%.0f", std::fabs(v));
        out += whole;
      } else if (e >= 0) {
        out += digits.substr(0, static_cast<std::size_t>(e + 1));
        out += '.';
        out += digits.substr(static_cast<std::size_t>(e + 1));
      } else {
        out += "0.";
        out.append(static_cast<std::size_t>(-e - 1), '0');
        out += digits;
      }
    } else {
      out += digits[0];
      if (n > 1) out += '.' + digits.substr(1);
      out += e < 0 ? "e-" : "e+";
      const std::string power = std::to_string(std::abs(e));
      if (power.size() < 2) out += '0';
      out += power;
    }
  }
  if (out.size() > static_cast<std::size_t>(last - first)) return {last, std::errc::value_too_large};
  std::memcpy(first, out.data(), out.size());
  return {first + out.size(), std::errc()};
}

std::to_chars_result write_fixed(char* first, char* last, double v, int decimals) {
  // printf's %.*f is correctly rounded in glibc and musl (emscripten's C library), as std::to_chars is.
  const int length = std::snprintf(nullptr, 0, "%.*f", decimals, v);
  if (length < 0 || length > last - first) return {last, std::errc::value_too_large};
  std::string text(static_cast<std::size_t>(length) + 1, '\0');
  std::snprintf(text.data(), text.size(), "%.*f", decimals, v);
  std::memcpy(first, text.data(), static_cast<std::size_t>(length));
  return {first + length, std::errc()};
}

}  // namespace infracalc::portable_charconv
