// Inputs a calculator fills from catalog fields it reads itself: dated series (tariffs, carbon
// intensity, PUE, WUE, prices) need the run's --as-of, so the host cannot resolve them up front.
// Shared by every plugin that reads a dated series (power, cooling, tco, cost).
#pragma once

#include <string>
#include <string_view>

#include "plugins/core/context.hpp"

namespace infracalc {

/// Fills input `key` from field `path` of the entry given for reference `ref` (e.g. --grid) when no flag
/// set it. A field that is a dated series (an array of {as_of, value} tables) gives its newest entry not
/// after --as-of; a plain field is taken as it is. The value is recorded as an input from the catalog and
/// its provenance cited. Returns true when the input has a value afterwards (false when there is no such
/// entry or field). Throws UserError when the series has no entry on or before --as-of, or the value has
/// the wrong dimension, is not finite or is negative.
bool fill_from_ref(Context& ctx, std::string_view key, std::string_view ref, std::string_view path,
                   const Expectation& want);

/// Records a value the calculator resolved itself (from a catalog field it read) as input `key`,
/// replacing any earlier record of that key.
void record_input(Context& ctx, std::string_view key, const Quantity& q, Origin origin, std::string raw, std::string from);

}  // namespace infracalc
