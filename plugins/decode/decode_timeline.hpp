// The same GPUs cut different ways (tensor, pipeline and data parallelism, e.g. TP8, TP4xPP2, DP8): an
// event simulation of each GPU's time computing, communicating and waiting over one steady-state round of
// decode (every sequence gets one token) or one prefill.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "plugins/decode/decode_parallel.hpp"
#include "plugins/decode/decode_roofline.hpp"
#include "plugins/decode/decode_math.hpp"
#include "units/expected.hpp"

namespace infracalc::decode {

/// A way to cut the GPUs: tp x pp GPUs per replica, dp replicas.
struct Layout {
  /// Tensor-parallel ranks.
  int tp = 1;
  /// Pipeline stages.
  int pp = 1;
  /// Data-parallel replicas.
  int dp = 1;
};

/// "TP8", "TP4xPP2", "DP8", "TP2xPP2xDP2" (case-insensitive, any order; a missing factor is 1).
[[nodiscard]] Expected<Layout> parse_layout(std::string_view text);
/// "TP4xPP2" (factors of 1 left out; "TP1" for a single GPU).
[[nodiscard]] std::string layout_name(const Layout& l);

/// What a GPU does in one interval.
enum class GpuState : std::uint8_t { compute, communicate, wait };

/// One interval of one GPU's timeline.
struct Segment {
  /// GPU index: replica x (tp x pp) + stage x tp + rank.
  int gpu = 0;
  /// Start, from the beginning of the window.
  Seconds start;
  /// End.
  Seconds end;
  /// State.
  GpuState state = GpuState::wait;
  /// Micro-batch being worked on (-1 while waiting).
  int micro_batch = -1;
};

/// One layout's steady-state round.
struct LayoutRound {
  /// The layout.
  Layout layout;
  /// Sequences per replica and per micro-batch.
  double replica_batch = 0, micro_batch = 0;
  /// Micro-batches in flight per replica.
  int micro_batches = 1;
  /// Time a stage computes one micro-batch (max of its bytes over bandwidth and operations over peak).
  Seconds stage_compute;
  /// Tensor-parallel all-reduces of one stage and micro-batch.
  Seconds stage_communicate;
  /// Activation hand-over from one stage to the next.
  Seconds hand_over;
  /// Time between two tokens of one sequence (decode), or the time of the prefill.
  Seconds round;
  /// Shares of the round every GPU spends computing, communicating and waiting (they sum to 1).
  double compute_share = 0, communicate_share = 0, wait_share = 0;
  /// Tokens every sequence gets per second (decode), or prompts per second (prefill).
  PerSecond per_sequence;
  /// Tokens per second of all GPUs together (prefill: prompt tokens).
  TokensPerSecond total;
  /// Every GPU's intervals over one round.
  std::vector<Segment> segments;
};

/// Simulates `layout` on `batch` sequences in total (split evenly over the replicas, and over
/// `micro_batches` per replica, default pp) at `context` tokens: decode rounds until the pipeline is in
/// steady state, then one round's window; or one prefill of prompts of `context` tokens. Stages split the
/// layers evenly (the embedding and head are spread with them); tensor-parallel all-reduces follow
/// tp_communication over `link`, stage hand-overs send micro-batch x hidden x 2 B over it. Without a link
/// communication is free (a note belongs beside it).
[[nodiscard]] LayoutRound simulate_layout(const Workload& w, const Roof& roof, const std::optional<Link>& link, const Layout& layout,
                                          double batch, Tokens context, bool prefill, int micro_batches = 0);

}  // namespace infracalc::decode
