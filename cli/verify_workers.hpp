// Runs verify's kernels in worker processes, one per core: most kernels are single-threaded simulations, and a
// process of its own keeps each kernel's state (the catalog's caches, the descriptors' name tables, static memos)
// private without making any of it thread-safe. A kernel that crashes its worker is reported as not finished.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "host/plugin.hpp"

namespace infracalc::cli {

/// What one kernel gave: its checks, or the error that stopped it (empty when it finished).
struct KernelOutcome {
  /// The comparisons it returned.
  std::vector<KernelCheck> checks;
  /// Why it did not finish; empty when it did.
  std::string error;
};

/// Runs `run(i)` for every i below `count` in up to `workers` forked processes that take the next index as they
/// free up, and returns the outcomes in index order. `started(i)` and `finished(i)` are called in this process as
/// the workers report. `run` must not throw. With one worker, or where fork is unavailable, it runs in this process.
std::vector<KernelOutcome> run_in_workers(std::size_t count, unsigned workers, const std::function<KernelOutcome(std::size_t)>& run,
                                          const std::function<void(std::size_t)>& started, const std::function<void(std::size_t)>& finished);

}  // namespace infracalc::cli
