// Small wording helpers for notes and messages: a count with its noun in the right number ("1 tier",
// "2 tiers") and the article before a spoken number ("an 8% cost of capital", "a 7% rate").
#pragma once

#include <concepts>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace infracalc {

/// "1 tier", "3 tiers", "0 tiers", "1.5 tiers": the count as given by fmt's {:g}, and the singular noun only for
/// exactly one. `plural` defaults to the noun with an "s" appended.
[[nodiscard]] inline std::string count_noun(double n, std::string_view singular, std::string_view plural = {}) {
  const std::string many = plural.empty() ? std::string(singular) + "s" : std::string(plural);
  return fmt::format("{:g} {}", n, n == 1.0 ? std::string(singular) : many);
}

/// The same for integer counts, written in full ("16384 links").
template <std::integral T>
[[nodiscard]] std::string count_noun(T n, std::string_view singular, std::string_view plural = {}) {
  const std::string many = plural.empty() ? std::string(singular) + "s" : std::string(plural);
  return fmt::format("{} {}", n, n == 1 ? std::string(singular) : many);
}

/// "an" when a number written as `digits` is spoken with a vowel sound first (eight, eleven, eighteen, eighty,
/// eight hundred, eleven thousand, ...), else "a". `digits` is the number as printed, perhaps with a unit ("8",
/// "11.5", "18000", "80,000", "800 Gb/s", "$8k"); only its integer part counts.
[[nodiscard]] inline std::string_view article_for_number(std::string_view digits) {
  std::string whole;
  for (char c : digits) {
    if (c >= '0' && c <= '9') whole += c;
    else if (!whole.empty() && c != ',') break;  // the integer part ends at '.', a space or a unit
  }
  while (whole.size() > 1 && whole.front() == '0') whole.erase(whole.begin());
  if (whole.empty()) return "a";
  // The number is spoken from its leading group of up to three digits ("18" of 18,000, "8" of 8,500).
  const std::size_t lead = whole.size() % 3 == 0 ? 3 : whole.size() % 3;
  const std::string group = whole.substr(0, lead);
  if (group.front() == '8') return "an";
  if (group == "11" || group == "18") return "an";
  return "a";
}

}  // namespace infracalc
