// Plain numbers typed as one list ("0.1,-2.5,3"): values to encode, logits to sample from.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace infracalc {

/// The finite numbers of `text`, separated by commas, spaces or semicolons; a UserError naming `flag` for
/// anything else, for an empty list, or for more than `most` numbers.
[[nodiscard]] std::vector<double> parse_number_list(std::string_view text, std::string_view flag, std::size_t most);

}  // namespace infracalc
