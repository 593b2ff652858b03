// libFuzzer target: the quantity parser, the dimension check and the formatter on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "units/format.hpp"
#include "units/parse.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto q = infracalc::parse_quantity(text);
  if (q) {
    (void)infracalc::format_human(*q);
    infracalc::FormatOptions bin;
    bin.binary = true;
    bin.digits = 1 + static_cast<int>(size % 17);
    (void)infracalc::format_human(*q, bin);
    (void)infracalc::format_machine(q->value);
  }
  for (const auto& d : {infracalc::dims::token, infracalc::dims::data_rate, infracalc::dims::none}) {
    auto r = infracalc::parse_input(text, {d, false}, "--x");
    if (!r) (void)r.error().text();
  }
  (void)infracalc::parse_input(text, {infracalc::dims::temperature, true}, "--supply");
  auto u = infracalc::parse_unit(text);
  if (u && q && u->dim == q->dim && !u->point && !q->point) (void)infracalc::format_in_unit(*q, *u, 4);
  return 0;
}
