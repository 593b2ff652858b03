#include "host/token_inputs.hpp"

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
                                 format_number(v, 6)),
                     ""}};
  return static_cast<std::int64_t>(v);
}

}  // namespace infracalc
