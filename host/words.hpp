// Small English helpers for notes and verdicts: "1 device" / "2 devices", "a 4096-token step" /
// "an 8192-token step", so no note says "device(s)" or "a 8192".
#pragma once

#include <string>
#include <string_view>
#include <type_traits>

namespace infracalc {

/// "1 device", "2 devices", "1,024 devices", "1.5 accelerators": the count as format_count writes it (whole
/// numbers with thousands separators) and the noun, plural unless the count is exactly one. `many` is the
/// plural when it is not `one` + "s" ("batches", "leaves").
[[nodiscard]] std::string plural_of(double n, std::string_view one, std::string_view many = {});

/// plural_of for any integer or floating-point count.
template <class N>
  requires std::is_arithmetic_v<N>
[[nodiscard]] std::string plural(N n, std::string_view one, std::string_view many = {}) {
  return plural_of(static_cast<double>(n), one, many);
}

/// The indefinite article for the text that follows it: "an" before a vowel sound ("an 8192-token step",
/// "an 11 GB cache", "an 18,000-GPU hall", "an $8k part", "an NVLink hop"; "an hour" is not handled), "a"
/// otherwise. A number is read from its leading group of digits (eight, eleven, eighteen, eighty...).
[[nodiscard]] std::string_view article(std::string_view next);

/// `next` preceded by its article: "an 8192-token", "a 4096-token".
[[nodiscard]] std::string with_article(std::string_view next);

}  // namespace infracalc
