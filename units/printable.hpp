// User bytes in error messages: control bytes and invalid UTF-8 never reach the terminal raw.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace infracalc {

/// Length of the UTF-8 sequence that starts `s` (1 for ASCII) when its lead byte and continuation bytes are
/// well formed and all present, else 0.
[[nodiscard]] inline std::size_t utf8_sequence_length(std::string_view s) {
  if (s.empty()) return 0;
  const auto c = static_cast<unsigned char>(s[0]);
  const std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
  if (len == 0 || len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[k]) & 0xC0) != 0x80) return 0;
  return len;
}

/// `bytes` for an error message: printable ASCII as it is, a well-formed multi-byte character as U+XXXX, and any
/// other byte (control, invalid UTF-8) as \xHH: "caf" U+00E9, "\xEF".
[[nodiscard]] std::string printable(std::string_view bytes);

}  // namespace infracalc
