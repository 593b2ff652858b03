// Small English helpers for notes and verdicts: "1 device" / "2 devices", "a 4096-token step" /
// "an 8192-token step", so no note says "device(s)" or "a 8192".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace infracalc {

/// "1 device", "2 devices", "1,024 devices": the count with thousands separators and the noun, plural
/// unless the count is one. `many` is the plural when it is not `one` + "s" ("batches", "micro-batches").
[[nodiscard]] std::string plural(std::int64_t n, std::string_view one, std::string_view many = {});

/// The indefinite article for the text that follows it: "an" before a vowel sound ("an 8192-token step",
/// "an 11 GB cache", "an NVLink hop", "an hour" is not handled), "a" otherwise.
[[nodiscard]] std::string_view article(std::string_view next);

/// `next` preceded by its article: "an 8192-token", "a 4096-token".
[[nodiscard]] std::string with_article(std::string_view next);

}  // namespace infracalc
