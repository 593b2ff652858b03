// A plan as one self-contained HTML page to hand on: the summary, checks, every sheet with how each line was made,
// cross-checks, notes, sources and the charts inline. No style sheet or font from elsewhere, nothing fetched: it
// opens from a file, a mail attachment or an archive years later as it did on the day. With the WebAssembly engine
// (`make web`) the page also carries a what-if panel that re-runs the plan in the page through that engine; the
// report itself is static and reads without script.
#pragma once

#include <string>
#include <vector>

#include "plan/plan_output.hpp"

namespace infracalc::plan {

/// What a page's what-if panel carries: the engine and the plan it re-runs.
struct WhatIf {
  /// The engine's script (build-web/infracalc_engine.js); empty when no engine was found.
  std::string engine_js;
  /// Its WebAssembly, gzipped (build-web/infracalc_engine.wasm.gz).
  std::string engine_wasm_gz;
  /// The site's engine loader (build-web/site/engine_loader.js, from web/site/), which the panel loads it with.
  std::string engine_loader;
  /// The plan file's text as read.
  std::string plan_text;
  /// The --set overrides the page was written with ("section.key=VALUE").
  std::vector<std::string> sets;
  /// The command line's --sweep axes (the page shows the sweep's first point).
  std::vector<std::string> sweeps;
};

/// The worksheet as an HTML document (well-formed XML as well, so XML tools read it), ending in a newline. The
/// report (everything after the title and description) is the element `<div id="report">`, every value in it that
/// a plan's inputs move carries `data-line` (a line's key, or "check.KEY" for a check's verdict). With `what_if`
/// the page carries the what-if panel, `<section id="what-if">`, and the engine; with a `what_if` without an engine,
/// one line saying the panel needs `make web`.
[[nodiscard]] std::string render_html(const Worksheet& w, const FormatOptions& number, const WhatIf* what_if = nullptr);

}  // namespace infracalc::plan
