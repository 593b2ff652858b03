// The chart of a calculator that declares one (Calculator::chart), drawn from its result as a standalone SVG
// file for `--plot FILE.svg`: nothing is computed again, every bar and label comes from the result's tables.
#pragma once

#include <string>

#include "host/plugin.hpp"

namespace infracalc::cli {

/// The SVG of `r`, a result of calculator `c` (whose chart is not none). Throws UserError when the result has
/// nothing to draw or more rows than one chart holds.
[[nodiscard]] std::string calculator_svg(const Calculator& c, const Result& r);

}  // namespace infracalc::cli
