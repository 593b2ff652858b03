// Decimal text of doubles: std::from_chars and std::to_chars where the standard library has them for floating
// point (libstdc++, the native build), and portable equivalents where it does not (libc++ 13, which the Debian
// emscripten package ships for the WebAssembly build). Both give the same text for every double: the
// charconv test compares them.
#pragma once

#include <charconv>

namespace infracalc {

namespace portable_charconv {
/// std::from_chars(first, last, value) for a double (format general): the same accepted text, ends and errors
/// (invalid_argument; result_out_of_range, value unchanged, when the number overflows or underflows to zero).
std::from_chars_result read_double(const char* first, const char* last, double& value);
/// std::to_chars(first, last, v): the shortest text that reads back to v, fixed or scientific, fixed on a tie.
std::to_chars_result write_shortest(char* first, char* last, double v);
/// std::to_chars(first, last, v, std::chars_format::fixed, decimals): correctly rounded.
std::to_chars_result write_fixed(char* first, char* last, double v, int decimals);
}  // namespace portable_charconv

#if defined(__cpp_lib_to_chars)
/// std::from_chars for a double.
inline std::from_chars_result read_double(const char* first, const char* last, double& value) {
  return std::from_chars(first, last, value);
}
/// std::to_chars for a double: the shortest text that reads back to it.
inline std::to_chars_result write_shortest(char* first, char* last, double v) { return std::to_chars(first, last, v); }
/// std::to_chars for a double in fixed notation with `decimals` digits after the point.
inline std::to_chars_result write_fixed(char* first, char* last, double v, int decimals) {
  return std::to_chars(first, last, v, std::chars_format::fixed, decimals);
}
#else
/// std::from_chars for a double.
inline std::from_chars_result read_double(const char* first, const char* last, double& value) {
  return portable_charconv::read_double(first, last, value);
}
/// std::to_chars for a double: the shortest text that reads back to it.
inline std::to_chars_result write_shortest(char* first, char* last, double v) {
  return portable_charconv::write_shortest(first, last, v);
}
/// std::to_chars for a double in fixed notation with `decimals` digits after the point.
inline std::to_chars_result write_fixed(char* first, char* last, double v, int decimals) {
  return portable_charconv::write_fixed(first, last, v, decimals);
}
#endif

}  // namespace infracalc
