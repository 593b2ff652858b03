// Shared input-name aliases: one table of the names people type for the same input in different calculators
// (--utilization for --utilisation, --prompt-tokens for --prompt, --arrival-rate for --rate, --bytes for --size), and
// of the spelled-out choice values (--op all-reduce). The host resolves them (flags, batch records, plans); the CLI
// registers them as flags, and help and did-you-mean list them. Defined in context.cpp.
#pragma once

#include <string_view>
#include <vector>

#include "host/plugin.hpp"

namespace infracalc {

/// The other names (snake_case) input `in` of `calc` answers to: the names in its alias group that `calc` does not
/// declare itself, when the input's dimension fits the group (--bytes never names a count of values).
[[nodiscard]] std::vector<std::string_view> input_aliases(const Calculator& calc, const Input& in);
/// The choice a spelled-out value names ("all-reduce" → "allreduce"), or `text` itself.
[[nodiscard]] std::string_view choice_alias(std::string_view text);

}  // namespace infracalc
