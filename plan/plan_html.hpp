// A plan as one self-contained HTML page to hand on: the summary, checks, every sheet with how each line was made,
// cross-checks, notes, sources and the charts inline. No script, no style sheet or font from elsewhere, nothing
// fetched: it opens from a file, a mail attachment or an archive years later as it did on the day.
#pragma once

#include <string>

#include "plan/plan_output.hpp"

namespace infracalc::plan {

/// The worksheet as an HTML document (well-formed XML as well, so XML tools read it), ending in a newline.
[[nodiscard]] std::string render_html(const Worksheet& w, const FormatOptions& number);

}  // namespace infracalc::plan
