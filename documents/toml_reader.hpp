// Reads TOML text into a Node tree (the only translation unit that includes toml++).
#pragma once

#include <string_view>

#include "documents/node.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// Parses TOML; a syntax error comes back as "source:line:col: description".
[[nodiscard]] Expected<Node> read_toml(std::string_view text, std::string_view source_name);

}  // namespace infracalc
