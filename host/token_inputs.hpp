// Token-count inputs read as whole numbers: the one checked way a calculator turns a token input into an
// integer (a prompt length, a context window), never a bare cast.
#pragma once

#include <cstdint>
#include <string_view>

namespace infracalc {

class Context;

/// A token-count input as a whole number from `least` to `most`; throws UserError naming the flag, the range
/// and the value otherwise (a token count cast to an integer goes through here, never a bare cast).
[[nodiscard]] std::int64_t whole_tokens(const Context& ctx, std::string_view key, std::int64_t least, std::int64_t most);

}  // namespace infracalc
