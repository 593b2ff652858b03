#include "host/number_list.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string>

#include "units/expected.hpp"

namespace infracalc {

std::vector<std::string> split_list(std::string_view text, std::string_view separators) {
  std::vector<std::string> out;
  const auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t i = 0;
  while (i <= text.size()) {
    const std::size_t j = std::min(text.find_first_of(separators, i), text.size());
    std::size_t a = i;
    std::size_t b = j;
    while (a < b && space(text[a])) ++a;
    while (b > a && space(text[b - 1])) --b;
    if (b > a) out.emplace_back(text.substr(a, b - a));
    i = j + 1;
  }
  return out;
}

std::vector<double> parse_number_list(std::string_view text, std::string_view flag, std::size_t most) {
  std::vector<double> out;
  for (const std::string& tok : split_list(text, ", ;")) {
    char* end = nullptr;
    const double v = std::strtod(tok.c_str(), &end);
    if (end == tok.c_str() || *end != '\0' || !std::isfinite(v))
      throw UserError{{fmt::format("{}: \"{}\" is not a finite number", flag, tok), "give numbers separated by commas, e.g. 0.1,-2.5,3"}};
    if (out.size() == most) throw UserError{{fmt::format("{}: more than {} numbers", flag, most), "give fewer values"}};
    out.push_back(v);
  }
  if (out.empty()) throw UserError{{fmt::format("{}: no numbers given", flag), "e.g. 0.1,-2.5,3"}};
  return out;
}

}  // namespace infracalc
