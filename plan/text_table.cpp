#include "plan/text_table.hpp"

#include <algorithm>

#include "units/printable.hpp"

namespace infracalc::writers {

std::size_t display_width(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

namespace {

std::string padded(const std::string& s, std::size_t w) {
  const std::size_t have = display_width(s);
  return s + std::string(w > have ? w - have : 0, ' ');
}

// The first `w` - 1 code points of `s` and '~'.
std::string cut_to(const std::string& s, std::size_t w) {
  std::size_t points = 0;
  std::size_t end = 0;
  for (; end < s.size(); ++end)
    if ((static_cast<unsigned char>(s[end]) & 0xC0) != 0x80 && points++ == w - 1) break;
  return s.substr(0, end) + "~";
}

}  // namespace

std::string aligned_rows(std::vector<std::vector<std::string>> rows, const GridStyle& style) {
  for (auto& r : rows)
    for (auto& cell : r) {
      if (style.escape) cell = printable(cell, Keep::text);
      if (style.cut && style.widest > 0 && display_width(cell) > style.widest) cell = cut_to(cell, style.widest);
    }
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      const std::size_t cell = display_width(r[i]);
      w[i] = std::max(w[i], style.widest > 0 ? std::min(cell, style.widest) : cell);
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line = style.indent;
    for (std::size_t i = 0; i < r.size(); ++i) line += (i + 1 < r.size() ? padded(r[i], w[i] + style.gap) : r[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

std::string md_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

std::string md_table(const std::vector<std::string>& head, const std::vector<std::vector<std::string>>& rows) {
  std::string out = "|";
  for (const auto& h : head) out += " " + md_escape(h) + " |";
  out += "\n|";
  for (std::size_t i = 0; i < head.size(); ++i) out += "---|";
  out += "\n";
  for (const auto& r : rows) {
    out += "|";
    for (const auto& c : r) out += " " + md_escape(c) + " |";
    out += "\n";
  }
  return out;
}

std::string bold(std::string_view text, bool color) {
  const std::string s = printable(text, Keep::text);
  return color ? "\x1b[1m" + s + "\x1b[0m" : s;
}

std::string green(std::string_view word, bool color) { return color ? "\x1b[32m" + std::string(word) + "\x1b[0m" : std::string(word); }

std::string red(std::string_view word, bool color) { return color ? "\x1b[31m" + std::string(word) + "\x1b[0m" : std::string(word); }

}  // namespace infracalc::writers
