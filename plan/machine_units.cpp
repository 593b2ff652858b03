#include "plan/machine_units.hpp"

#include <array>
#include <cctype>
#include <string>
#include <vector>

#include "plan/output.hpp"
#include "units/parse.hpp"

namespace infracalc::writers {

namespace {

bool is_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// The key's unit word, if any part of it names a unit that changes the value (bits, mtok, hour...).
const KeyUnitWord* converting_word(std::string_view key) {
  for (std::size_t start = 0; start < key.size();) {
    const std::size_t end = std::min(key.find('_', start), key.size());
    const std::string_view part = key.substr(start, end - start);
    // Every converting word starts with one of these letters: most parts ("kv", "per", "total") stop here.
    if (!part.empty() && kConvertingInitials.find(part.front()) != std::string_view::npos)
      for (const auto& w : kKeyUnitWords)
        if (w.word == part && w.symbol != w.base_symbol) return &w;
    start = end + 1;
  }
  return nullptr;
}

// `unit` with every whole symbol `from` replaced by `to` ("J/B" -> "J/bit"; the "B" of a longer symbol is kept).
std::string replace_symbol(std::string_view unit, std::string_view from, std::string_view to) {
  std::string out;
  for (std::size_t i = 0; i < unit.size();) {
    if (!is_letter(unit[i])) {
      out += unit[i++];
      continue;
    }
    std::size_t j = i;
    while (j < unit.size() && is_letter(unit[j])) ++j;
    const std::string_view symbol = unit.substr(i, j - i);
    out += symbol == from ? to : symbol;
    i = j;
  }
  return out;
}

struct Converted {
  Dim dim;
  const KeyUnitWord* word;
  std::string unit;
  double factor;
};

// converting_word() of a result or input key: the same few dozen keys recur in every batch record.
const KeyUnitWord* converting_word_of(std::string_view key) {
  struct Seen {
    std::string key;
    const KeyUnitWord* word = nullptr;
    bool used = false;
  };
  thread_local std::array<Seen, 128> memo;
  // Length and three characters tell the keys of a result apart well enough; a collision only recomputes.
  const std::size_t h = key.empty() ? 0 : key.size() * 131 + static_cast<unsigned char>(key.front()) * 31 +
                                              static_cast<unsigned char>(key[key.size() / 2]) * 7 + static_cast<unsigned char>(key.back());
  Seen& s = memo[h % memo.size()];
  if (!s.used || s.key != key) s = Seen{std::string(key), converting_word(key), true};
  return s.word;
}

}  // namespace

MachineQuantity machine_quantity(std::string_view key, const Quantity& q) {
  if (q.point) return {q.value, machine_unit(q)};
  MachineConversion c = machine_conversion(key, q.dim);
  return {q.value / c.factor, std::move(c.unit)};
}

MachineConversion machine_conversion(std::string_view key, const Dim& dim) {
  const KeyUnitWord* word = converting_word_of(key);
  // A few dimensions and words recur in every result: remember each unit and its factor (a key without a
  // converting word is in the dimension's base unit).
  thread_local std::vector<Converted> seen;
  for (const auto& c : seen)
    if (c.word == word && c.dim == dim) return {c.unit, c.factor};
  if (word == nullptr) {
    std::string base = base_unit_string(dim);
    if (seen.size() < 64) seen.push_back({dim, nullptr, base, 1.0});
    return {std::move(base), 1.0};
  }
  const std::string base = base_unit_string(dim);
  std::string unit = word->base_symbol.empty() ? std::string(word->symbol) : replace_symbol(base, word->base_symbol, word->symbol);
  double factor = 1;
  if (unit != base) {
    // The renamed unit is read back by the one unit parser, so its factor is the one `calc` uses.
    auto parsed = parse_unit(unit);
    if (parsed && parsed->dim == dim) factor = parsed->factor;
    else unit = base;
  }
  if (seen.size() < 64) seen.push_back({dim, word, unit, factor});
  return {unit, factor};
}

}  // namespace infracalc::writers
