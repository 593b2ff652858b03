// Lists typed into one flag: words ("a, b,c": ids to compare, formats, layouts) and plain numbers ("0.1,-2.5,3":
// values to encode, logits to sample from).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace infracalc {

/// The items of `text` split at any character of `separators`, each with the white space around it trimmed;
/// empty items are dropped ("a, b,,c" gives a, b, c).
[[nodiscard]] std::vector<std::string> split_list(std::string_view text, std::string_view separators = ",");

/// The finite numbers of `text`, separated by commas, spaces or semicolons; a UserError naming `flag` for
/// anything else, for an empty list, or for more than `most` numbers.
[[nodiscard]] std::vector<double> parse_number_list(std::string_view text, std::string_view flag, std::size_t most);

}  // namespace infracalc
