// Charts of a plan as standalone SVG files: the roofline with the plan's operating points, the memory
// waterfall per device, the cost of a million tokens by line, the power of a rack by part, and the
// occupancy of a replica over time. Axes are labelled with their units; no script or external style.
#pragma once

#include <string>
#include <vector>

#include "plan/plan_output.hpp"
#include "documents/atomic_file.hpp"

namespace infracalc::plan {

/// The chart files, in the order prepare_plots() adds them: roofline, memory, cost, rack-power, occupancy.
const std::vector<std::string>& plot_names();
/// Adds one file per chart name to `set` (creating `dir` if missing; removed again if the set is not
/// committed). The targets are checked at once: an existing chart without `force`, or an input, is an error.
std::vector<AtomicFile*> prepare_plots(OutputSet& set, const std::string& dir, bool force, const std::vector<std::string>& inputs);
/// Writes the charts that apply to the plan into the prepared files and returns their paths; a chart that
/// does not apply is skipped (no new file; with --force an old chart of that name goes when the set commits,
/// so the directory never mixes two runs). Throws UserError when no chart applies.
std::vector<std::string> fill_plots(const Worksheet& w, const std::vector<AtomicFile*>& files);
/// The SVG documents of the charts that apply to the plan, in plot_names() order, each without its XML declaration
/// (ready to stand inside an HTML page).
std::vector<std::string> chart_svgs(const Worksheet& w);
/// prepare_plots, fill_plots and commit in one: the charts of one plan into `dir`, all or none.
std::vector<std::string> write_plots(const Worksheet& w, const std::string& dir, bool force, const std::vector<std::string>& inputs);

}  // namespace infracalc::plan
