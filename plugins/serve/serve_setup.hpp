// Inputs the serve calculators share and their resolution: the replica (model and device through the decode
// plugin's inputs, or measured step times), its engine and KV pool (the budget from the fit plugin's memory
// waterfall), and the request stream.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/context.hpp"
#include "plugins/decode/decode_math.hpp"
#include "plugins/serve/serve_sim.hpp"
#include "plugins/serve/serve_step.hpp"

namespace infracalc::serve {

/// --model and --gpu (and --link for tensor-parallel all-reduces).
[[nodiscard]] std::vector<CatalogRef> replica_refs();
/// The model, device, tensor parallelism and measured-step inputs.
[[nodiscard]] std::vector<Input> replica_inputs();
/// The scheduler and KV-pool inputs.
[[nodiscard]] std::vector<Input> engine_inputs();
/// The request-stream inputs (lengths and arrivals).
[[nodiscard]] std::vector<Input> stream_inputs();
/// Appends `more` to `base`.
[[nodiscard]] std::vector<Input> concat(std::vector<Input> base, const std::vector<Input>& more);

/// A replica ready to simulate.
struct Replica {
  /// Prices steps.
  std::unique_ptr<StepModel> model;
  /// The roofline model when the replica is modelled from a model and a device (null for measured times).
  const RooflineStepModel* roofline = nullptr;
  /// The served model, when known.
  std::optional<decode::Workload> workload;
  /// Devices per replica.
  int tp = 1;
  /// Scheduler and pool.
  EngineConfig engine;
  /// KV bytes one token takes on one device (zero when the architecture is unknown).
  Bytes kv_per_token;
  /// KV memory per device the pool was sized from (zero when not from bytes).
  Bytes kv_budget;
  /// Tokens the pool holds (0: not limited).
  std::int64_t kv_tokens = 0;
  /// Longest sequence the model accepts (0: unknown).
  std::int64_t max_context = 0;
};

/// Resolves the replica. `need_step_model`: throw when neither a model with a bandwidth nor --step-time is
/// given. Notes what is assumed.
[[nodiscard]] Replica resolve_replica(Context& ctx, bool need_step_model = true);

/// The replica's step model alone (model, device, tp, link or measured times), without an engine.
[[nodiscard]] Replica resolve_step_model(Context& ctx, bool required);

/// Resolves the request stream: lengths from --requests, --requests-file or the seeded draw; arrivals from
/// --rate, --users, the file's times, or all at t = 0.
[[nodiscard]] SimInput resolve_stream(Context& ctx, const Replica& replica);

/// Human words for a batching mode.
[[nodiscard]] const char* batching_name(Batching b);

}  // namespace infracalc::serve
