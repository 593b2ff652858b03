// A ring all-reduce run by real threads on real buffers: reduce-scatter then all-gather, one chunk per step to
// the next worker, counting the bytes each worker sends (Patarasuk and Yuan, JPDC 2009).
#pragma once

#include <cstdint>
#include <vector>

namespace infracalc::net {

/// What a ring all-reduce did.
struct RingRun {
  /// Each worker's buffer afterwards (every one holds the element-wise sum).
  std::vector<std::vector<double>> buffers;
  /// Bytes each worker sent.
  std::vector<std::int64_t> bytes_sent;
  /// Communication steps (2 (N - 1)).
  int steps = 0;
};

/// Runs a sum all-reduce over `buffers` (one per worker, equal lengths) with one thread per worker (in the
/// WebAssembly engine, which has no threads, the workers' steps in turn on the calling thread: the same sums).
[[nodiscard]] RingRun ring_allreduce(std::vector<std::vector<double>> buffers);

/// Bytes each worker sends in a ring all-reduce of `bytes` per worker over `workers` workers: 2 (N - 1) / N x S.
[[nodiscard]] double ring_bytes_per_worker(double bytes, std::int64_t workers);

}  // namespace infracalc::net
