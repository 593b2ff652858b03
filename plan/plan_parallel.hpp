// Sweeps on every core: the grid's points are cut into blocks that worker processes evaluate, and their rows
// come back in grid order, so the output is the same for any number of workers.
#pragma once

#include <cstddef>
#include <functional>

#include "plan/plan_sweep.hpp"

namespace infracalc::plan {

/// Evaluates the points first..end-1 as run_sweep_range does, on `jobs` worker processes: each takes every
/// jobs-th block of consecutive points (evaluated incrementally, as one process would), and the rows reach
/// `sink` here, in grid order, as the blocks finish. Memory stays flat: a worker runs at most about a block
/// ahead of the reader. With one job, or too few points to share, the sweep runs in this process. Workers are
/// forked from this process, so each starts with its evaluator and memo; stats sums their plugin runs. A
/// worker's UserError is rethrown here; a worker that dies is a UserError naming how it ended.
void run_sweep_parallel(Evaluator& ev, const PlanSpec& spec, const InputSet& base, const SweepPlan& sweep, std::size_t first,
                        std::size_t end, unsigned jobs, SweepStats& stats, const std::function<void(SweepRow&&)>& sink);

}  // namespace infracalc::plan
