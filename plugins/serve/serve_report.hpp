// Reporting pieces the simulating calculators share: latency percentiles, service-level targets, cost, and
// the notes that say what a simulated figure leaves out.
#pragma once

#include <string_view>
#include <vector>

#include "host/context.hpp"
#include "plugins/serve/serve_setup.hpp"
#include "plugins/serve/serve_stats.hpp"

namespace infracalc::serve {

/// --ttft-target, --tpot-target, --gpu-hour and --require-slo.
[[nodiscard]] std::vector<Input> report_inputs();
/// --rental: an accelerator rental price entry whose on-demand series sets --gpu-hour.
[[nodiscard]] CatalogRef rental_ref();

/// Sets <prefix>_p50, _p95, _p99 and _mean.
void report_percentiles(Context& ctx, std::string_view prefix, const Percentiles& p);

/// SLO attainment, goodput and p95 verdicts against the targets given; cost per hour and per output token
/// with --gpu-hour.
void report_slo_and_cost(Context& ctx, const SimResult& r, const Summary& s, int devices);

/// Notes on what the run assumed and left out.
void simulate_notes(Context& ctx, const Replica& rep, const SimResult& r, const Summary& s);

}  // namespace infracalc::serve
