#include "cli/wrap.hpp"

#include <algorithm>
#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

namespace infracalc::cli {

namespace {

std::size_t columns_of(std::string_view s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

}  // namespace

std::size_t help_width() {
  std::size_t w = 100;
  winsize ws{};
  if (isatty(STDOUT_FILENO) != 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    w = ws.ws_col;
  } else if (const char* env = std::getenv("COLUMNS"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    const long v = std::strtol(env, &end, 10);
    if (end != env && *end == '\0' && v > 0) w = static_cast<std::size_t>(v);
  }
  return std::clamp<std::size_t>(w, 40, 200);
}

std::string wrap(std::string_view text, std::size_t width, std::size_t indent, std::size_t column) {
  std::string out;
  std::size_t at = column;
  bool line_has_word = false;
  // Puts `piece` on the line, after a space when `spaced`, or on a new line when it would pass the width.
  auto place = [&](std::string_view piece, bool spaced) {
    const std::size_t w = columns_of(piece);
    if (line_has_word && at + (spaced ? 1 : 0) + w > width) {
      out += '\n';
      out.append(indent, ' ');
      at = indent;
      line_has_word = false;
    }
    if (line_has_word && spaced) {
      out += ' ';
      ++at;
    }
    out += piece;
    at += w;
    line_has_word = true;
  };
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t j = text.find(' ', i);
    if (j == std::string_view::npos) j = text.size();
    const std::string_view word = text.substr(i, j - i);
    // A choice list longer than a line (fp32|tf32|...|nvfp4) breaks after a '|'.
    if (columns_of(word) > width - std::min(width, indent) && word.find('|') != std::string_view::npos) {
      for (std::size_t k = 0; k < word.size();) {
        std::size_t bar = word.find('|', k);
        bar = bar == std::string_view::npos ? word.size() : bar + 1;
        place(word.substr(k, bar - k), k == 0);
        k = bar;
      }
    } else {
      place(word, true);
    }
    i = j;
  }
  return out;
}

}  // namespace infracalc::cli
