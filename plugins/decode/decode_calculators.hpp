// The decode plugin's calculators, one factory per file.
#pragma once

#include "host/plugin.hpp"

namespace infracalc::decode {

/// `decode roofline`: ridge point, intensities of decode and prefill, attainable rates, sweeps.
[[nodiscard]] Calculator roofline_calculator();
/// `decode ceiling`: bytes per step, step time and tokens per second.
[[nodiscard]] Calculator ceiling_calculator();
/// `decode prefill`: prefill operations, time, TTFT and where compute binds.
[[nodiscard]] Calculator prefill_calculator();
/// `decode tp`: tensor-parallel split, all-reduces and the speed-up as TP grows.
[[nodiscard]] Calculator tp_calculator();
/// `decode attention`: attention operations and naive vs FlashAttention HBM traffic.
[[nodiscard]] Calculator attention_calculator();
/// `decode speculative`: tokens per pass, speed-up, trees and the batch-pressure crossover.
[[nodiscard]] Calculator speculative_calculator();
/// `decode moe`: active vs total parameters, experts touched by a batch, expert-parallel all-to-all.
[[nodiscard]] Calculator moe_calculator();
/// `decode breakdown`: one step or prefill by operator.
[[nodiscard]] Calculator breakdown_calculator();
/// `decode timeline`: the same GPUs cut several ways, simulated over one round.
[[nodiscard]] Calculator timeline_calculator();
/// `decode sample`: next-token probabilities at a temperature.
[[nodiscard]] Calculator sample_calculator();
/// `decode offload`: weights (and optionally KV) in host memory, streamed over the host link every step.
[[nodiscard]] Calculator offload_calculator();

}  // namespace infracalc::decode
