// Collective communication costs in the alpha-beta model: steps, bytes each rank sends and receives, and
// time, for all-reduce, all-gather, reduce-scatter and all-to-all under ring, tree and in-network
// (switch-reduction) algorithms. This is the general module: any plugin that needs the cost of a
// collective (tensor-parallel all-reduces, data-parallel gradient syncs, expert all-to-alls) calls
// collective_cost() with a LinkModel and gets the same figures `cluster collective` prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "units/system.hpp"

namespace infracalc::cluster {

/// The collective operations.
enum class CollectiveOp : std::uint8_t { allreduce, allgather, reducescatter, alltoall };

/// The algorithms.
enum class CollectiveAlgo : std::uint8_t {
  ring,        ///< ring (Patarasuk and Yuan 2009); all-to-all: pairwise exchange
  tree,        ///< all-reduce: binomial-tree reduce then broadcast; all-gather: recursive doubling;
               ///< reduce-scatter: recursive halving; all-to-all: Bruck's algorithm
  in_network,  ///< the switch reduces or multicasts (NVIDIA SHARP, NVLink SHARP): one pass up, one down
};

/// One rank's link in the alpha-beta model: every step pays `alpha`, every byte 1/`beta`.
struct LinkModel {
  /// Latency of one step (software and hardware, per hop).
  Seconds alpha;
  /// Bandwidth of one rank's link in one direction.
  BytesPerSecond beta;
};

/// The cost of one collective on P ranks.
struct CollectiveCost {
  /// Sequential communication steps (each pays alpha once).
  std::int64_t steps = 0;
  /// Bytes the busiest rank sends.
  Bytes sent_per_rank;
  /// Bytes the busiest rank receives.
  Bytes received_per_rank;
  /// Bytes over every link together (sum over ranks of bytes sent).
  Bytes wire_total;
  /// Time: steps x alpha + the busiest rank's larger direction / beta (a ring moves S/P per step).
  Seconds time;
  /// Algorithm bandwidth: S / time (nccl-tests "algbw").
  BytesPerSecond algbw;
  /// Bus bandwidth: algbw x the op's ring factor (nccl-tests "busbw": 2(P-1)/P for all-reduce,
  /// (P-1)/P for all-gather, reduce-scatter and all-to-all), comparable across rank counts.
  BytesPerSecond busbw;
};

/// Cost of `op` with `algo` on `ranks` ranks. `size` follows nccl-tests: all-reduce and reduce-scatter: the
/// input buffer on each rank; all-gather: the gathered output on each rank (each contributes size/P);
/// all-to-all: what each rank holds and redistributes (size/P to each peer). Throws UserError for
/// combinations that do not exist (in-network all-to-all; tree all-gather/reduce-scatter on a rank count
/// that is not a power of two) and for ranks < 1.
[[nodiscard]] CollectiveCost collective_cost(CollectiveOp op, CollectiveAlgo algo, Bytes size, std::int64_t ranks,
                                             const LinkModel& link);

/// The nccl-tests bus-bandwidth factor of an op on P ranks.
[[nodiscard]] double bus_factor(CollectiveOp op, std::int64_t ranks);

/// ceil(log2(P)) for P >= 1.
[[nodiscard]] int ceil_log2(std::int64_t p);

/// Number of children of `rank` in the binomial tree rooted at 0 over P ranks (the broadcast sends).
[[nodiscard]] int binomial_children(std::int64_t rank, std::int64_t ranks);

/// Parses "allreduce", "all-reduce", ...; nullopt when unknown.
[[nodiscard]] std::optional<CollectiveOp> parse_op(std::string_view s);
/// Parses "ring", "tree", "in-network"; nullopt when unknown.
[[nodiscard]] std::optional<CollectiveAlgo> parse_algo(std::string_view s);
/// "all-reduce", "all-gather", ...
[[nodiscard]] const char* op_name(CollectiveOp op);
/// "ring", "tree", "in-network".
[[nodiscard]] const char* algo_name(CollectiveAlgo a);

/// Default per-step latency for a link type when the catalog gives none: NCCL's tuning model
/// (src/graph/tuning.cc, hwLat, ring/Simple protocol): NVLink-class 3.4 us, PCIe-class 5.7 us, network
/// 9.6 us per hop. `type` is an interconnect file's `type` (nvlink, pcie, infiniband, ethernet, ...).
[[nodiscard]] Seconds default_step_latency(std::string_view type);

}  // namespace infracalc::cluster
