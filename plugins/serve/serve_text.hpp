// Quantities as human text for the serve plugin's notes.
#pragma once

#include <string>

#include "units/bridge.hpp"
#include "units/format.hpp"

namespace infracalc::serve {

/// A run-time quantity as human text ("41.79 ms").
[[nodiscard]] inline std::string human(const Quantity& q) { return format_human(q); }

/// A typed quantity as human text.
template <class Q>
[[nodiscard]] std::string human(const Q& q) {
  return format_human(to_quantity(q));
}

}  // namespace infracalc::serve
