// Pieces the step calculators (ceiling, prefill, tp) share: batch/context/TP inputs, TP validation and
// communication, and the notes that say what a figure leaves out.
#pragma once

#include <vector>

#include "host/context.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/efficiency.hpp"
#include "plugins/decode/decode_math.hpp"

namespace infracalc::decode {

/// batch, tokens (context, default 0) and tp inputs.
[[nodiscard]] std::vector<Input> step_inputs();

/// Checks that `tp` splits the model evenly (query heads divisible by it) and notes KV-head replication.
void check_tp(Context& ctx, const Workload& w, int tp);
/// The --tp input, checked.
[[nodiscard]] int tp_degree(Context& ctx, const Workload& w);

/// Tensor-parallel all-reduces of one step: at the link's full rate (the ceiling) and as collectives run
/// (the expected figure).
struct TpComm {
  /// Ring all-reduces at the link's bandwidth and latency.
  Seconds ceiling;
  /// The same with the calibrated collective efficiency.
  Seconds expected;
};

/// The all-reduces of a step carrying `tokens` tokens over `tp` devices, over --link / --link-bandwidth or
/// the GPU's scale-up link; zero when tp is 1 or no link is known.
[[nodiscard]] TpComm tp_comm_time(Context& ctx, const Workload& w, double tokens, int tp);
/// One decode step as a step calculator reads it from its inputs.
struct DecodeCase {
  /// The model.
  Workload w;
  /// The device's roof.
  Roof roof;
  /// Sequences decoded together.
  double batch = 1;
  /// Context cached per sequence.
  Tokens tokens;
  /// Tensor-parallel devices.
  int tp = 1;
  /// The step's bytes and operations on one device.
  StepDetail d;
  /// Its tensor-parallel all-reduces.
  TpComm tc;
  /// --overhead (zero when absent).
  Seconds overhead;
};

/// Reads the model, the roof (`need_peak` as in resolve_roof), --batch, --tokens, --tp and --overhead, and prices the
/// step's parts and all-reduces: what `decode ceiling` and `decode offload` start from.
[[nodiscard]] DecodeCase decode_case(Context& ctx, bool need_peak);

/// The --engine input (default generic).
[[nodiscard]] Input engine_input();
/// The --engine choice.
[[nodiscard]] Engine engine_of(Context& ctx);
/// The precision the arithmetic runs at: --compute-dtype, else what --dtype implies.
[[nodiscard]] std::string compute_precision(Context& ctx);
/// True when expected (calibrated) figures are reported: not when --mbu or --mfu below 100%, or --peak or
/// --bandwidth, replace the datasheet roof the calibration applies to (a note says so).
[[nodiscard]] bool expected_wanted(Context& ctx);
/// The note beside expected figures: engine, what the calibration adds and its error band.
void expected_note(Context& ctx, Engine engine);

/// Notes when the weights and cache do not fit the GPU's memory.
void fit_note(Context& ctx, const Workload& w, double batch, Tokens tokens, int tp);

/// Notes on what a decode ceiling leaves out.
void ceiling_notes(Context& ctx, const Workload& w, const Roof& roof, Tokens tokens, int tp, bool communication);

}  // namespace infracalc::decode
