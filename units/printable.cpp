#include "units/printable.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace infracalc {

namespace {

// A code point that reorders or hides text on a terminal: C1 controls and the bidirectional controls.
bool is_hidden_control(std::uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9F) || cp == 0x61C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(std::string_view bytes, Keep keep) {
  // Fast path: text that is all printable ASCII (nearly every id, flag and cell) comes back as it is.
  std::size_t plain = 0;
  while (plain < bytes.size()) {
    const auto c = static_cast<unsigned char>(bytes[plain]);
    if ((c < 0x20 || c >= 0x7F) && !(keep == Keep::lines && (c == '\n' || c == '\t'))) break;
    ++plain;
  }
  std::string out(bytes.substr(0, plain));
  if (plain == bytes.size()) return out;
  for (std::size_t i = plain; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if ((c >= 0x20 && c < 0x7F) || (keep == Keep::lines && (c == '\n' || c == '\t'))) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t len = c >= 0x80 ? utf8_sequence_length(bytes.substr(i)) : 0;
    if (len == 0) {
      out += fmt::format("\\x{:02X}", c);
      ++i;
      continue;
    }
    // The lead byte keeps 7 - len bits (5, 4 or 3), each continuation byte 6.
    std::uint32_t cp = c & (0x7Fu >> len);
    for (std::size_t k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(bytes[i + k]) & 0x3Fu);
    if (keep != Keep::ascii && !is_hidden_control(cp)) out.append(bytes.substr(i, len));
    else out += fmt::format("U+{:04X}", cp);
    i += len;
  }
  return out;
}

std::string excerpt(std::string_view text, std::size_t most) {
  if (text.size() <= most) return printable(text, Keep::text);
  std::size_t cut = most;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // not inside a character
  return printable(text.substr(0, cut), Keep::text) + "...";
}

}  // namespace infracalc
