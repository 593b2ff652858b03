// Parallel layouts for training: every combination of tensor (TP), context (CP), pipeline (PP), data (DP)
// and expert (EP) parallelism for a model on N accelerators, its memory per device from the fit plugin's
// formulas, and an estimate of the time it wastes; the search picks the layout a Megatron-style planner
// would (Narayanan et al. 2021, section 3: TP inside the scale-up domain, PP across nodes, DP across the
// fabric, the fewest model-parallel devices that fit).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/model_arch.hpp"
#include "plugins/cluster/collectives.hpp"
#include "plugins/fit/fit_math.hpp"
#include "units/system.hpp"

namespace infracalc::cluster {

/// What the search needs to know.
struct LayoutProblem {
  /// The model.
  ModelArch arch;
  /// Total parameters (for reporting).
  double params = 0;
  /// Active parameters per token (6·N in the FLOP count).
  double active = 0;
  /// Accelerators.
  std::int64_t gpus = 0;
  /// Memory per accelerator.
  Bytes memory;
  /// Dense peak per accelerator (0 when unknown: no time estimate).
  FlopsPerSecond peak;
  /// Share of peak the matrix multiplies reach (the compute part of the time estimate).
  double efficiency = 0.7;
  /// Share of peak attention reaches (0: the same as `efficiency`).
  double attention_efficiency = 0;
  /// Share of the tensor-, context- and expert-parallel communication hidden behind compute (Megatron-Core
  /// overlaps it with the GEMMs it feeds); 0 exposes all of it.
  double comm_overlap = 0;
  /// Scale-up domain size (0: unknown, treated as unlimited).
  int domain = 0;
  /// Accelerators per node (0: unknown).
  int per_node = 0;
  /// Scale-up link (one direction per accelerator).
  LinkModel scaleup;
  /// Scale-out link (one direction per accelerator).
  LinkModel scaleout;
  /// Sequence length.
  Tokens seq;
  /// Sequences per micro-batch.
  int micro_batch = 1;
  /// Sequences per optimizer step (0: not given; M = 4 x PP is assumed).
  std::int64_t global_batch = 0;
  /// ZeRO stage 0-3 (sharding over DP x CP).
  int zero = 0;
  /// Model chunks per device (1: 1F1B; more: interleaved 1F1B).
  int chunks = 1;
  /// Framework reserve per device.
  Bytes reserve;
  /// Recomputation choices to try (auto: none, selective, full).
  std::vector<fit::Recompute> recompute;
  /// Forced degrees (0: free).
  int tp = 0, cp = 0, pp = 0, ep = 0;
  /// Largest TP to consider.
  int max_tp = 0;
};

/// One candidate layout and its evaluation.
struct Layout {
  /// Degrees.
  int tp = 1, cp = 1, pp = 1, ep = 1;
  /// Data-parallel degree.
  std::int64_t dp = 1;
  /// Micro-batches per step per pipeline.
  std::int64_t microbatches = 1;
  /// Recomputation.
  fit::Recompute recompute = fit::Recompute::none;
  /// Memory on the busiest device.
  Bytes weights, grads, optimizer, activations, total;
  /// True when it fits and every rule holds.
  bool feasible = false;
  /// Why it is rejected (empty when feasible).
  std::string reason;
  /// Pipeline bubble share.
  double bubble = 0;
  /// Hardware/model FLOP ratio from recomputation.
  double recompute_factor = 1;
  /// Exposed communication share of the stage time (TP, CP, EP) and the exposed DP time.
  double comm_share = 0;
  /// Step time estimate and its ideal (all compute at the efficiency, no bubble, no comm).
  Seconds step, ideal;
  /// 1 - ideal / step.
  double waste = 0;
};

/// Every candidate the search considered, best first: feasible layouts by (model-parallel size TP x CP x
/// PP, then estimated waste), then the rejected ones.
[[nodiscard]] std::vector<Layout> search_layouts(const LayoutProblem& p);

/// Evaluates one layout (memory, rules, waste).
[[nodiscard]] Layout evaluate_layout(const LayoutProblem& p, int tp, int cp, int pp, int ep, fit::Recompute r);

/// "none", "selective", "full".
[[nodiscard]] const char* recompute_name(fit::Recompute r);

}  // namespace infracalc::cluster
