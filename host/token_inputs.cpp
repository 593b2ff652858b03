#include "host/token_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "host/context.hpp"
#include "units/expected.hpp"
#include "units/format.hpp"

namespace infracalc {

std::int64_t whole_tokens(const Context& ctx, std::string_view key, std::int64_t least, std::int64_t most) {
  const double v = ctx.get<Tokens>(key).value();
  if (v != std::floor(v) || v < static_cast<double>(least) || v > static_cast<double>(most))
    throw UserError{{fmt::format("{}: expected a whole number of tokens from {} to {}, got {}", Context::flag_name(key), least, most,
                                 // Every digit when it is not whole: 3200.0000000000005 is not "3200".
                                 v == std::floor(v) ? format_number(v, 6) : format_machine(v)),
                     fmt::format("give a whole number of tokens, e.g. {}", std::isfinite(v) ? static_cast<std::int64_t>(std::clamp(std::round(v), static_cast<double>(least), static_cast<double>(most))) : least)}};
  return static_cast<std::int64_t>(v);
}

}  // namespace infracalc
