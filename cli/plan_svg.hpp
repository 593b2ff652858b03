// Charts of a plan as standalone SVG files: the roofline with the plan's operating points, the memory
// waterfall per device, the cost of a million tokens by line, the power of a rack by part, and the
// occupancy of a replica over time. Axes are labelled with their units; no script or external style.
#pragma once

#include <string>
#include <vector>

#include "cli/plan_output.hpp"

namespace infracalc::plan {

/// Writes the charts that apply to the plan into `dir` (created if missing) and returns their paths.
std::vector<std::string> write_plots(const Worksheet& w, const std::string& dir, bool force, const std::vector<std::string>& inputs);

}  // namespace infracalc::plan
