// User bytes in error messages and text output: control bytes, bidirectional overrides and invalid UTF-8 never
// reach the terminal raw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace infracalc {

/// Length of the UTF-8 sequence that starts `s` (1 for ASCII) when it is well formed in the sense of Unicode
/// (RFC 3629): lead and continuation bytes all present, the shortest form (no overlong encoding), no surrogate
/// (U+D800-DFFF) and nothing above U+10FFFF; else 0.
[[nodiscard]] inline std::size_t utf8_sequence_length(std::string_view s) {
  if (s.empty()) return 0;
  const auto c = static_cast<unsigned char>(s[0]);
  const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) return 0;
  if (len == 1) return 1;
  // The second byte bounds what the first allows (Unicode table 3-7): C0/C1 and E0 80-9F, F0 80-8F are
  // overlong; ED A0-BF are surrogates; F4 90-BF and F5-F7 lie above U+10FFFF.
  const auto c1 = static_cast<unsigned char>(s[1]);
  if (c < 0xC2) return 0;
  if (c == 0xE0 && c1 < 0xA0) return 0;
  if (c == 0xED && c1 > 0x9F) return 0;
  if (c == 0xF0 && c1 < 0x90) return 0;
  if (c == 0xF4 && c1 > 0x8F) return 0;
  if (c > 0xF4) return 0;
  return len;
}

/// What `printable` keeps as it is.
enum class Keep : unsigned char {
  /// Printable ASCII only; every other character as U+XXXX (one character quoted in an error message).
  ascii,
  /// Also well-formed printable characters beyond ASCII ("é", "×", "µ"): any text from input or data that reaches
  /// a terminal on one line (an error message, a table cell). C1 controls (U+0080-009F) and the bidirectional
  /// controls that reorder text (U+061C, U+200E-200F, U+202A-202E, U+2066-2069) are still written as U+XXXX.
  text,
  /// As `text`, keeping line feeds and tabs: a whole block of text output that has no escape sequence of its own.
  lines,
};

/// `bytes` safe to write to a terminal: printable ASCII as it is, a well-formed character as it is or as U+XXXX
/// (per `keep`), and any other byte (control, DEL, ESC, invalid UTF-8) as \xHH: "caf" U+00E9, "\xEF", "\x1B]0;".
[[nodiscard]] std::string printable(std::string_view bytes, Keep keep = Keep::ascii);

/// At most the first `most` bytes of `text` (cut at a character boundary, "..." when cut), through
/// printable(Keep::text): how an error quotes the content of a file, which may be anything.
[[nodiscard]] std::string excerpt(std::string_view text, std::size_t most = 40);

}  // namespace infracalc
