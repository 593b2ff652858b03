// The check that runs before toml++ sees a document: no non-ASCII character where the parser tests for
// whitespace (see toml_guard.cpp for why).
#pragma once

#include <optional>
#include <string_view>

#include "units/expected.hpp"

namespace infracalc {

/// The first non-ASCII character of `text` outside a string or a comment (where TOML 1.0 allows none), or right
/// after a backslash inside a multi-line basic string, as "source:line:col: ..." with a hint; nullopt when
/// there is none. Lines and columns count characters from 1, as toml++'s own errors do.
[[nodiscard]] std::optional<Error> non_ascii_outside_strings(std::string_view text, std::string_view source_name);

}  // namespace infracalc
