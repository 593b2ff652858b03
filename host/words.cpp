#include "host/words.hpp"

#include <cctype>

#include "units/format.hpp"

namespace infracalc {

std::string plural_of(double n, std::string_view one, std::string_view many) {
  std::string out = format_count(n, 4) + " ";
  if (n == 1 || n == -1) return out + std::string(one);
  return out + (many.empty() ? std::string(one) + "s" : std::string(many));
}

std::string_view article(std::string_view next) {
  if (next.size() > 1 && next.front() == '$' && std::isdigit(static_cast<unsigned char>(next[1])) != 0) next.remove_prefix(1);
  if (next.empty()) return "a";
  const auto c = static_cast<unsigned char>(next.front());
  if (std::isdigit(c) != 0) {
    // Numbers read aloud: 8, 80, 800, 8,192 ("eight ..."); 11 and 18 and their thousands ("eleven ...").
    if (c == '8') return "an";
    std::size_t lead = 0;
    while (lead < next.size() && std::isdigit(static_cast<unsigned char>(next[lead])) != 0) ++lead;
    std::size_t group = lead;
    if (lead < next.size() && next[lead] == ',') group = lead;  // "11,000": the group before the separator
    else if (lead > 3) group = lead % 3 == 0 ? 3 : lead % 3;     // "11000": the leading group of three
    const std::string_view g = next.substr(0, group);
    return g == "11" || g == "18" ? "an" : "a";
  }
  // Acronyms read letter by letter: an NVLink, an HBM stack, an SXM board, but a GPU, a PCIe link.
  const bool acronym = next.size() > 1 && std::isupper(c) != 0 && std::isupper(static_cast<unsigned char>(next[1])) != 0;
  if (acronym) return std::string_view("AEFHILMNORSX").find(static_cast<char>(c)) != std::string_view::npos ? "an" : "a";
  const auto l = static_cast<char>(std::tolower(c));
  if (l == 'u' && (next.substr(1, 2) == "ni" || next.substr(1, 2) == "se" || next.substr(1, 2) == "su")) return "a";
  return std::string_view("aeiou").find(l) != std::string_view::npos ? "an" : "a";
}

std::string with_article(std::string_view next) { return std::string(article(next)) + " " + std::string(next); }

}  // namespace infracalc
