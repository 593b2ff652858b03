#include "plugins/core/number_list.hpp"

#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>

#include "units/expected.hpp"

namespace infracalc {

std::vector<double> parse_number_list(std::string_view text, std::string_view flag, std::size_t most) {
  std::vector<double> out;
  std::size_t i = 0;
  const auto separator = [](char c) { return c == ',' || c == ' ' || c == ';'; };
  while (i < text.size()) {
    while (i < text.size() && separator(text[i])) ++i;
    if (i >= text.size()) break;
    std::size_t j = i;
    while (j < text.size() && !separator(text[j])) ++j;
    const std::string tok(text.substr(i, j - i));
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0' || !std::isfinite(v))
      throw UserError{{fmt::format("{}: \"{}\" is not a finite number", flag, tok), "give numbers separated by commas, e.g. 0.1,-2.5,3"}};
    if (out.size() == most) throw UserError{{fmt::format("{}: more than {} numbers", flag, most), "give fewer values"}};
    out.push_back(v);
    i = j;
  }
  if (out.empty()) throw UserError{{fmt::format("{}: no numbers given", flag), "e.g. 0.1,-2.5,3"}};
  return out;
}

}  // namespace infracalc
