// libFuzzer target: the calc expression evaluator and the formatting of its result.
#include <cstddef>
#include <cstdint>
#include <string>

#include "units/expr.hpp"
#include "units/format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 4096) return 0;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto r = infracalc::evaluate(text);
  if (!r) return 0;
  try {
    if (r->target) (void)infracalc::format_in_unit(r->value, *r->target, 4);
    else (void)infracalc::format_human(r->value);
  } catch (const infracalc::UserError&) {
  }
  return 0;
}
