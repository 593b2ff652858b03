// The device-memory inputs of a served model, shared by `fit inference` and `decode offload` so that both size the
// reserve (activations, framework, communication buffers) the same way.
#pragma once

#include <vector>

#include "host/context.hpp"
#include "plugins/fit/fit_serving.hpp"
#include "host/plugin.hpp"

namespace infracalc::fit {

/// memory, memory_utilization, framework_reserve, comm_buffers, activations and step_tokens.
[[nodiscard]] std::vector<Input> serving_memory_inputs();

/// Reads framework_reserve, comm_buffers, activations (when given) and step_tokens into `s`.
void read_reserve(Context& ctx, InferenceSetup& s);

}  // namespace infracalc::fit
