#include "units/printable.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace infracalc {

std::string printable(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7F) {
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
    out += fmt::format("U+{:04X}", cp);
    i += len;
  }
  return out;
}

}  // namespace infracalc
