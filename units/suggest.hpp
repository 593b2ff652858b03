// Did-you-mean suggestions for names the user mistyped.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace infracalc {

/// Optimal-string-alignment edit distance (Damerau-Levenshtein without repeated edits).
[[nodiscard]] std::size_t edit_distance(std::string_view a, std::string_view b);

/// The closest candidate to `typed` when it is close enough to be a likely typo, else "".
/// Comparison ignores case; a candidate that contains `typed` (or is contained) also counts.
[[nodiscard]] std::string closest_match(std::string_view typed, const std::vector<std::string_view>& candidates);

/// "; did you mean 'x'?"-style fragment: "did you mean 'x'?" or "" when nothing is close. Equally close
/// candidates (up to three) are all offered, the nearest edit first; each is shown after `shown_prefix`
/// ("did you mean '--tokens'?" for flags).
[[nodiscard]] std::string did_you_mean(std::string_view typed, const std::vector<std::string_view>& candidates,
                                       std::string_view shown_prefix = {});

}  // namespace infracalc
