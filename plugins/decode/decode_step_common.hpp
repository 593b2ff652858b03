// Pieces the step calculators (ceiling, prefill, tp) share: batch/context/TP inputs, TP validation and
// communication, and the notes that say what a figure leaves out.
#pragma once

#include <vector>

#include "plugins/core/context.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_workload.hpp"

namespace infracalc::decode {

/// batch, tokens (context, default 0) and tp inputs.
[[nodiscard]] std::vector<Input> step_inputs();

/// Checks that `tp` splits the model evenly (query heads divisible by it) and notes KV-head replication.
void check_tp(Context& ctx, const Workload& w, int tp);
/// The --tp input, checked.
[[nodiscard]] int tp_degree(Context& ctx, const Workload& w);

/// Time of the tensor-parallel all-reduces of a step carrying `tokens` tokens, when a link was asked for
/// (--link-bandwidth or --link); zero otherwise.
[[nodiscard]] Seconds tp_comm_time(Context& ctx, const Workload& w, double tokens, int tp);

/// Notes when the weights and cache do not fit the GPU's memory.
void fit_note(Context& ctx, const Workload& w, double batch, Tokens tokens, int tp);

/// Notes on what a decode ceiling leaves out.
void ceiling_notes(Context& ctx, const Workload& w, const Roof& roof, Tokens tokens, int tp, bool communication);

}  // namespace infracalc::decode
