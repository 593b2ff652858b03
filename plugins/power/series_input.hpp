// Inputs filled from dated catalog series (tariffs, carbon intensity, PUE, WUE): the newest entry not
// after --as-of, recorded as a catalog input with its provenance. The host fills plain fields itself;
// series need the run date, so calculators resolve them here.
#pragma once

#include <string_view>

#include "plugins/core/context.hpp"

namespace infracalc {

/// When input `key` has no value and reference `ref` names an entry with the dated series `path`,
/// fills `key` from the newest item not after --as-of and cites it. Returns true when `key` has a
/// value afterwards. Throws UserError when the series has no item on or before --as-of, or when the
/// value is not of the expected dimension.
bool fill_from_series(Context& ctx, std::string_view key, std::string_view ref, std::string_view path, const Expectation& want);

/// Records a value the calculator resolved itself (from a catalog field it read) as an input.
void record_input(Context& ctx, std::string_view key, const Quantity& q, Origin origin, std::string raw, std::string from);

}  // namespace infracalc
