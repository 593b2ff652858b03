// A strict JSON reader into Node (for batch records and Hugging Face configs) and a string escaper for writers.
#pragma once

#include <string>
#include <string_view>

#include "documents/node.hpp"
#include "units/expected.hpp"

namespace infracalc {

/// Parses one JSON document (RFC 8259); a leading UTF-8 byte-order mark is skipped. Errors read
/// "source:line:col: what" and show non-ASCII bytes as U+XXXX or \xHH. Nesting is limited to 64.
[[nodiscard]] Expected<Node> read_json(std::string_view text, std::string_view source_name);

/// Appends `s` to `out` as a JSON string literal, quotes included, escaping control characters and
/// replacing invalid UTF-8 with U+FFFD.
void append_json_string(std::string& out, std::string_view s);

}  // namespace infracalc
